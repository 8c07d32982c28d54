"""Settlement: the itemised result of a hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Settlement", "SettlementLine", "totals_of"]


@dataclass(frozen=True, slots=True)
class SettlementLine:
    """One payment: ``payer`` pays ``payee`` ``points`` for ``category``, by ruling ``ruling``.

    ``category`` is what players read, in Chinese (for example ``冲锋鸡`` or ``牌型:清七对``);
    ``ruling`` is the ruling ID (for example ``D17``).
    """

    payer: int
    payee: int
    category: str
    points: int
    ruling: str
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """The line as JSON."""
        out: dict[str, Any] = {
            "payer": self.payer,
            "payee": self.payee,
            "category": self.category,
            "points": self.points,
            "ruling": self.ruling,
        }
        if self.note:
            out["note"] = self.note
        return out


def totals_of(lines: Sequence[SettlementLine], players: int) -> tuple[int, ...]:
    """Each seat's net points over ``lines``."""
    totals = [0] * players
    for line in lines:
        totals[line.payer] -= line.points
        totals[line.payee] += line.points
    return tuple(totals)


@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of a hand: itemised lines, per-seat totals and a variant's summary.

    ``summary`` holds what players are shown beside the lines (D23 for 都匀); ``players`` holds
    one summary mapping per seat. The lines always sum to zero.
    """

    lines: tuple[SettlementLine, ...]
    totals: tuple[int, ...]
    summary: Mapping[str, Any] = field(default_factory=dict)
    players: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of(
        cls,
        lines: Sequence[SettlementLine],
        players: int,
        summary: Mapping[str, Any] | None = None,
        per_player: Sequence[Mapping[str, Any]] = (),
    ) -> Settlement:
        """Build a settlement, dropping zero-point lines and computing totals."""
        kept = tuple(line for line in lines if line.points)
        return cls(kept, totals_of(kept, players), dict(summary or {}), tuple(per_player))

    def to_json(self) -> dict[str, Any]:
        """The settlement as JSON."""
        return {
            "lines": [line.to_json() for line in self.lines],
            "totals": list(self.totals),
            "summary": dict(self.summary),
            "players": [dict(p) for p in self.players],
        }
