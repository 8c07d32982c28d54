"""Differential tests: our hand analysis against the PyPI ``mahjong`` package and brute force.

``mahjong`` is a riichi library; its ``Agari.is_agari`` decides whether a 34-kind count array
is a complete hand. On hands of suit tiles only, its standard form (four sets and a pair, or
fewer sets when only the concealed part of a hand with melds is given) is the same rule as
ours. Seven pairs differ on purpose: riichi needs seven *different* pairs, while our rules
count four identical tiles as two pairs. So we compare our standard form (the lookup table's
COMPLETE flag, without the seven-pairs path) with theirs minus riichi seven pairs, and check
our seven pairs separately.
"""

from __future__ import annotations

import random
import time
from importlib import resources

import pytest

from majiang.analysis import (
    decompositions,
    is_complete_keys,
    is_seven_pairs,
    keys_of,
    waits_keys,
)
from majiang.tablegen import COMPLETE, unpack

agari = pytest.importorskip("mahjong.agari")

TABLE = unpack(resources.files("majiang").joinpath("data/suit_table.bin").read_bytes())
IS_AGARI = agari.Agari().is_agari

# Our kinds: 万 0–8, 条 9–17, 筒 18–26. Theirs: man 0–8, pin 9–17, sou 18–26, honours 27–33.
TO_34 = [*range(9), *range(18, 27), *range(9, 18)]

SETS = [(i, i, i) for i in range(27)] + [
    (i, i + 1, i + 2) for i in range(27) if i % 9 <= 6
]


def to_34(counts: list[int]) -> list[int]:
    out = [0] * 34
    for index, count in enumerate(counts):
        out[TO_34[index]] = count
    return out


def random_hand(rng: random.Random, size: int) -> list[int]:
    """A uniform random multiset of ``size`` tiles from the 108-tile set."""
    counts = [0] * 27
    for physical in rng.sample(range(108), size):
        counts[physical // 4] += 1
    return counts


def built_hand(rng: random.Random, n_sets: int) -> list[int]:
    """A complete hand: ``n_sets`` random sets and a pair, each kind at most four times."""
    while True:
        counts = [0] * 27
        for group in rng.choices(SETS, k=n_sets):
            for index in group:
                counts[index] += 1
        counts[rng.randrange(27)] += 2
        if max(counts) <= 4:
            return counts


def standard(counts: list[int]) -> bool:
    """Our standard form: the table's COMPLETE flag in all three suits."""
    k0, k1, k2 = keys_of(counts)
    return bool(TABLE.get(k0, 0) & TABLE.get(k1, 0) & TABLE.get(k2, 0) & COMPLETE)


def riichi_seven_pairs(counts: list[int]) -> bool:
    return sum(1 for c in counts if c == 2) == 7


def test_mapping_and_oracle_sanity() -> None:
    counts = [0] * 27
    for index in (0, 1, 2, 9, 10, 11, 18, 19, 20, 26, 26, 26, 4, 4):  # 123m 123s 123p 999p 55m
        counts[index] += 1
    assert standard(counts) and IS_AGARI(to_34(counts))
    tiles_34 = to_34(counts)
    assert tiles_34[18:21] == [1, 1, 1]  # our 条 are their sou
    assert tiles_34[26] == 0 and tiles_34[17] == 3  # our 9p is their 9-pin
    assert all(c == 0 for c in tiles_34[27:])
    counts[4] -= 1
    counts[5] += 1
    assert not standard(counts) and not IS_AGARI(to_34(counts))


@pytest.mark.slow
def test_completeness_agrees_with_mahjong_on_100k_hands() -> None:
    rng = random.Random(20240611)
    total = 100_000
    complete = riichi_only = 0
    started = time.perf_counter()
    for n in range(total):
        counts = built_hand(rng, 4) if n % 2 else random_hand(rng, 14)
        ours = standard(counts)
        theirs = IS_AGARI(to_34(counts))
        if riichi_seven_pairs(counts) and not ours:
            assert theirs, counts  # seven distinct pairs: complete for them by seven pairs
            riichi_only += 1
        else:
            assert ours == theirs, counts
        # Our full check adds seven pairs, where a four counts as two pairs.
        keys = keys_of(counts)
        assert is_complete_keys(keys) == (ours or all(c % 2 == 0 for c in counts)), counts
        if n % 20 == 0:
            assert bool(decompositions(counts)) == is_complete_keys(keys), counts
        complete += ours
    assert complete > total // 2  # the built half is always complete
    assert time.perf_counter() - started < 120


@pytest.mark.slow
@pytest.mark.parametrize("melds", [1, 2, 3, 4])
def test_completeness_with_melds_agrees_with_mahjong(melds: int) -> None:
    rng = random.Random(melds)
    size = 14 - 3 * melds
    for n in range(10_000):
        counts = built_hand(rng, 4 - melds) if n % 2 else random_hand(rng, size)
        assert sum(counts) == size
        assert is_complete_keys(keys_of(counts), melds=melds) == IS_AGARI(to_34(counts)), counts


def test_seven_pairs_count_a_four_as_two_pairs() -> None:
    rng = random.Random(7)
    for _ in range(5_000):
        counts = [0] * 27
        while sum(counts) < 14:
            tile = rng.randrange(27)
            if counts[tile] <= 2:
                counts[tile] += 2
        keys = keys_of(counts)
        assert is_seven_pairs(keys) and is_complete_keys(keys), counts
        assert decompositions(counts)[-1].seven_pairs
        fours = sum(1 for c in counts if c == 4)
        # riichi agrees exactly when there is no four (unless the standard form applies)
        if fours == 0:
            assert IS_AGARI(to_34(counts))
        else:
            assert IS_AGARI(to_34(counts)) == standard(counts)
        assert not is_seven_pairs(keys, melds=1)
    odd = [0] * 27
    odd[0], odd[1] = 3, 1
    odd[2:7] = [2] * 5
    assert not is_seven_pairs(keys_of(odd))


def brute_waits(counts: list[int], melds: int) -> int:
    """Waits by trying all 27 tiles with the oracle (riichi standard form + our seven pairs)."""
    mask = 0
    for tile in range(27):
        if counts[tile] == 4:
            continue
        counts[tile] += 1
        seven = melds == 0 and all(c % 2 == 0 for c in counts)
        if seven or IS_AGARI(to_34(counts)):
            mask |= 1 << tile
        counts[tile] -= 1
    return mask


@pytest.mark.slow
@pytest.mark.parametrize("melds", [0, 1, 2, 3, 4])
def test_waits_agree_with_brute_force(melds: int) -> None:
    rng = random.Random(100 + melds)
    size = 13 - 3 * melds
    ready = 0
    for n in range(4_000):
        if n % 2:
            counts = built_hand(rng, 4 - melds)
            counts[rng.choice([i for i in range(27) if counts[i]])] -= 1
        else:
            counts = random_hand(rng, size)
        mask = waits_keys(keys_of(counts), melds=melds)
        assert mask == brute_waits(counts, melds), counts
        ready += bool(mask)
    assert ready >= 2_000
