"""The kinds of settlement lines (牌型, 鸡, 豆, 杠 ...) as the hand page's subtotal rows name them.

The kind of a line is the rules package's (:func:`majiang.settlement.line_kind`: the line's
own ``kind``, or for a line stored before kinds existed, the kind its category names), so
that every line lands in a row and the rows add up to each seat's 合计. An owner's
adjustment (调账) is a row of its own.
"""

from __future__ import annotations

from majiang.settlement import LineKind

__all__ = ["ADJUSTMENT", "SUBTOTAL_ROWS", "subtotal_row"]

ADJUSTMENT = "adjustment"
"""The kind of an owner's adjustment (调账), which is no settlement line of the rules."""

SUBTOTAL_ROWS: tuple[tuple[str, frozenset[str]], ...] = (
    ("牌型", frozenset({LineKind.PATTERN, LineKind.WIN})),  # with 自摸, 连庄, 报听, 萝卜 …
    ("鸡", frozenset({LineKind.CHICKEN})),
    ("豆", frozenset({LineKind.DOU})),
    ("杠/呼叫转移/退税", frozenset({LineKind.KONG, LineKind.CALL_TRANSFER,
                                   LineKind.TAX_REFUND, LineKind.ROB_TRANSFER})),
    ("包牌", frozenset({LineKind.BAOPAI})),
    ("查叫", frozenset({LineKind.CHAJIAO})),
    ("调账", frozenset({ADJUSTMENT})),
)
"""The subtotal rows in order, each with the kinds it sums: the groups of the table's
settlement screen (``static/table/settlement.js``), so a hand reads the same on both."""


def subtotal_row(kind: str) -> str:
    """The name of the subtotal row that a line of ``kind`` counts in."""
    return next(name for name, kinds in SUBTOTAL_ROWS if kind in kinds)
