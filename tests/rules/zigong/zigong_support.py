"""Helpers for the 自贡 scenario tests: deal explicit hands, act, read settlement lines."""

from __future__ import annotations

from typing import Any

from majiang.actions import Action, ActionType
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.tiles import parse_tile, parse_tiles
from majiang.variants import get_variant

ZIGONG = get_variant("zigong")

Line = tuple[int, int, str, int, str]

_VERBS = {
    "discard": ActionType.DISCARD,
    "pung": ActionType.PUNG,
    "kong": ActionType.KONG,
    "win": ActionType.WIN,
    "pass": ActionType.PASS,
}


def deal(
    hands: list[str],
    *,
    draws: str = "",
    back: str = "",
    dealer: int = 0,
    streak: int = 1,
    **settings: Any,
) -> Round:
    """Deal a 自贡 round with these hands (``players`` follows ``len(hands)``)."""
    settings.setdefault("players", len(hands))
    rnd, _ = deal_scenario(
        ZIGONG, settings, dealer=dealer, streak=streak, hands=hands, draws=draws, back=back
    )
    return rnd


def action(step: str) -> Action:
    """Parse one step: ``"<seat> <verb> [tile] [ticks=<tiles>]"``.

    Verbs: discard, pung, kong, win, pass, declare (with a tile: a declaring discard; without:
    报叫 in the opening window). ``ticks=`` alone is 报杠 with nothing ticked. The answers to an
    open 报杠 panel (Z20) are ``baogang ticks=<tiles>`` and ``bubao`` (both ``DECLARE``).
    """
    words = step.split()
    seat = int(words[0])
    verb = words[1]
    tile = None
    ticks = None
    for word in words[2:]:
        if word.startswith("ticks="):
            ticks = tuple(parse_tiles(word[6:]))
        else:
            tile = parse_tile(word)
    if verb in ("baogang", "bubao"):
        return Action(ActionType.DECLARE, seat, ticks=ticks)
    if verb == "declare":
        kind = ActionType.DISCARD if tile is not None else ActionType.DECLARE
        return Action(kind, seat, tile, declare=tile is not None, ticks=ticks)
    return Action(_VERBS[verb], seat, tile, ticks=ticks)


def act(rnd: Round, script: str) -> None:
    """Apply the ``;``-separated steps of ``script`` in order."""
    for step in script.split(";"):
        if step.strip():
            rnd.apply(action(step.strip()))


def play_out(rnd: Round) -> None:
    """Finish the hand without winning: pass every window, discard every drawn tile."""
    while not rnd.ended:
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
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


def lines(rnd: Round) -> list[Line]:
    """The settlement lines as (payer, payee, category, points, ruling)."""
    return [(x.payer, x.payee, x.category, x.points, x.ruling) for x in rnd.settlement().lines]


def notes(rnd: Round) -> list[str]:
    """The notes of the settlement lines, in order."""
    return [x.note for x in rnd.settlement().lines]


A = "124578s124578p9s"
"""A filler hand: 13 tiles, no pair, not ready."""
B = "124578s124578p9p"
"""A filler hand: 13 tiles, no pair, not ready."""
C = "124578s124578p3s"
"""A filler hand: 13 tiles, no pair, not ready. With A and B, it leaves one copy of each
of 1s 2s 4s 5s 7s 8s 1p 2p 4p 5p 7p 8p and 3s×3 3p×4 6s×4 6p×4 9s×3 9p×3."""
