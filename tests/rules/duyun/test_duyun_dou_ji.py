"""都匀: 豆 and 鸡 (D11, D12, D15, D16, D17, D18, D19, D20)."""

from __future__ import annotations

import pytest

from tests.rules.scenario import DUYUN, deal, each_pays, lines, play

OFF = {"fanji": "off"}
ZIMO_0 = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a"))
ZIMO = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"))

# dealer 天胡 平胡; seat 1 ready on 2p holding 6m and 1s; seat 2 not ready holding 6m and 1s
FANJI_HANDS = ["123m456m789m234p55p", "678m123s456p789p2p", "3569m13579s2468p"]


@pytest.mark.parametrize(
    ("fanji", "turned", "chickens"),
    [
        (
            "next",
            "5m",
            [
                (1, 0, "翻牌鸡", 1, "D18"),
                (2, 0, "翻牌鸡", 1, "D18"),
                *each_pays([0, 2], 1, ("幺鸡", 1, "D18"), ("翻牌鸡", 1, "D18")),
            ],
        ),
        (
            "up_down",
            "5m",
            [
                (1, 0, "上下鸡", 2, "D18"),
                (2, 0, "上下鸡", 2, "D18"),
                *each_pays([0, 2], 1, ("幺鸡", 1, "D18"), ("上下鸡", 1, "D18")),
            ],
        ),
        ("off", "5m", each_pays([0, 2], 1, ("幺鸡", 1, "D18"))),
        ("next", "9s", each_pays([0, 2], 1, ("金鸡", 2, "D15"))),
    ],
)
def test_D15_fanji_settings_and_jin_ji(
    fanji: str, turned: str, chickens: list[tuple[int, int, str, int, str]]
) -> None:
    rnd = deal(DUYUN, FANJI_HANDS, draws=turned, fanji=fanji)
    play(rnd, "0:win")
    assert sorted(lines(rnd)) == sorted(each_pays([1, 2], 0, *ZIMO_0) + chickens)
    summary = rnd.settlement().summary
    assert summary["fanji"] == (None if fanji == "off" else turned)
    assert summary["jin_ji"] == (turned == "9s" and fanji != "off")


def _chongfeng(
    dealer: str, seat1_draw: str, **settings: object
) -> list[tuple[int, int, str, int, str]]:
    # the dealer discards the first 1s; seat 1 draws and discards another 1s; seat 2
    # self-draws 7s (平胡).
    rnd = deal(
        DUYUN,
        [dealer, "234s567s789p1s55m9m", "456m345p678p22s77s"],
        draws=seat1_draw + "7s",
        **{"fanji": "off", **settings},
    )
    play(rnd, "0:discard:1s", "1:discard:1s", "2:win")
    return sorted(lines(rnd))


READY_DEALER = "123m456m789m234p5p1s"
NOT_READY_DEALER = "123m456m789m24p58p1s"
WIN_2 = each_pays([0], 2, *ZIMO_0) + each_pays([1], 2, *ZIMO)


def test_D16_D17_hero_chicken_and_mantang_river_chicken() -> None:
    assert _chongfeng(READY_DEALER, "8m") == sorted(
        WIN_2
        + each_pays([1, 2], 0, ("英雄鸡", 3, "D17"))
        + each_pays([0, 2], 1, ("幺鸡", 1, "D18"))
    )


def test_D16_mantang_off_river_does_not_collect_but_first_chicken_does() -> None:
    assert _chongfeng(READY_DEALER, "8m", mantang=False) == sorted(
        WIN_2 + each_pays([1, 2], 0, ("英雄鸡", 3, "D17"))
    )


def test_D17_charge_chicken_setting() -> None:
    assert _chongfeng(READY_DEALER, "8m", first_chicken="charge") == sorted(
        WIN_2
        + each_pays([1, 2], 0, ("冲锋鸡", 2, "D17"))
        + each_pays([0, 2], 1, ("幺鸡", 1, "D18"))
    )


def test_D17_hero_chicken_paid_by_not_ready_discarder() -> None:
    assert _chongfeng(NOT_READY_DEALER, "8m") == sorted(
        [
            *WIN_2,
            (0, 1, "英雄鸡", 3, "D17"),
            (0, 2, "英雄鸡", 3, "D17"),
            *each_pays([0, 2], 1, ("幺鸡", 1, "D18")),
        ]
    )


def test_D18_not_ready_pays_for_river_yaoji_even_without_mantang() -> None:
    # seat 1 draws 3m instead of 8m and is not ready after discarding its 1s
    assert _chongfeng(READY_DEALER, "3m", mantang=False) == sorted(
        WIN_2
        + each_pays([1, 2], 0, ("英雄鸡", 3, "D17"))
        + [(1, 0, "幺鸡", 1, "D18"), (1, 2, "幺鸡", 1, "D18")]
    )


def test_D17_first_yaoji_won_on_is_an_ordinary_chicken() -> None:
    rnd = deal(DUYUN, ["13579m2468s3578p1s", "222m444m666m999p1s", "3579m3578s3679p9m"], **OFF)
    play(rnd, "0:discard:1s", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [
            (0, 1, "牌型:大对子", 5, "D6"),
            (0, 1, "连庄", 1, "D10a"),
            *each_pays([0, 2], 1, ("幺鸡", 2, "D18")),  # the won 1s makes a pair in hand
        ]
    )


