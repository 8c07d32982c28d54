"""Refusals: why the engine would not apply an action, and the one place that words them.

The engine raises :class:`~majiang.errors.IllegalActionError` with a :class:`Refusal`: a
stable ``code`` (``not_your_turn``, ``illegal_action`` …, the codes the table protocol
sends), an optional ``reason`` that tells apart refusals sharing one code, and plain data
(the action's type, its tile, the variant …), never words. :func:`words` turns a refusal
into the Chinese a player reads, from :data:`TEMPLATES`; tiles are named as players name
them (:attr:`Tile.chinese <majiang.tiles.Tile.chinese>`: 五万, 幺鸡), so no message holds a
tile code, a field name or any other Latin letter or digit. The server, the command line
and records all show refusals through this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from majiang.tiles import Tile

__all__ = ["CODES", "TEMPLATES", "Refusal", "RefusalValue", "declare_word", "words"]

RefusalValue = Tile | str | int | bool | None
"""What a refusal's data may hold: plain values, which :func:`words` puts into Chinese."""

TEMPLATES: dict[tuple[str, str | None], str] = {
    ("hand_over", None): "本局已结束",
    ("hand_not_over", None): "本局尚未结束",
    ("bad_seat", None): "座位无效",
    ("not_your_turn", None): "现在不是你操作的时候",
    ("already_decided", None): "你已经做出选择，请等待其他玩家",
    ("illegal_action", None): "现在不能这样操作",
    ("illegal_action", "not_legal"): "现在不能{act}",
    ("illegal_action", "needs_tile"): "{verb}要指明是哪张牌",
    ("illegal_action", "no_tile"): "{verb}不用指明牌",
    ("illegal_action", "no_declare"): "{verb}时不能{declare}，只有出牌时可以同时{declare}",
    ("illegal_action", "panel_open"): "请先选择报杠或不报",
    ("illegal_action", "ticks_without_declare"): "只有报叫时才能报杠",
    ("baogang_not_allowed", None): "本玩法没有报杠",
    # Z20: the seed's own words for an empty 报杠 and for ticks that break the hand.
    ("baogang_empty", None): "没勾选任何选项，不能报杠",
    ("baogang_not_offered", None): "只能勾选列出的杠牌",
    ("baogang_not_offered", "not_listed"): "{tile}不能报杠，只能勾选列出的杠牌",
    ("baogang_not_offered", "repeated"): "{tile}勾选了不止一次，每张杠牌只能勾选一次",
    ("baogang_too_many", None): "抱歉，不能选择更多的杠",
}
"""The words of each refusal, by ``(code, reason)``. ``(code, None)`` is the code's own
wording, which needs no data: it is also what a refusal gets when its data are missing.

Fields: ``{tile}`` the tile's name; ``{verb}`` the action's name (出牌, 碰, 杠, 胡, 过, 报叫);
``{act}`` the whole action (打出五万, 碰五万, 打出五万并报叫 …); ``{declare}`` the variant's
word for a declaration of ready (报听 in 都匀, else 报叫)."""

CODES = frozenset(code for code, _ in TEMPLATES)
"""Every code the engine refuses with."""

_FALLBACK = "现在不能这样操作"

_NAMES = {"discard": "出牌", "pung": "碰", "kong": "杠", "win": "胡", "pass": "过"}
"""Actions by name, as in 碰要指明是哪张牌; ``declare`` is the variant's word."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action was refused: a stable ``code``, the ``reason`` within it that picks
    the words (``None``: the code's own), and plain ``data`` for them.

    Data keys :func:`words` reads: ``action`` (an :class:`~majiang.actions.ActionType`
    value), ``tile`` (a :class:`~majiang.tiles.Tile`), ``declare`` (whether the discard
    declares ready) and ``variant`` (the variant's ID).
    """

    code: str
    reason: str | None = None
    data: Mapping[str, RefusalValue] = field(default_factory=dict, hash=False)


def declare_word(variant: object) -> str:
    """A declaration of ready in ``variant``'s words: 报听 in 都匀 (D9), 报叫 elsewhere."""
    return "报听" if variant == "duyun" else "报叫"


def _fields(data: Mapping[str, RefusalValue]) -> dict[str, str]:
    """The template fields that ``data`` supplies, in Chinese."""
    declare = declare_word(data.get("variant"))
    out = {"declare": declare}
    tile = data.get("tile")
    tile_name = tile.chinese if isinstance(tile, Tile) else ""
    if tile_name:
        out["tile"] = tile_name
    action = data.get("action")
    if action == "declare":
        out["verb"] = out["act"] = declare
    elif isinstance(action, str) and action in _NAMES:
        out["verb"] = _NAMES[action]
        act = ("打出" if action == "discard" else _NAMES[action]) + tile_name
        out["act"] = act + (f"并{declare}" if data.get("declare") is True else "")
    return out


def words(refusal: Refusal) -> str:
    """The Chinese a player reads for ``refusal``.

    A reason without words, or data missing for its template, falls back to the code's own
    words; a code without words (there is none, ``tests/rules/test_refusals.py``) to a
    general 现在不能这样操作.
    """
    template = TEMPLATES.get((refusal.code, refusal.reason))
    if template is not None:
        try:
            return template.format_map(_fields(refusal.data))
        except KeyError:
            pass
    return TEMPLATES.get((refusal.code, None), _FALLBACK)
