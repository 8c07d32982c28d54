"""Hand analysis: completeness, waits and decompositions.

The fast checks read a per-suit lookup table (see :mod:`majiang.tablegen`): a hand is three
integer keys, one per suit, and a completeness check is three dictionary look-ups. The full
decompositions, needed only to score a finished hand, are enumerated directly.

Hands here are *concealed* tiles only. Declared melds are whole sets already, so a hand with
``k`` melds is complete when its ``14 - 3k`` concealed tiles are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources

from majiang.tablegen import COMPLETE, unpack
from majiang.tiles import Tile

__all__ = [
    "Decomposition",
    "Group",
    "GroupKind",
    "decompositions",
    "is_complete",
    "is_complete_keys",
    "is_seven_pairs",
    "keys_of",
    "waits",
    "waits_keys",
]

_TABLE: dict[int, int] = unpack(
    resources.files("majiang").joinpath("data/suit_table.bin").read_bytes()
)
_COMPLETE_KEYS = frozenset(key for key, flags in _TABLE.items() if flags & COMPLETE)
"""Suit keys whose tiles split into sets, or into sets and one pair (a set test is faster)."""
_ODD_BITS = 0o111111111  # bit 0 of every 3-bit rank field: set where a count is odd
_RANK_SHIFT = tuple(3 * r for r in range(9))


def keys_of(counts: Sequence[int]) -> list[int]:
    """The three suit keys of a 27-entry count list."""
    keys = [0, 0, 0]
    for index, count in enumerate(counts):
        if count:
            keys[index // 9] |= count << (3 * (index % 9))
    return keys


def is_complete_keys(keys: Sequence[int], *, melds: int = 0) -> bool:
    """Whether concealed tiles given as suit keys form a winning hand.

    Standard form (sets plus one pair) or, with no melds, seven pairs (four identical tiles
    count as two pairs). The caller guarantees ``14 - 3 * melds`` tiles.
    """
    k0, k1, k2 = keys
    complete = _COMPLETE_KEYS
    if k0 in complete and k1 in complete and k2 in complete:
        return True
    return melds == 0 and not ((k0 | k1 | k2) & _ODD_BITS)


def is_seven_pairs(keys: Sequence[int], *, melds: int = 0) -> bool:
    """Whether 14 concealed tiles are seven pairs (a four counts as two pairs)."""
    return melds == 0 and not ((keys[0] | keys[1] | keys[2]) & _ODD_BITS)


def is_complete(counts: Sequence[int], *, melds: int = 0) -> bool:
    """Whether a 27-entry count list of ``14 - 3 * melds`` concealed tiles is a winning hand."""
    return is_complete_keys(keys_of(counts), melds=melds)


def waits_keys(keys: Sequence[int], *, melds: int = 0) -> int:
    """The waits of ``13 - 3 * melds`` concealed tiles as a 27-bit mask (bit *i* = tile *i*).

    A tile of which the hand already holds four is never a wait here; the caller removes waits
    on tiles held four times once melds are counted.
    """
    k0, k1, k2 = keys
    get = _TABLE.get
    f0, f1, f2 = get(k0, 0), get(k1, 0), get(k2, 0)
    mask = 0
    if f1 & f2 & COMPLETE:
        mask |= (f0 >> 1) & 0x1FF
    if f0 & f2 & COMPLETE:
        mask |= ((f1 >> 1) & 0x1FF) << 9
    if f0 & f1 & COMPLETE:
        mask |= ((f2 >> 1) & 0x1FF) << 18
    if melds == 0:
        # Seven pairs: exactly one tile kind has an odd count. Lay the three suits' odd bits
        # side by side (27 bits per suit = 9 rank fields); field ``i`` is tile ``i``.
        odd = (k0 & _ODD_BITS) | (k1 & _ODD_BITS) << 27 | (k2 & _ODD_BITS) << 54
        if odd and not odd & (odd - 1):
            mask |= 1 << ((odd.bit_length() - 1) // 3)
    return mask


def waits(counts: Sequence[int], *, melds: int = 0) -> list[Tile]:
    """The tiles that complete a hand of ``13 - 3 * melds`` concealed tiles, in order."""
    mask = waits_keys(keys_of(counts), melds=melds)
    return [Tile(i) for i in range(27) if mask >> i & 1]


class GroupKind(Enum):
    """The shape of one group in a decomposition."""

    PAIR = "pair"
    PUNG = "pung"
    CHOW = "chow"


@dataclass(frozen=True, slots=True)
class Group:
    """A pair, pung or sequence of concealed tiles. ``tile`` is the lowest tile."""

    kind: GroupKind
    tile: Tile

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles of the group."""
        if self.kind is GroupKind.CHOW:
            return (self.tile, Tile(self.tile + 1), Tile(self.tile + 2))
        return (self.tile,) * (2 if self.kind is GroupKind.PAIR else 3)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One way to read a complete concealed hand.

    For the standard form, ``groups`` holds one pair and the sets. For seven pairs,
    ``seven_pairs`` is true and ``groups`` holds seven pairs (a four appears twice).
    """

    groups: tuple[Group, ...]
    seven_pairs: bool = False

    @property
    def pair(self) -> Tile | None:
        """The pair tile of a standard-form decomposition."""
        if self.seven_pairs:
            return None
        return next(g.tile for g in self.groups if g.kind is GroupKind.PAIR)

    @property
    def sets(self) -> tuple[Group, ...]:
        """The pungs and sequences (standard form)."""
        return tuple(g for g in self.groups if g.kind is not GroupKind.PAIR)


def _split_sets(counts: list[int], start: int) -> list[list[Group]]:
    """Every way to split ``counts`` (from index ``start`` on) into pungs and sequences."""
    index = start
    while index < 27 and counts[index] == 0:
        index += 1
    if index == 27:
        return [[]]
    results: list[list[Group]] = []
    tile = Tile(index)
    if counts[index] >= 3:
        counts[index] -= 3
        results.extend([Group(GroupKind.PUNG, tile), *rest] for rest in _split_sets(counts, index))
        counts[index] += 3
    if index % 9 <= 6 and counts[index + 1] and counts[index + 2]:
        for offset in range(3):
            counts[index + offset] -= 1
        results.extend([Group(GroupKind.CHOW, tile), *rest] for rest in _split_sets(counts, index))
        for offset in range(3):
            counts[index + offset] += 1
    return results


def decompositions(counts: Sequence[int], *, melds: int = 0) -> list[Decomposition]:
    """Every decomposition of a complete concealed hand; empty if it is not complete.

    The standard forms come first, each once, then the seven-pairs reading if it applies.
    """
    work = list(counts)
    found: list[Decomposition] = []
    for index in range(27):
        if work[index] >= 2:
            work[index] -= 2
            pair = Group(GroupKind.PAIR, Tile(index))
            found.extend(
                Decomposition((pair, *sets)) for sets in _split_sets(work, 0)
            )
            work[index] += 2
    if melds == 0 and sum(counts) == 14 and all(c % 2 == 0 for c in counts):
        pairs: list[Group] = []
        for index, count in enumerate(counts):
            pairs.extend([Group(GroupKind.PAIR, Tile(index))] * (count // 2))
        found.append(Decomposition(tuple(pairs), seven_pairs=True))
    return found

