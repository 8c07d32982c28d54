"""The kind of a settlement line (牌型, 鸡, 豆, 杠 ...), for per-player subtotals.

Settlement lines carry a machine ``kind``; lines stored before it existed carry only the
Chinese ``category``. :func:`line_kind` is the one place that reads either: the line's own
``kind`` when present, else the kind its category names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["KIND_NAMES", "line_kind"]

KIND_NAMES = {
    "pattern": "牌型",
    "chicken": "鸡",
    "dou": "豆",
    "kong": "杠",
    "call_transfer": "呼叫转移",
    "tax_refund": "退税",
    "baopai": "包牌",
    "chajiao": "查叫",
    "adjustment": "调账",
    "other": "其他",
}
"""Each kind's Chinese name, in the order subtotals are shown."""

_LEGACY_KINDS = {
    # The winner's pattern and what is paid on top of it (D6, D10, D10a, D13, D14; Z11, Z13).
    **dict.fromkeys(
        ("胡牌", "自摸", "杠上花", "抢杠", "热炮", "报听", "连庄", "自摸加底", "萝卜"), "pattern"
    ),
    **dict.fromkeys(("幺鸡", "金鸡", "翻牌鸡", "上下鸡", "冲锋鸡", "英雄鸡", "责任鸡"), "chicken"),
    **dict.fromkeys(("明豆", "暗豆", "转弯豆"), "dou"),
    **dict.fromkeys(("直杠", "补杠", "暗杠"), "kong"),
    **dict.fromkeys(("呼叫转移", "抢杠转移"), "call_transfer"),
    "退税": "tax_refund",
    "包牌": "baopai",
    **dict.fromkeys(("查叫", "反查叫"), "chajiao"),
    "调账": "adjustment",
}


def line_kind(line: Mapping[str, Any]) -> str:
    """The kind of a settlement line (a key of :data:`KIND_NAMES`).

    ``line`` is a stored settlement line (``{"category": ..., "kind": ...}``). Its own
    ``kind`` wins; a line without one is classified by its category (``牌型:…`` is a
    pattern); a category this module does not know is ``other``.
    """
    kind = line.get("kind")
    if kind:
        return str(kind)
    category = str(line.get("category", ""))
    if category.startswith("牌型:"):
        return "pattern"
    return _LEGACY_KINDS.get(category, "other")
