"""Build the per-suit lookup table that :mod:`majiang.analysis` reads.

A suit's tiles are encoded as one integer *key*: 3 bits per rank, rank 1 in the lowest bits.
For every key that matters, the table stores a flag word:

- bit 0 (:data:`COMPLETE`): the suit splits into sets (pungs and sequences), or into sets and
  exactly one pair;
- bits 1–9: ranks whose addition makes the suit split that way (the suit's waits).

Keys absent from the table have flag word 0. ``python scripts/gen_tables.py`` writes the table
to ``majiang/data/suit_table.bin``; a test checks that the shipped file equals a fresh build.
"""

from __future__ import annotations

import itertools
import struct

__all__ = ["COMPLETE", "RECORD", "build_table", "key_of", "pack", "unpack"]

COMPLETE = 1
"""Flag bit: the suit's tiles split into sets, or sets plus one pair."""

RECORD = struct.Struct("<IH")
"""Binary layout of one table entry: key (uint32) and flag word (uint16)."""

_MAX_SUIT_TILES = 14


def key_of(counts: list[int] | tuple[int, ...]) -> int:
    """The key of a suit given its nine rank counts."""
    key = 0
    for rank, count in enumerate(counts):
        key |= count << (3 * rank)
    return key


def _sets() -> list[tuple[int, ...]]:
    """Every set within one suit as a 9-count vector: 9 pungs and 7 sequences."""
    shapes: list[tuple[int, ...]] = []
    for rank in range(9):
        vec = [0] * 9
        vec[rank] = 3
        shapes.append(tuple(vec))
    for rank in range(7):
        vec = [0] * 9
        vec[rank] = vec[rank + 1] = vec[rank + 2] = 1
        shapes.append(tuple(vec))
    return shapes


def _complete_vectors() -> set[tuple[int, ...]]:
    """Every count vector of at most 14 tiles that splits into sets, or sets plus a pair."""
    sets = _sets()
    found: set[tuple[int, ...]] = set()
    for n_sets in range(5):
        for combo in itertools.combinations_with_replacement(sets, n_sets):
            base = [sum(col) for col in zip(*combo, strict=True)] if combo else [0] * 9
            if max(base) > 4:
                continue
            found.add(tuple(base))
            for rank in range(9):
                if base[rank] <= 2:
                    with_pair = list(base)
                    with_pair[rank] += 2
                    if sum(with_pair) <= _MAX_SUIT_TILES:
                        found.add(tuple(with_pair))
    return found


def build_table() -> dict[int, int]:
    """Build the flag word of every key that is complete or one tile short of complete."""
    table: dict[int, int] = {}
    for vec in _complete_vectors():
        key = key_of(vec)
        table[key] = table.get(key, 0) | COMPLETE
        for rank in range(9):
            if vec[rank]:
                short = key - (1 << (3 * rank))
                table[short] = table.get(short, 0) | (2 << rank)
    return table


def pack(table: dict[int, int]) -> bytes:
    """Serialise a table, sorted by key so that the bytes are reproducible."""
    return b"".join(RECORD.pack(key, table[key]) for key in sorted(table))


def unpack(data: bytes) -> dict[int, int]:
    """Read a table written by :func:`pack`."""
    return dict(RECORD.iter_unpack(data))
