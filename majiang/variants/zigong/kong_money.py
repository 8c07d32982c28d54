"""Kong money (刮风下雨, Z14) and where it ends up: 呼叫转移 (Z15), 退税 (Z17), 抢杠 (Z21)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from majiang.settlement import LineKind, SettlementLine
from majiang.state import Kong, MeldKind, WinSource

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["kong_lines"]

_CATEGORY = {
    MeldKind.EXPOSED_KONG: "直杠",
    MeldKind.ADDED_KONG: "补杠",
    MeldKind.CONCEALED_KONG: "暗杠",
}


def _payments(kong: Kong) -> list[tuple[int, int]]:
    """Z14: who pays the konger how much, as (payer, points)."""
    if kong.kind is MeldKind.EXPOSED_KONG:
        assert kong.from_seat is not None
        return [(kong.from_seat, 2)]
    each = 1 if kong.kind is MeldKind.ADDED_KONG else 2
    return [(payer, each) for payer in kong.payers]


def _hujiao_winners(rnd: Round, kong: Kong) -> list[int]:
    """The seats that won the discard made right after this kong (杠上炮) and so take its
    money (Z15); none when a kong of that turn was robbed (Z21: "that winner gets no
    transfer", the more specific ruling, so the turn's other kongs stay with the konger)."""
    robbed = {k.index for k in rnd.kongs if k.robbed_by}
    return [
        w.seat
        for w in rnd.wins
        if w.source is WinSource.DISCARD
        and kong.index in w.turn_kongs
        and not robbed.intersection(w.turn_kongs)
    ]


def kong_lines(rnd: Round, refunded: Collection[int]) -> tuple[list[SettlementLine], list[int]]:
    """Every kong's lines, with its transfer or refund right after it.

    ``refunded`` are the kongers whose kong money goes back (退税, Z17). Returns the lines and
    the indices of kongs whose money is void (several 杠上炮 winners or robbers).
    """
    lines: list[SettlementLine] = []
    void: list[int] = []
    transfer_on = bool(rnd.settings["hujiao_zhuanyi"])
    for kong in rnd.kongs:
        category = _CATEGORY[kong.kind]
        winners = _hujiao_winners(rnd, kong) if not kong.robbed_by and transfer_on else []
        if len(kong.robbed_by) > 1 or len(winners) > 1:
            void.append(kong.index)
            continue
        payments = _payments(kong)
        total = sum(points for _, points in payments)
        note = f"{kong.tile.code}"
        lines.extend(
            SettlementLine(payer, kong.seat, category, points, "Z14", note, kind=LineKind.KONG)
            for payer, points in payments
        )
        if kong.robbed_by:
            lines.append(
                SettlementLine(
                    kong.seat,
                    kong.robbed_by[0],
                    "抢杠转移",
                    total,
                    "Z21",
                    f"{category} {note} 的杠分转给抢杠者",
                    kind=LineKind.ROB_TRANSFER,
                )
            )
        elif kong.seat in refunded:
            lines.extend(
                SettlementLine(
                    kong.seat,
                    payer,
                    "退税",
                    points,
                    "Z17",
                    f"未下叫, 退还{category} {note}",
                    kind=LineKind.TAX_REFUND,
                )
                for payer, points in payments
            )
        elif winners:
            lines.append(
                SettlementLine(
                    kong.seat,
                    winners[0],
                    "呼叫转移",
                    total,
                    "Z15",
                    f"{category} {note} 的杠分转给杠上炮接炮者",
                    kind=LineKind.CALL_TRANSFER,
                )
            )
    return lines, void
