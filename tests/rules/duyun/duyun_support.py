"""Helpers for the 都匀 scenario tests: deal explicit hands, act, read settlement lines."""

from __future__ import annotations

from typing import Any

from majiang.actions import Action, ActionType
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.tiles import parse_tile
from majiang.variants import get_variant

DUYUN = get_variant("duyun")

Line = tuple[int, int, str, int, str]

_VERBS = {
    "discard": ActionType.DISCARD,
    "declare": ActionType.DISCARD,
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
    """Deal a 都匀 round with these hands (``players`` follows ``len(hands)``)."""
    settings.setdefault("players", len(hands))
    rnd, _ = deal_scenario(
        DUYUN, settings, dealer=dealer, streak=streak, hands=hands, draws=draws, back=back
    )
    return rnd


def action(rnd: Round, step: str) -> Action:
    """Parse ``"seat:verb[:tile]"``; a claim's tile defaults to the tile on offer."""
    seat_text, verb, *rest = step.split(":")
    seat = int(seat_text)
    kind = _VERBS[verb]
    tile = parse_tile(rest[0]) if rest else None
    if tile is None and kind in (ActionType.PUNG, ActionType.KONG) and rnd.window is not None:
        tile = rnd.window.tile
    return Action(kind, seat, tile, declare=verb == "declare")


def play(rnd: Round, *steps: str) -> Round:
    """Apply each step in order."""
    for step in steps:
        rnd.apply(action(rnd, step))
    return rnd


def lines(rnd: Round) -> list[Line]:
    """The settlement lines as (payer, payee, category, points, ruling), in settlement order."""
    return [(x.payer, x.payee, x.category, x.points, x.ruling) for x in rnd.settlement().lines]


def each_pays(payers: list[int], payee: int, *items: tuple[str, int, str]) -> list[Line]:
    """Lines where every payer pays ``payee`` each (category, points, ruling) item."""
    return [(p, payee, c, n, r) for p in payers for (c, n, r) in items]


def pays_each(payer: int, payees: list[int], *items: tuple[str, int, str]) -> list[Line]:
    """Lines where ``payer`` pays every payee each (category, points, ruling) item."""
    return [(payer, p, c, n, r) for p in payees for (c, n, r) in items]


def exhaust(rnd: Round, *, last_draw: bool = False) -> Round:
    """Play on by discarding each drawn tile and passing every claim, to 黄庄 (or, with
    ``last_draw``, until a seat holds the last wall tile and must act on it).

    Fails if anyone is offered a win: exhaustion scenarios keep every wait out of the wall.
    """
    while not rnd.ended and not (last_draw and not rnd.wall.remaining and rnd.window is None):
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
        assert not any(a.type is ActionType.WIN for a in legal), f"seat {seat} could win"
        if rnd.window is not None:
            rnd.apply(Action(ActionType.PASS, seat))
        else:
            drawn = rnd.seats[seat].drawn
            assert drawn is not None
            rnd.apply(Action(ActionType.DISCARD, seat, drawn))
    return rnd