def test_D12_D18_not_ready_yaoji_kong_pays_and_gets_no_dou() -> None:
    # seat 1 draws the fourth 1s, kongs it (暗豆), discards 9m and is not ready.
    rnd = deal(
        DUYUN,
        ["13579m2468s3578p9p", "111s2357m468p35s9m", "456m345p678p22s77s"],
        draws="1s7s",
        back="6m",
        **OFF,
    )
    play(rnd, "0:discard:9p", "1:kong:1s", "1:discard:9m", "2:win")
    assert sorted(lines(rnd)) == sorted(
        [*WIN_2, (1, 0, "幺鸡", 4, "D18"), (1, 2, "幺鸡", 4, "D18")]
    )


def test_D11_added_kong_zhuanwan_dou_and_gangshanghua() -> None:
    # seat 2 pungs 6s, draws the fourth 6s, adds it (转弯豆) and wins on the replacement.
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45p99s", "66s123m456p789p8s3s"],
        draws="7p8p6s",
        back="8s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:6s", "2:win")
    item = (("杠上花", 1, "D10"), ("转弯豆", 3, "D11"))
    assert sorted(lines(rnd)) == sorted(WIN_2 + each_pays([0, 1], 2, *item))


# 责任鸡 at four players: the dealer discards the first 1s, seat 1 pungs it and discards
# 9m, seat 2 self-draws 7s.
RESP_READY_CLAIMER = "11s234s567s789p5m9m"
RESP_NOT_READY_CLAIMER = "11s234s567s78p5m9m3p"
WIN_2_OF_4 = each_pays([0], 2, *ZIMO_0) + each_pays([1, 3], 2, *ZIMO)


def _zeren(
    dealer: str, claimer: str, draws: str = "7s", **settings: object
) -> list[tuple[int, int, str, int, str]]:
    rnd = deal(
        DUYUN,
        [dealer, claimer, "456m345p678p22s77s", "3578m2468s2469p9s"],
        draws=draws,
        **{"fanji": "off", **settings},
    )
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:win")
    return sorted(lines(rnd))


def test_D19_responsibility_chicken_both_ready() -> None:
    assert _zeren(READY_DEALER, RESP_READY_CLAIMER) == sorted(
        [*WIN_2_OF_4, (0, 1, "责任鸡", 5, "D19"), *each_pays([2, 3], 1, ("幺鸡", 3, "D18"))]
    )


def test_D19_responsibility_chicken_discarder_not_ready() -> None:
    assert _zeren(NOT_READY_DEALER, RESP_READY_CLAIMER) == sorted(
        [*WIN_2_OF_4, (0, 1, "责任鸡", 8, "D19"), *each_pays([2, 3], 1, ("幺鸡", 3, "D18"))]
    )


def test_D19_responsibility_chicken_claimer_not_ready() -> None:
    assert _zeren(READY_DEALER, RESP_NOT_READY_CLAIMER) == sorted(
        [
            *WIN_2_OF_4,
            (1, 0, "责任鸡", 8, "D19"),
            (1, 2, "幺鸡", 3, "D18"),
            (1, 3, "幺鸡", 3, "D18"),
        ]
    )


def test_D19_responsibility_chicken_both_not_ready_pay_the_others() -> None:
    assert _zeren(NOT_READY_DEALER, RESP_NOT_READY_CLAIMER) == sorted(
        [
            *WIN_2_OF_4,
            (0, 2, "责任鸡", 3, "D19"),
            (0, 3, "责任鸡", 3, "D19"),
            (1, 2, "责任鸡", 3, "D19"),
            (1, 3, "责任鸡", 3, "D19"),
        ]
    )


def test_D19_responsibility_chicken_doubles_under_jin_ji() -> None:
    assert _zeren(NOT_READY_DEALER, RESP_READY_CLAIMER, draws="7s9s", fanji="next") == sorted(
        [*WIN_2_OF_4, (0, 1, "责任鸡", 16, "D19"), *each_pays([2, 3], 1, ("金鸡", 6, "D15"))]
    )


def test_D19_responsibility_chicken_kong_counts_four() -> None:
    rnd = deal(
        DUYUN,
        [READY_DEALER, "111s234s567s789p5m", "456m345p678p22s77s", "3578m2468s2469p9s"],
        draws="7s",
        back="9m",
        **OFF,
    )
    play(rnd, "0:discard:1s", "1:kong", "1:discard:9m", "2:win")
    assert sorted(lines(rnd)) == sorted(
        [
            *WIN_2_OF_4,
            (0, 1, "责任鸡", 6, "D19"),
            (0, 1, "明豆", 3, "D11"),
            *each_pays([2, 3], 1, ("幺鸡", 4, "D18")),
        ]
    )


def test_D20_robbed_player_receives_no_ji_but_still_pays() -> None:
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45s11s", "66s1s123m456p789p8s"],
        draws="7p8p6s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:8s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:6s", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 1, "牌型:平胡", 1, "D6"),
            (2, 1, "抢杠", 10, "D14"),
            *each_pays([0, 2], 1, ("幺鸡", 2, "D18")),
        ]
    )
    void = rnd.settlement().summary["void"]
    assert [(v["payer"], v["payee"], v["category"]) for v in void] == [
        (0, 2, "幺鸡"),
        (1, 2, "幺鸡"),
    ]


def test_D20_hot_discarder_loses_dou_but_keeps_ji() -> None:
    # the dealer kongs 8p, draws 1s, discards 5p into seat 1's 大对子; it is ready on 1s.
    rnd = deal(
        DUYUN,
        ["8888p123m456m789m5p", "222m444m666m999s5p", "3579m3578s3679p9m"],
        back="1s",
        **OFF,
    )
    play(rnd, "0:kong:8p", "0:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [
            (0, 1, "牌型:大对子", 5, "D6"),
            (0, 1, "热炮", 6, "D13"),
            (0, 1, "连庄", 1, "D10a"),
            *each_pays([1, 2], 0, ("幺鸡", 1, "D18")),
        ]
    )
