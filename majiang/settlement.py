"""Settlement: the itemised result of a hand.

Every :class:`SettlementLine` carries a machine :class:`LineKind` beside its Chinese
``category``, so that programs group and render lines without reading display text. Lines
stored before the kind existed get theirs from :func:`line_kind`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, NotRequired, TypedDict, TypeVar

__all__ = [
    "AnySettlement",
    "LineJSON",
    "LineKind",
    "NoSummary",
    "Settlement",
    "SettlementLine",
    "VoidLineJSON",
    "line_kind",
    "line_with_kind",
    "totals_of",
]


class LineKind(StrEnum):
    """What a settlement line pays for, as a stable machine value.

    ``PATTERN`` 牌型 (the pattern or fan payment of a win), ``WIN`` the other parts of a
    winning payment (自摸, 杠上花, 热炮, 抢杠, 报听, 连庄, 自摸加底, 萝卜, and the flat win of
    ``basic``), ``CHICKEN`` any 鸡, ``DOU`` 豆, ``KONG`` 杠 money (自贡), ``CALL_TRANSFER``
    呼叫转移, ``ROB_TRANSFER`` 抢杠转移 (自贡 一牌多用), ``TAX_REFUND`` 退税, ``BAOPAI`` 包牌 and
    ``CHAJIAO`` 查叫 (反查叫 included).
    """

    PATTERN = "pattern"
    WIN = "win"
    CHICKEN = "chicken"
    DOU = "dou"
    KONG = "kong"
    CALL_TRANSFER = "call_transfer"
    ROB_TRANSFER = "rob_transfer"
    TAX_REFUND = "tax_refund"
    BAOPAI = "baopai"
    CHAJIAO = "chajiao"


class LineJSON(TypedDict):
    """A settlement line as JSON (:meth:`SettlementLine.to_json`)."""

    payer: int
    payee: int
    category: str
    kind: str
    points: int
    ruling: str
    note: NotRequired[str]


class VoidLineJSON(LineJSON):
    """A line that did not count (都匀 D20), with the reason ``void`` in Chinese."""

    void: str


_CATEGORY_KINDS: dict[str, LineKind] = {
    **dict.fromkeys(
        ("幺鸡", "金鸡", "翻牌鸡", "上下鸡", "英雄鸡", "冲锋鸡", "责任鸡"), LineKind.CHICKEN
    ),
    **dict.fromkeys(("明豆", "暗豆", "转弯豆"), LineKind.DOU),
    **dict.fromkeys(("直杠", "补杠", "暗杠"), LineKind.KONG),
    **dict.fromkeys(("查叫", "反查叫"), LineKind.CHAJIAO),
    "呼叫转移": LineKind.CALL_TRANSFER,
    "抢杠转移": LineKind.ROB_TRANSFER,
    "退税": LineKind.TAX_REFUND,
    "包牌": LineKind.BAOPAI,
}
"""The kind of every category that the variants write, except 牌型 lines and wins."""


_KINDS = frozenset(kind.value for kind in LineKind)


def line_kind(line: Mapping[str, Any]) -> LineKind:
    """The kind of a line given as JSON, also for lines stored before ``kind`` existed.

    A line that has a ``kind`` keeps it. Otherwise the kind follows from the category the
    variants have always written: ``牌型:…`` is :attr:`LineKind.PATTERN`, the 鸡, 豆, 杠,
    transfer, 退税, 包牌 and 查叫 names their kinds, and anything else (自摸, 报听, 连庄, 萝卜 …)
    is part of a winning payment, :attr:`LineKind.WIN`. Never raises for a line dict.
    """
    stored = line.get("kind")
    if isinstance(stored, str) and stored in _KINDS:
        return LineKind(stored)
    category = str(line.get("category", ""))
    if category.startswith("牌型:"):
        return LineKind.PATTERN
    return _CATEGORY_KINDS.get(category, LineKind.WIN)


def line_with_kind(line: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a line given as JSON with its ``kind`` set (:func:`line_kind`), so that a
    line stored before ``kind`` existed compares equal to the same line written today."""
    return {**line, "kind": line_kind(line).value}


@dataclass(frozen=True, slots=True)
class SettlementLine:
    """One payment: ``payer`` pays ``payee`` ``points`` for ``category``, by ruling ``ruling``.

    ``category`` is what players read, in Chinese (for example ``冲锋鸡`` or ``牌型:清七对``);
    ``kind`` is what programs read; ``ruling`` is the ruling ID (for example ``D17``, see
    :mod:`majiang.rulings`).
    """

    payer: int
    payee: int
    category: str
    points: int
    ruling: str
    note: str = ""
    kind: LineKind = field(kw_only=True)

    def to_json(self) -> LineJSON:
        """The line as JSON."""
        out: LineJSON = {
            "payer": self.payer,
            "payee": self.payee,
            "category": self.category,
            "kind": self.kind.value,
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


SummaryT_co = TypeVar("SummaryT_co", bound=Mapping[str, object], covariant=True)
PlayerT_co = TypeVar("PlayerT_co", bound=Mapping[str, object], covariant=True)
_S = TypeVar("_S", bound=Mapping[str, object])
_P = TypeVar("_P", bound=Mapping[str, object])


class NoSummary(TypedDict):
    """The summary (and per-seat summary) of a variant that shows nothing beside the lines."""


@dataclass(frozen=True, slots=True)
class Settlement(Generic[SummaryT_co, PlayerT_co]):
    """The result of a hand: itemised lines, per-seat totals and a variant's summary.

    ``summary`` holds what players are shown beside the lines; ``players`` holds one summary
    per seat. Their types are the variant's: ``Settlement[DuyunSummary, DuyunPlayer]`` (D23,
    :mod:`majiang.variants.duyun.settle`), ``Settlement[ZigongSummary, ZigongPlayer]``
    (:mod:`majiang.variants.zigong.settle`), ``Settlement[NoSummary, NoSummary]`` for
    ``basic``; :data:`AnySettlement` is any of them. The lines always sum to zero.
    """

    lines: tuple[SettlementLine, ...]
    totals: tuple[int, ...]
    summary: SummaryT_co
    players: tuple[PlayerT_co, ...]

    @classmethod
    def of(
        cls,
        lines: Sequence[SettlementLine],
        players: int,
        summary: _S,
        per_player: Sequence[_P],
    ) -> Settlement[_S, _P]:
        """Build a settlement, dropping zero-point lines and computing totals."""
        kept = tuple(line for line in lines if line.points)
        return Settlement(kept, totals_of(kept, players), summary, tuple(per_player))

    def to_json(self) -> dict[str, Any]:
        """The settlement as JSON."""
        return {
            "lines": [line.to_json() for line in self.lines],
            "totals": list(self.totals),
            "summary": dict(self.summary),
            "players": [dict(p) for p in self.players],
        }


AnySettlement = Settlement[Mapping[str, object], Mapping[str, object]]
"""A settlement of any variant, as :meth:`Round.settlement` returns it."""
