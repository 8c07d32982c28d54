"""Recomputing a hand from its game record with the rules package.

The ledger never trusts a stored settlement on its own: :func:`hand_recompute` replays the
hand's record (``majiang.record.replay``) and asks the rules for the settlement again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from majiang.record import replay
from majiang.settlement import LineJSON, SettlementLine
from majiang.state import Win, WinSource

from .errors import LedgerMismatchError


@dataclass(frozen=True, slots=True)
class Recomputed:
    """A replayed hand's settlement lines, per-seat totals and winning seats."""

    lines: tuple[SettlementLine, ...]
    totals: tuple[int, ...]
    winners: frozenset[int]


def hand_recompute(record: dict[str, Any]) -> Recomputed:
    """Replay ``record`` and settle it; raise :class:`LedgerMismatchError` if it cannot."""
    try:
        rnd = replay(record)
        settlement = rnd.settlement()
    except Exception as exc:
        raise LedgerMismatchError(f"牌局记录无法重放: {exc}") from exc
    return Recomputed(
        settlement.lines, settlement.totals, frozenset(w.seat for w in rnd.wins)
    )


def lines_as_json(lines: tuple[SettlementLine, ...]) -> list[LineJSON]:
    """Settlement lines as the JSON the matches app stores (``Hand.settlement["lines"]``)."""
    return [line.to_json() for line in lines]


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """How a hand went for one seat: whether it won by 自摸, and whether it fed a win (点炮,
    including a kong robbed by 抢杠)."""

    self_draw: bool
    dealt_in: bool


def hand_wins(record: dict[str, Any]) -> tuple[Win, ...]:
    """The wins of a settled hand, replayed from its record."""
    try:
        return tuple(replay(record).wins)
    except Exception as exc:
        raise LedgerMismatchError(f"牌局记录无法重放: {exc}") from exc


def seat_facts(wins: tuple[Win, ...], seat: int) -> SeatFacts:
    """:class:`SeatFacts` of ``seat`` in a hand with these ``wins``."""
    return SeatFacts(
        self_draw=any(w.seat == seat and w.source is WinSource.SELF_DRAW for w in wins),
        dealt_in=any(
            w.from_seat == seat and w.source is not WinSource.SELF_DRAW for w in wins
        ),
    )
