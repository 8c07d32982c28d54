"""Hand analysis: completeness, decompositions, waits; and the shipped lookup table."""

from __future__ import annotations

from importlib import resources

import pytest

from majiang.analysis import (
    GroupKind,
    decompositions,
    is_complete,
    is_complete_keys,
    is_seven_pairs,
    keys_of,
    waits,
    waits_keys,
)
from majiang.tablegen import COMPLETE, build_table, key_of, pack, unpack
from majiang.tiles import Tile, counts_of, format_tiles, parse_tiles


def counts(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


def shapes(text: str, melds: int = 0) -> list[tuple[bool, list[tuple[str, str]]]]:
    return [
        (d.seven_pairs, [(g.kind.value, g.tile.code) for g in d.groups])
        for d in decompositions(counts(text), melds=melds)
    ]


@pytest.mark.parametrize(
    ("hand", "melds", "complete"),
    [
        ("123m456s789p11122p", 0, True),
        ("11122233344455m", 0, True),
        ("123m456s789p11p", 1, True),
        ("22m", 4, True),
        ("123m456s789p1112p", 0, False),
        ("13579m13579s1357p", 0, False),
        ("1133m5577s1199p22p", 0, True),  # seven pairs
        ("1111m2233s4455p66p", 0, True),  # seven pairs, a four counts as two pairs
        ("1133m5577s1199p", 1, False),  # seven pairs needs 14 concealed tiles
        ("12m", 4, False),
    ],
)
def test_completeness(hand: str, melds: int, complete: bool) -> None:
    assert is_complete(counts(hand), melds=melds) is complete
    assert is_complete_keys(keys_of(counts(hand)), melds=melds) is complete
    assert bool(decompositions(counts(hand), melds=melds)) is complete


def test_seven_pairs_flag() -> None:
    assert is_seven_pairs(keys_of(counts("1111m2233s4455p66p")))
    assert is_seven_pairs(keys_of(counts("1133m5577s1199p22p")))
    assert not is_seven_pairs(keys_of(counts("123m456s789p11122p")))
    assert not is_seven_pairs(keys_of(counts("1133m5577s1199p22p")), melds=1)


def test_decompositions_read_111222333_both_ways() -> None:
    assert shapes("111222333m456p77s") == [
        (False, [("pair", "7s"), ("pung", "1m"), ("pung", "2m"), ("pung", "3m"), ("chow", "4p")]),
        (False, [("pair", "7s"), ("chow", "1m"), ("chow", "1m"), ("chow", "1m"), ("chow", "4p")]),
    ]


def test_decompositions_list_every_pair_choice_and_seven_pairs_last() -> None:
    assert shapes("11223344556677m") == [
        (False, [("pair", "1m"), ("chow", "2m"), ("chow", "2m"), ("chow", "5m"), ("chow", "5m")]),
        (False, [("pair", "4m"), ("chow", "1m"), ("chow", "1m"), ("chow", "5m"), ("chow", "5m")]),
        (False, [("pair", "7m"), ("chow", "1m"), ("chow", "1m"), ("chow", "4m"), ("chow", "4m")]),
        (True, [("pair", f"{r}m") for r in range(1, 8)]),
    ]


def test_decomposition_of_a_four_in_seven_pairs_and_properties() -> None:
    found = decompositions(counts("1111m2233s4455p66p"))
    assert len(found) == 1 and found[0].seven_pairs
    assert [g.tile.code for g in found[0].groups] == ["1m", "1m", "2s", "3s", "4p", "5p", "6p"]
    assert found[0].pair is None
    standard = decompositions(counts("123m456s789p11122p"))
    assert len(standard) == 1
    assert standard[0].pair is Tile.P2
    kinds = [g.kind for g in standard[0].sets]
    assert kinds == [GroupKind.CHOW, GroupKind.CHOW, GroupKind.PUNG, GroupKind.CHOW]
    assert standard[0].sets[0].tiles == (Tile.M1, Tile.M2, Tile.M3)
    assert standard[0].groups[0].tiles == (Tile.P2, Tile.P2)


def test_decompositions_with_melds_and_incomplete() -> None:
    assert shapes("123m11p", melds=3) == [(False, [("pair", "1p"), ("chow", "1m")])]
    assert decompositions(counts("123m456s789p1112p")) == []


@pytest.mark.parametrize(
    ("hand", "melds", "expected"),
    [
        ("1112345678999m", 0, "123456789m"),  # nine gates
        ("2345678m", 2, "258m"),
        ("2345m", 3, "25m"),
        ("5p", 4, "5p"),
        ("1133m5577s1199p2p", 0, "2p"),  # seven pairs
        ("1133m5577s1199p2p", 1, ""),  # (not a legal size; no seven pairs with melds)
        ("1111m2233s4455p6p", 0, "6p"),  # seven pairs with a four
        ("1111m234s567s789p", 0, ""),  # the only completing tile would be a fifth 1m
        ("123m456s789p1199p", 0, "169p"),  # 6p: 678p 999p with 11p as the pair
        ("13579m13579s135p", 0, ""),
    ],
)
def test_waits(hand: str, melds: int, expected: str) -> None:
    assert format_tiles(waits(counts(hand), melds=melds)) == expected
    mask = waits_keys(keys_of(counts(hand)), melds=melds)
    assert format_tiles(Tile(i) for i in range(27) if mask >> i & 1) == expected


def test_keys_of() -> None:
    keys = keys_of(counts("113m2s99p"))
    assert keys == [2 | 1 << 6, 1 << 3, 2 << 24]
    assert key_of([2, 0, 1, 0, 0, 0, 0, 0, 0]) == keys[0]


def test_shipped_table_equals_a_fresh_build() -> None:
    # The data file must never drift from its generator (scripts/gen_tables.py).
    shipped = resources.files("majiang").joinpath("data/suit_table.bin").read_bytes()
    table = build_table()
    assert shipped == pack(table)
    assert unpack(shipped) == table


def test_table_spot_values() -> None:
    table = build_table()
    assert table[key_of([3, 0, 0, 0, 0, 0, 0, 0, 0])] & COMPLETE
    assert table[0] & COMPLETE  # an empty suit is complete
    # 2 3 waits on 1 and 4 (ranks are bits 1–9)
    assert table[key_of([0, 1, 1, 0, 0, 0, 0, 0, 0])] == (2 << 0) | (2 << 3)
    assert key_of([1, 3, 0, 0, 0, 0, 0, 0, 0]) in table  # 1222: waits on 1, 3
    assert key_of([1, 0, 0, 0, 1, 0, 0, 0, 1]) not in table  # 1 5 9: hopeless
