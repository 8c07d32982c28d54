"""Tiles and the ``123m456p11s`` notation.

A tile is one of 27 kinds: ranks 1–9 of 万 (``m``), 条 (``s``) and 筒 (``p``). Kinds are
numbered 0–26 in the order the seeds sort a hand: 万, then 条, then 筒, each ascending.
That number is the tile's value, so a hand can be stored as 27 counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import IntEnum

__all__ = [
    "SUITS",
    "NotationError",
    "Suit",
    "Tile",
    "counts_of",
    "format_tiles",
    "parse_tile",
    "parse_tiles",
    "sorted_tiles",
    "tiles_of",
]

SUITS = "msp"
"""Suit letters in sort order: 万 (m), 条 (s), 筒 (p)."""

_SUIT_NAMES = {"m": "万", "s": "条", "p": "筒"}
_GROUP = re.compile(r"([1-9]+)([msp])")


class NotationError(ValueError):
    """A tile or hand string is not valid notation."""


class Suit(IntEnum):
    """The three suits, in sort order."""

    M = 0
    S = 1
    P = 2

    @property
    def letter(self) -> str:
        """The notation letter, ``m``, ``s`` or ``p``."""
        return SUITS[self]

    @property
    def chinese(self) -> str:
        """The Chinese name: 万, 条 or 筒."""
        return _SUIT_NAMES[self.letter]


class Tile(IntEnum):
    """One tile kind. The value (0–26) is the index into a 27-count hand."""

    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    S1 = 9
    S2 = 10
    S3 = 11
    S4 = 12
    S5 = 13
    S6 = 14
    S7 = 15
    S8 = 16
    S9 = 17
    P1 = 18
    P2 = 19
    P3 = 20
    P4 = 21
    P5 = 22
    P6 = 23
    P7 = 24
    P8 = 25
    P9 = 26

    @property
    def suit(self) -> Suit:
        """The tile's suit."""
        return Suit(self // 9)

    @property
    def rank(self) -> int:
        """The rank, 1–9."""
        return self % 9 + 1

    @property
    def code(self) -> str:
        """The notation, for example ``5m``."""
        return _CODES[self]

    @property
    def chinese(self) -> str:
        """The Chinese name, for example ``5万``; ``1s`` is 幺鸡."""
        if self is Tile.S1:
            return "幺鸡"
        return f"{'一二三四五六七八九'[self.rank - 1]}{self.suit.chinese}"

    def shifted(self, delta: int) -> Tile:
        """The tile of the same suit whose rank is ``delta`` away, wrapping 9 → 1."""
        return Tile(self // 9 * 9 + (self % 9 + delta) % 9)

    def __str__(self) -> str:
        return self.code

    @classmethod
    def of(cls, rank: int, suit: str) -> Tile:
        """The tile with this rank (1–9) and suit letter."""
        if not 1 <= rank <= 9 or suit not in SUITS or len(suit) != 1:
            raise NotationError(f"无效的牌: {rank}{suit}")
        return cls(SUITS.index(suit) * 9 + rank - 1)


_CODES = tuple(f"{i % 9 + 1}{SUITS[i // 9]}" for i in range(len(Tile)))
"""Each tile's notation, by value: views name hundreds of tiles per frame."""


def parse_tile(text: str) -> Tile:
    """Parse one tile such as ``5m``.

    >>> parse_tile("1s")
    <Tile.S1: 9>
    """
    if not isinstance(text, str) or len(text) != 2 or text[0] not in "0123456789":
        raise NotationError(f"无效的牌: {text!r} (应为如 5m 的写法)")
    return Tile.of(int(text[0]), text[1])


def parse_tiles(text: str) -> list[Tile]:
    """Parse a hand such as ``123m456p11s`` into tiles, in the order written.

    Spaces are ignored. An empty string is an empty hand. Anything else that is not
    groups of digits 1–9 each followed by a suit letter raises :class:`NotationError`.
    """
    if not isinstance(text, str):
        raise NotationError(f"无效的牌串: {text!r}")
    compact = text.replace(" ", "")
    tiles: list[Tile] = []
    pos = 0
    for match in _GROUP.finditer(compact):
        if match.start() != pos:
            raise NotationError(f"无效的牌串 {text!r}: 第 {pos + 1} 个字符有误")
        suit = match.group(2)
        tiles.extend(Tile.of(int(d), suit) for d in match.group(1))
        pos = match.end()
    if pos != len(compact):
        raise NotationError(f"无效的牌串 {text!r}: 第 {pos + 1} 个字符有误")
    return tiles


def sorted_tiles(tiles: Iterable[Tile]) -> list[Tile]:
    """Tiles in hand order: 万, 条, 筒, each ascending."""
    return sorted(tiles)


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Format tiles in hand order as compact notation, for example ``123m456p11s``.

    >>> format_tiles(parse_tiles("11s123m"))
    '123m11s'
    """
    out: list[str] = []
    current = ""
    digits: list[str] = []
    for tile in sorted_tiles(tiles):
        letter = SUITS[tile // 9]
        if letter != current and digits:
            out.append("".join(digits) + current)
            digits = []
        current = letter
        digits.append(str(tile.rank))
    if digits:
        out.append("".join(digits) + current)
    return "".join(out)


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """A 27-entry count list for these tiles."""
    counts = [0] * 27
    for tile in tiles:
        counts[tile] += 1
    return counts


def tiles_of(counts: Iterable[int]) -> list[Tile]:
    """The sorted tiles that a 27-entry count list describes."""
    out: list[Tile] = []
    for index, count in enumerate(counts):
        out.extend([Tile(index)] * count)
    return out
