"""Fan (Z11), who pays (Z12) and 萝卜 (Z13)."""

from __future__ import annotations

import pytest

from tests.rules.scenario import ZIGONG, deal, lines, notes, play

# Two seats: the dealer discards the tile, seat 1 wins on it; 2 players end at the first win.
PATTERNS = [
    # (seat 1's hand, dealer's hand, tile, category, points, note)
    ("123s456s789p234p5p", "5p1124s5778s13469p", "5p", "牌型:平胡", 1, "平胡+0 = 0番, 2^0=1"),
    ("111s222s333p44p55p", "5p3469s12478s1678p", "5p", "牌型:碰碰胡", 2, "碰碰胡+1 = 1番, 2^1=2"),
    ("113355s224466p8p", "8p2679s13458p1679p", "8p", "牌型:七对", 4, "七对+2 = 2番, 2^2=4"),
    ("111133s557799p8p", "8p2456s13469p2468s", "8p", "牌型:龙七对", 8, "龙七对+3 = 3番, 2^3=8"),
    (
        "111123s456s789s5s",
        "5s2689p3467p12359p",
        "5s",
        "牌型:清一色",
        8,
        "平胡+0 清一色+2 根+1 = 3番, 2^3=8",
    ),
    (
        "13s456s789p234p55p",
        "2s4789s13569p1678p",
        "2s",
        "牌型:平胡",
        2,
        "平胡+0 卡二条+1 = 1番, 2^1=2",
    ),
    (
        "1111p2233p5577p9p",
        "9p2468s2468p13579s",
        "9p",
        "牌型:清龙七对",
        16,
        "龙七对+3 清一色+2 = 5番 (封顶4番), 2^4=16",
    ),
]


@pytest.mark.parametrize(("hand", "dealer", "tile", "category", "points", "note"), PATTERNS)
def test_Z11_patterns_on_a_discard(
    hand: str, dealer: str, tile: str, *, category: str, points: int, note: str
) -> None:
    """Each pattern's fan, won on the dealer's discard (地胡 off so the pattern shows)."""
    rnd = deal(ZIGONG, [dealer, hand], tiandihu=False)
    play(rnd, f"1 pass; 0 discard {tile}; 1 win")
    assert lines(rnd) == [(0, 1, category, points, "Z11")]
    assert notes(rnd) == [note]


SELF_DRAW_HAND = "333p666p999p33s669s"
SELF_DRAW_SCRIPT = "0 discard 9s; 1 discard 1s; 2 discard 2s; 3 discard 4s; 0 win"


def _self_draw(**settings: object):
    from tests.rules.scenario import A, B, C, play_out

    rnd = deal(ZIGONG, [SELF_DRAW_HAND, A, B, C], draws="1s2s4s6s", **settings)
    play(rnd, SELF_DRAW_SCRIPT)
    play_out(rnd)
    return rnd


def test_Z11_Z12_self_draw_each_other_player_pays_add_base() -> None:
    """自摸: each other player in the hand pays; ``zimo=add_base`` adds 1 底分 each."""
    rnd = _self_draw()
    assert lines(rnd) == [
        (1, 0, "牌型:碰碰胡", 2, "Z11"),
        (1, 0, "自摸加底", 1, "Z11"),
        (2, 0, "牌型:碰碰胡", 2, "Z11"),
        (2, 0, "自摸加底", 1, "Z11"),
        (3, 0, "牌型:碰碰胡", 2, "Z11"),
        (3, 0, "自摸加底", 1, "Z11"),
    ]


def test_Z11_zimo_add_fan_and_none() -> None:
    """``zimo=add_fan``: +1 fan instead of 底分; ``zimo=none``: nothing extra."""
    assert lines(_self_draw(zimo="add_fan")) == [(p, 0, "牌型:碰碰胡", 4, "Z11") for p in (1, 2, 3)]
    assert notes(_self_draw(zimo="add_fan"))[0] == "碰碰胡+1 自摸+1 = 2番, 2^2=4"
    assert lines(_self_draw(zimo="none")) == [(p, 0, "牌型:碰碰胡", 2, "Z11") for p in (1, 2, 3)]


def test_Z13_luobo_each_matching_tile_adds_one() -> None:
    """萝卜 6s and 3p (taken off the back, shown to all); the hand holds 3×6s and 3×3p: +6."""
    from tests.rules.scenario import A, B, C, play_out

    rnd = deal(ZIGONG, [SELF_DRAW_HAND, A, B, C], draws="1s2s4s6s", back="6s3p", luobo=2)
    assert rnd.observation(1)["luobo"] == ["6s", "3p"]
    assert rnd.wall.remaining == 72 - 53 - 2
    play(rnd, SELF_DRAW_SCRIPT)
    play_out(rnd)
    assert lines(rnd) == [
        line
        for p in (1, 2, 3)
        for line in (
            (p, 0, "牌型:碰碰胡", 2, "Z11"),
            (p, 0, "自摸加底", 1, "Z11"),
            (p, 0, "萝卜", 6, "Z13"),
        )
    ]


