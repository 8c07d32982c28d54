"""The wall: seeded shuffle, explicit walls, draws from the front and the back."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from majiang.tiles import Tile, parse_tiles
from majiang.wall import Wall, full_set, shuffled, wall_seed

ALL_KINDS = list(Tile)
SP_KINDS = [t for t in Tile if t.suit.letter in "sp"]


def test_full_sets() -> None:
    assert len(full_set(ALL_KINDS)) == 108
    assert full_set([Tile.M1, Tile.P9]) == [Tile.M1] * 4 + [Tile.P9] * 4
    seventy_two = full_set(SP_KINDS)
    assert len(seventy_two) == 72
    assert {t.suit.letter for t in seventy_two} == {"s", "p"}
    assert all(seventy_two.count(t) == 4 for t in SP_KINDS)


def test_seeded_shuffle_is_pinned() -> None:
    # Regression pin of the documented algorithm (wall.py, docs/record-format.md):
    # Fisher–Yates from the last position down, j = (next 8 bytes of
    # SHA-256(seed || counter_be32), big-endian) mod (i + 1). If these tiles change, every
    # stored record replays differently: do not "fix" the pin, fix the shuffle.
    wall = shuffled(full_set(ALL_KINDS), "test-seed")
    assert " ".join(t.code for t in wall[:10]) == "7s 4m 2p 5m 7s 5p 9p 9p 8p 6s"
    small = shuffled(full_set(SP_KINDS), "test-seed")
    assert " ".join(t.code for t in small[:10]) == "2p 2s 3p 2s 9p 8s 2s 3s 5s 6s"


def _reference_shuffle(tiles: list[Tile], seed: str) -> list[Tile]:
    """The algorithm as the record-format document states it, written independently."""
    stream = b""
    counter = 0
    out = list(tiles)
    taken = 0
    for i in range(len(out) - 1, 0, -1):
        if taken + 8 > len(stream):
            stream += hashlib.sha256(seed.encode() + counter.to_bytes(4, "big")).digest()
            counter += 1
        x = int.from_bytes(stream[taken : taken + 8], "big")
        taken += 8
        j = x % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("seed", ["test-seed", "", "房间-42", "a" * 100])
def test_shuffle_matches_the_documented_algorithm(seed: str) -> None:
    assert shuffled(full_set(ALL_KINDS), seed) == _reference_shuffle(full_set(ALL_KINDS), seed)


def test_shuffle_is_deterministic_and_a_permutation() -> None:
    a = shuffled(full_set(ALL_KINDS), "seed-1")
    assert a == shuffled(full_set(ALL_KINDS), "seed-1")
    assert a != shuffled(full_set(ALL_KINDS), "seed-2")
    assert sorted(a) == full_set(ALL_KINDS)


def test_draws_from_front_and_replacements_from_back() -> None:
    tiles = parse_tiles("1m2m3m4m5m")
    wall = Wall(tiles)
    assert wall.remaining == 5
    assert wall.peek() is Tile.M1
    assert wall.draw() is Tile.M1
    assert wall.draw_back() is Tile.M5
    assert wall.draw() is Tile.M2
    assert wall.draw_back() is Tile.M4
    assert (wall.remaining, wall.drawn_from_front, wall.drawn_from_back) == (1, 2, 2)
    assert wall.undrawn() == (Tile.M3,)
    assert wall.draw() is Tile.M3
    assert wall.remaining == 0
    assert wall.peek() is None
    with pytest.raises(IndexError):
        wall.draw()
    with pytest.raises(IndexError):
        wall.draw_back()


def test_explicit_wall_keeps_its_order() -> None:
    order = list(reversed(full_set(ALL_KINDS)))
    wall = Wall(order)
    assert wall.tiles == tuple(order)
    assert [wall.draw() for _ in range(3)] == [Tile.P9] * 3


VALUES = st.text("0123456789abcdef", min_size=64, max_size=64)
CONTRIBUTIONS = st.dictionaries(st.integers(0, 3), VALUES, min_size=1).map(
    lambda by_seat: sorted(by_seat.items())
)


def test_wall_seed_is_pinned() -> None:
    # The replay page recomputes this in the browser (static/ledgers/fairness.js).
    mixed = "s|0:" + "a" * 64 + "|2:" + "b" * 64
    assert wall_seed("s", [(2, "b" * 64), (0, "a" * 64)]) == hashlib.sha256(
        mixed.encode()
    ).hexdigest()
    assert wall_seed("s", []) == "s"  # no contributions: the server's seed, as before


@given(seed=st.text(min_size=1, max_size=40), contributions=CONTRIBUTIONS,
       other=VALUES, data=st.data())
def test_the_wall_depends_on_the_seed_and_every_contribution(
    seed: str, contributions: list[tuple[int, str]], other: str, data: st.DataObject
) -> None:
    mixed = wall_seed(seed, contributions)
    assert mixed != seed
    assert wall_seed(seed, reversed(contributions)) == mixed  # seat order, not arrival
    assert wall_seed(seed + "x", contributions) != mixed
    index = data.draw(st.integers(0, len(contributions) - 1))
    seat, value = contributions[index]
    changed = [*contributions[:index], *contributions[index + 1 :]]
    assert wall_seed(seed, changed) != mixed  # leaving one out changes it too
    moved = (seat + 1) % 5
    if all(s != moved for s, _ in changed):
        assert wall_seed(seed, [*changed, (moved, value)]) != mixed  # tagged with its seat
    if other != value:
        replaced = wall_seed(seed, [*changed, (seat, other)])
        assert replaced != mixed
        assert shuffled(full_set(ALL_KINDS), replaced) != shuffled(full_set(ALL_KINDS), mixed)
