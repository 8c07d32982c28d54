"""Tiles and the ``123m456p11s`` notation."""

from __future__ import annotations

import pytest

from majiang.tiles import (
    NotationError,
    Suit,
    Tile,
    counts_of,
    format_tiles,
    parse_tile,
    parse_tiles,
    sorted_tiles,
    tiles_of,
)


def test_tile_numbering_and_names() -> None:
    assert len(Tile) == 27
    assert (int(Tile.M1), int(Tile.S1), int(Tile.P9)) == (0, 9, 26)
    assert Tile.M5.code == "5m" and Tile.S7.code == "7s" and Tile.P3.code == "3p"
    assert Tile.M5.rank == 5 and Tile.M5.suit is Suit.M
    assert Tile.P9.suit.letter == "p" and Tile.P9.suit.chinese == "筒"
    assert Tile.S1.chinese == "幺鸡"
    assert Tile.S2.chinese == "二条"
    assert Tile.M9.chinese == "九万"
    assert Tile.M9.shifted(1) is Tile.M1
    assert Tile.P4.shifted(2) is Tile.P6
    assert str(Tile.S8) == "8s"


@pytest.mark.parametrize(
    "text",
    ["123m456p11s", "19m19s19p", "1111m", "9p", "123456789m", "5s5s"],
)
def test_parse_format_round_trip(text: str) -> None:
    tiles = parse_tiles(text)
    again = parse_tiles(format_tiles(tiles))
    assert again == sorted_tiles(tiles)
    assert format_tiles(again) == format_tiles(tiles)


def test_parse_keeps_written_order_and_ignores_spaces() -> None:
    assert parse_tiles("3m 1s 2p") == [Tile.M3, Tile.S1, Tile.P2]
    assert parse_tiles("") == []
    assert parse_tiles("21m") == [Tile.M2, Tile.M1]


def test_format_sorts_wan_tiao_tong_ascending() -> None:
    assert format_tiles(parse_tiles("9p1p5s1s9m1m")) == "19m15s19p"
    assert format_tiles(parse_tiles("11s123m")) == "123m11s"
    assert sorted_tiles(parse_tiles("1p1s1m")) == [Tile.M1, Tile.S1, Tile.P1]
    assert format_tiles([]) == ""


def test_counts_round_trip() -> None:
    tiles = parse_tiles("1123m99s5p")
    counts = counts_of(tiles)
    assert counts[Tile.M1] == 2 and counts[Tile.S9] == 2 and counts[Tile.P5] == 1
    assert sum(counts) == 7
    assert tiles_of(counts) == sorted_tiles(tiles)


def test_parse_tile() -> None:
    assert parse_tile("1s") is Tile.S1
    assert parse_tile("9p") is Tile.P9
    assert Tile.of(3, "m") is Tile.M3


@pytest.mark.parametrize(
    ("text", "position"),
    [("0m", 1), ("1x", 1), ("m", 1), ("12", 1), ("1m2", 3), ("1M", 1), ("10m", 1), ("1m0p", 3)],
)
def test_malformed_hand_strings(text: str, position: int) -> None:
    with pytest.raises(NotationError) as info:
        parse_tiles(text)
    message = str(info.value)
    assert repr(text) in message
    assert f"第 {position} 个字符有误" in message


@pytest.mark.parametrize("text", ["0m", "1x", "m", "12", "1m2", "", "５m", "²m", "١m"])
def test_malformed_single_tiles(text: str) -> None:
    with pytest.raises(NotationError, match="无效的牌"):
        parse_tile(text)


@pytest.mark.parametrize("value", [5, None, b"1m", ["1m"], 1.5])
def test_non_strings_are_rejected(value: object) -> None:
    with pytest.raises(NotationError, match="无效的牌"):
        parse_tiles(value)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="无效的牌"):
        parse_tile(value)  # type: ignore[arg-type]


def test_tile_of_rejects_bad_rank_and_suit() -> None:
    for rank, suit in [(0, "m"), (10, "p"), (1, "z"), (1, "ms"), (1, "")]:
        with pytest.raises(NotationError):
            Tile.of(rank, suit)