def test_Z11_tianhu_is_the_cap_plus_zimo_base() -> None:
    """天胡: the dealer wins on the dealt 14: fan = cap (4), 自摸加底 still added."""
    from tests.rules.scenario import A, B, C, play_out

    rnd = deal(ZIGONG, ["333p666p999p33s666s", A, B, C])
    play(rnd, "0 win")
    play_out(rnd)
    assert lines(rnd) == [
        line
        for p in (1, 2, 3)
        for line in ((p, 0, "牌型:天胡", 16, "Z11"), (p, 0, "自摸加底", 1, "Z11"))
    ]
    assert notes(rnd)[0] == "天胡 = 封顶4番, 2^4=16"


def test_Z11_dihu_and_tiandihu_off() -> None:
    """地胡: a non-dealer wins on the dealer's first discard: fan = cap; off: the pattern."""
    from tests.rules.scenario import B, C, play_out

    for tiandihu, expected in ((True, ("牌型:地胡", 16)), (False, ("牌型:碰碰胡", 2))):
        rnd = deal(ZIGONG, ["124578s124578p69s", "333p666p999p33s66s", B, C], tiandihu=tiandihu)
        play(rnd, "1 pass; 0 discard 6s; 1 win")
        play_out(rnd)
        assert lines(rnd) == [(0, 1, *expected, "Z11")]


def test_Z11_jingougou_four_melds_lone_tile() -> None:
    """金钩钩: four 碰 on the table, the win completes the lone pair tile: 碰碰胡 1 + 1."""
    rnd = deal(ZIGONG, ["123689s12346899p", "1122579s334457p"])
    play(
        rnd,
        "0 discard 1s; 1 pung 1s; 1 discard 5s; 0 discard 2s; 1 pung 2s; 1 discard 7s;"
        " 0 discard 3p; 1 pung 3p; 1 discard 5p; 0 discard 4p; 1 pung 4p; 1 discard 7p;"
        " 0 discard 9s; 1 win",
    )
    assert lines(rnd) == [(0, 1, "牌型:碰碰胡", 4, "Z11")]
    assert notes(rnd) == ["碰碰胡+1 金钩钩+1 = 2番, 2^2=4"]


DIANGANG_HAND = "666p333p999p33s66s1s"


def test_Z12_dianganghua_as_zimo_by_default() -> None:
    """杠上开花 after a 直杠: paid as 自摸 by every other player (default ``zimo``)."""
    from tests.rules.scenario import A, B, C, play_out

    rnd = deal(ZIGONG, [DIANGANG_HAND, A, B, C], draws="6p", back="3s")
    play(rnd, "0 discard 1s; 1 discard 6p; 0 kong 6p; 0 win")
    play_out(rnd)
    assert lines(rnd) == [(1, 0, "直杠", 2, "Z14")] + [
        line
        for p in (1, 2, 3)
        for line in ((p, 0, "牌型:碰碰胡", 8, "Z11"), (p, 0, "自摸加底", 1, "Z11"))
    ]
    assert notes(rnd)[1] == "碰碰胡+1 根+1 杠上开花+1 = 3番, 2^3=8"


def test_Z12_dianganghua_feeder_pays_alone() -> None:
    """``dianganghua=feeder``: the player who fed the 直杠 pays the 自摸 amount alone."""
    from tests.rules.scenario import A, B, C, play_out

    rnd = deal(ZIGONG, [DIANGANG_HAND, A, B, C], draws="6p", back="3s", dianganghua="feeder")
    play(rnd, "0 discard 1s; 1 discard 6p; 0 kong 6p; 0 win")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "牌型:碰碰胡", 8, "Z11"),
        (1, 0, "自摸加底", 1, "Z11"),
    ]


def test_Z11_dihu_after_dealer_concealed_kong() -> None:
    """地胡 is a win on the dealer's first discard, even when the dealer konged before it.

    That discard is also 杠上炮, so the 暗杠 money moves to the winner (Z15).
    """
    rnd = deal(ZIGONG, ["1111s24578s1245p6s", "333p666p999p33s66s"], back="9s")
    play(rnd, "1 pass; 0 kong 1s; 0 discard 6s; 1 win")
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (0, 1, "呼叫转移", 2, "Z15"),
        (0, 1, "牌型:地胡", 16, "Z11"),
    ]
