"""End of hand at wall exhaustion: 查叫 (Z16) and 反查叫 (Z18)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from majiang.settlement import LineKind, SettlementLine
from majiang.variants.zigong.fan import Fan, hand_fan

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["best_ready_fan", "chajiao_lines"]


def best_ready_fan(rnd: Round, seat: int) -> Fan | None:
    """Z16: a seat's largest fan over all its waits (pattern, 清一色, 根, 卡二条 only).

    ``None`` when the seat is not ready.
    """
    s = rnd.seats[seat]
    best: Fan | None = None
    for tile in rnd.waits(seat):
        counts = list(s.hand)
        counts[tile] += 1
        fan = hand_fan(counts, s.melds, tile)
        if fan is not None and (best is None or fan.total > best.total):
            best = fan
    return best


def chajiao_lines(
    rnd: Round, active: Sequence[int], fans: Mapping[int, Fan]
) -> list[SettlementLine]:
    """Z16 and Z18 between the seats still in the hand; ``fans`` holds the ready ones."""
    cap = int(rnd.settings["fan_cap"])
    lines: list[SettlementLine] = []
    declared = {s for s in active if rnd.seats[s].declared and s in fans}
    for payer in active:
        if payer in fans:
            continue
        for payee in active:
            if payee not in fans:
                continue
            extra = 1 if payee in declared else 0
            fan = min(fans[payee].total + extra, cap)
            lines.append(
                SettlementLine(
                    payer,
                    payee,
                    "查叫",
                    2**fan,
                    "Z18" if extra else "Z16",
                    f"{fans[payee].name}: {fans[payee].note(cap, extra)}",
                    kind=LineKind.CHAJIAO,
                )
            )
    for payer in sorted(declared):
        for payee in active:
            if payee not in fans or payee in declared:
                continue
            fan = min(fans[payee].total + 1, cap)
            lines.append(
                SettlementLine(
                    payer,
                    payee,
                    "反查叫",
                    2**fan,
                    "Z18",
                    f"{fans[payee].name}: {fans[payee].note(cap, 1)}",
                    kind=LineKind.CHAJIAO,
                )
            )
    return lines
