"""Helpers for the scenario tests of both variants: deal explicit hands, act, read lines.

Steps are written ``"<seat> <verb> [tile] [ticks=<tiles>]"``; ``:`` separates words as well
as spaces do (``"0:discard:1s"``). Verbs: ``discard``, ``pung``, ``kong``, ``win``, ``pass``
and ``declare`` (with a tile: a declaring discard, 报听 or 报叫; without: 报叫 in the opening
window, Z19). A 碰 or 杠 without a tile claims the tile on offer. ``ticks=`` alone is 报杠
with nothing ticked; the answers to an open 报杠 panel (Z20) are ``baogang ticks=<tiles>``
and ``bubao`` (both ``DECLARE``).
"""

from __future__ import annotations

import re
from typing import Any

from majiang.actions import Action, ActionType
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.tiles import parse_tile, parse_tiles
from majiang.variant import Variant
from majiang.variants import get_variant

DUYUN = get_variant("duyun")
ZIGONG = get_variant("zigong")

Line = tuple[int, int, str, int, str]

_VERBS = {
    "discard": ActionType.DISCARD,
    "pung": ActionType.PUNG,
    "kong": ActionType.KONG,
    "win": ActionType.WIN,
    "pass": ActionType.PASS,
}
_WORDS = re.compile(r"[\s:]+")


def deal(
    variant: Variant,
    hands: list[str],
    *,
    draws: str = "",
    back: str = "",
    dealer: int = 0,
    streak: int = 1,
    **settings: Any,
) -> Round:
    """Deal a round of ``variant`` with these hands (``players`` follows ``len(hands)``)."""
    settings.setdefault("players", len(hands))
    rnd, _ = deal_scenario(
        variant, settings, dealer=dealer, streak=streak, hands=hands, draws=draws, back=back
    )
    return rnd


def action(step: str, rnd: Round | None = None) -> Action:
    """Parse one step (see the module docstring); ``rnd`` supplies the tile on offer."""
    seat_text, verb, *rest = _WORDS.split(step.strip())
    seat = int(seat_text)
    tile = None
    ticks = None
    for word in rest:
        if word.startswith("ticks="):
            ticks = tuple(parse_tiles(word[6:]))
        else:
            tile = parse_tile(word)
    if verb in ("baogang", "bubao"):
        return Action(ActionType.DECLARE, seat, ticks=ticks)
    if verb == "declare":
        kind = ActionType.DISCARD if tile is not None else ActionType.DECLARE
        return Action(kind, seat, tile, declare=tile is not None, ticks=ticks)
    kind = _VERBS[verb]
    if tile is None and kind in (ActionType.PUNG, ActionType.KONG) and rnd is not None:
        tile = rnd.window.tile if rnd.window is not None else None
    return Action(kind, seat, tile, ticks=ticks)


def play(rnd: Round, *scripts: str) -> Round:
    """Apply the steps in order; each script holds one step or several separated by ``;``."""
    for script in scripts:
        for step in script.split(";"):
            if step.strip():
                rnd.apply(action(step, rnd))
    return rnd


def play_out(rnd: Round, *, no_wins: bool = False, last_draw: bool = False) -> Round:
    """Finish the hand without winning: pass every window (or make the forced claim of a
    declared seat), and discard each drawn tile (the rightmost tile after a 碰).

    With ``no_wins``, fail if anyone is offered a win: exhaustion scenarios keep every wait
    out of the wall. With ``last_draw``, stop once a seat holds the last wall tile and must
    act on it.
    """
    while not rnd.ended and not (last_draw and not rnd.wall.remaining and rnd.window is None):
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
        assert not (no_wins and any(a.type is ActionType.WIN for a in legal)), (
            f"seat {seat} could win"
        )
        if rnd.window is not None:
            choice = next((a for a in legal if a.type is ActionType.PASS), None)
            rnd.apply(choice or next(a for a in legal if a.type is not ActionType.WIN))
            continue
        s = rnd.seats[seat]
        if s.declared:
            rnd.apply(next(a for a in legal if a.type is not ActionType.WIN))
        else:
            tile = s.drawn if s.drawn is not None else max(s.concealed())
            rnd.apply(Action(ActionType.DISCARD, seat, tile))
    return rnd


def lines(rnd: Round) -> list[Line]:
    """The settlement lines as (payer, payee, category, points, ruling), in order."""
    return [(x.payer, x.payee, x.category, x.points, x.ruling) for x in rnd.settlement().lines]


def notes(rnd: Round) -> list[str]:
    """The notes of the settlement lines, in order."""
    return [x.note for x in rnd.settlement().lines]


def each_pays(payers: list[int], payee: int, *items: tuple[str, int, str]) -> list[Line]:
    """Lines where every payer pays ``payee`` each (category, points, ruling) item."""
    return [(p, payee, c, n, r) for p in payers for (c, n, r) in items]


def pays_each(payer: int, payees: list[int], *items: tuple[str, int, str]) -> list[Line]:
    """Lines where ``payer`` pays every payee each (category, points, ruling) item."""
    return [(payer, p, c, n, r) for p in payees for (c, n, r) in items]


A = "124578s124578p9s"
"""A 自贡 filler hand: 13 tiles, no pair, not ready."""
B = "124578s124578p9p"
"""A 自贡 filler hand: 13 tiles, no pair, not ready."""
C = "124578s124578p3s"
"""A 自贡 filler hand: 13 tiles, no pair, not ready. With A and B, it leaves one copy of each
of 1s 2s 4s 5s 7s 8s 1p 2p 4p 5p 7p 8p and 3s×3 3p×4 6s×4 6p×4 9s×3 9p×3."""
