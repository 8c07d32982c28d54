"""都匀: 黄庄, settlement order and the result shown (D3, D4, D12, D21, D22, D23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from majiang.actions import Action, ActionType
from majiang.record import replay
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play, play_out


def test_D3_last_tile_discard_cannot_be_claimed_and_D4_nobody_ready_keeps_dealer() -> None:
    # the last wall tile is 9p (back); seat 2 draws it and discards it, seat 1 holds 99p.
    rnd = deal(
        DUYUN,
        ["1111s2468m3579p2s6s", "1357m3579s24899p", "24568m2468s1467p"],
        back="9p",
        streak=2,
        fanji="off",
    )
    play(rnd, "0:discard:6s")
    while rnd.wall.remaining:
        exhaust_step(rnd)
    assert rnd.turn == 2 and rnd.seats[2].drawn is not None and rnd.seats[2].drawn.code == "9p"
    play(rnd, "2:discard:9p")
    assert rnd.ended and rnd.end_reason == "exhausted"
    assert not any(rnd.is_ready(s) for s in range(3))
    assert lines(rnd) == []  # nobody ready: no 查叫; no 1s in any river
    assert rnd.next_dealer() == (0, 3)


def exhaust_step(rnd: object) -> None:
    """One step of the pass-and-discard play used to reach the last tile."""
    from majiang.round import Round

    assert isinstance(rnd, Round)
    seat = rnd.pending()[0]
    if rnd.window is not None:
        rnd.apply(Action(ActionType.PASS, seat))
    else:
        drawn = rnd.seats[seat].drawn
        assert drawn is not None
        rnd.apply(Action(ActionType.DISCARD, seat, drawn))


# dealer: 小七对 waiting on 9s after discarding 6s; seat 1: 平胡 waiting on 5s; seat 2 not
# ready, holding 1s and the other copies of both waits. Seat 2 draws and discards a 1s
# (the table's first) and, in the second variant, a later one too.
CHAJIAO = ["22m44m66m88m33p55p9s6s", "123m789m123p789p5s"]


@pytest.mark.parametrize("first_chicken", ["hero", "charge"])
def test_D21_exhausted_chajiao_and_first_yaoji(first_chicken: str) -> None:
    rnd = deal(DUYUN, [*CHAJIAO, "34m111s555s999s18p"], draws="2p1s", first_chicken=first_chicken)
    play(rnd, "0:discard:6s")
    play_out(rnd, no_wins=True)
    name, value = ("英雄鸡", 3) if first_chicken == "hero" else ("冲锋鸡", 2)
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 0, "查叫", 10, "D21"),
            (2, 1, "查叫", 1, "D21"),
            (2, 0, name, value, "D21"),
            (2, 1, name, value, "D21"),
        ]
    )
    assert rnd.next_dealer() == (2, 1)  # D4: d ready, d-1 = seat 2 is the first not ready


def test_D21_later_yaoji_discards_pay_one_each() -> None:
    rnd = deal(DUYUN, [*CHAJIAO, "34m11s555s999s168p"], draws="2p1s3m4p1s")
    play(rnd, "0:discard:6s")
    play_out(rnd, no_wins=True)
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 0, "查叫", 10, "D21"),
            (2, 1, "查叫", 1, "D21"),
            (2, 0, "英雄鸡", 3, "D21"),
            (2, 1, "英雄鸡", 3, "D21"),
            (2, 0, "幺鸡", 1, "D21"),
            (2, 1, "幺鸡", 1, "D21"),
        ]
    )


def test_D12_D21_no_dou_on_exhausted_hand() -> None:
    # the dealer kongs 6m on its first turn (暗豆) and stays ready on 9s; no 豆 on 黄庄.
    rnd = deal(
        DUYUN,
        ["6666m234m456p789p9s", "123m789m123p789p5s", "34m111s555s999s18p"],
        draws="2p1s",
        back="7p",
    )
    play(rnd, "0:kong:6m", "0:discard:7p")
    play_out(rnd, no_wins=True)
    assert rnd.kongs and rnd.is_ready(0)
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 0, "查叫", 1, "D21"),
            (2, 1, "查叫", 1, "D21"),
            (2, 0, "英雄鸡", 3, "D21"),
            (2, 1, "英雄鸡", 3, "D21"),
        ]
    )


def test_D22_settlement_order_win_dou_ji() -> None:
    rnd = deal(
        DUYUN,
        ["123m456m789m234p5p1s", "111s234s567s789p5m", "456m345p678p22s77s", "3578m2468s2469p9s"],
        draws="7s",
        back="9m",
        fanji="off",
    )
    play(rnd, "0:discard:1s", "1:kong", "1:discard:9m", "2:win")
    assert lines(rnd) == [
        (3, 2, "牌型:平胡", 1, "D6"),
        (3, 2, "自摸", 1, "D10"),
        (0, 2, "牌型:平胡", 1, "D6"),
        (0, 2, "自摸", 1, "D10"),
        (0, 2, "连庄", 1, "D10a"),
        (1, 2, "牌型:平胡", 1, "D6"),
        (1, 2, "自摸", 1, "D10"),
        (0, 1, "明豆", 3, "D11"),
        (2, 1, "幺鸡", 4, "D18"),
        (3, 1, "幺鸡", 4, "D18"),
        (0, 1, "责任鸡", 6, "D19"),
    ]


def test_D22_baopai_comes_last() -> None:
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "222m444m666m999s5p", "3579m3578s3679p9m"],
        draws="9p5p5p5p",
        fanji="off",
    )
    play(rnd, "0:discard:3s", "1:discard:9p", "2:discard:5p", "1:pass", "0:discard:5p", "1:win")
    assert lines(rnd)[-2:] == [(1, 0, "包牌", 5, "D8"), (1, 2, "包牌", 5, "D8")]


def test_D23_result_summary_and_players() -> None:
    rnd = deal(
        DUYUN,
        ["123m456m789m234p5p1s", "111s234s567s789p5m", "456m345p678p22s77s", "3578m2468s2469p9s"],
        draws="7s6m",
        back="9m",
        base_stake=5,
    )
    play(rnd, "0:discard:1s", "1:kong", "1:discard:9m", "2:win")
    result = rnd.settlement()
    assert dict(result.summary) == {
        "result": "胡",
        "dealer": 0,
        "streak": 1,
        "fanji": "6m",
        "jin_ji": False,
        "chicken_tiles": ["7m", "1s"],
        "base_stake": 5,
        "void": [],
    }
    # 7m chickens: dealer 1 (789m), seat 3 1 (not ready: turned chickens cost nothing)
    assert sorted(lines(rnd)) == sorted(
        each_pays([3, 1], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"))
        + each_pays([0], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a"))
        + [(0, 1, "明豆", 3, "D11"), (0, 1, "责任鸡", 6, "D19")]
        + each_pays([2, 3], 1, ("幺鸡", 4, "D18"))
        + each_pays([1, 2, 3], 0, ("翻牌鸡", 1, "D18"))
    )
    totals = list(result.totals)
    assert [dict(p) for p in result.players] == [
        {
            "seat": 0,
            "ready": True,
            "won": False,
            "winning_tile": None,
            "pattern": None,
            "ji": {"翻牌鸡": 1},
            "dou": {},
            "total": totals[0],
            "stake_total": 5 * totals[0],
        },
        {
            "seat": 1,
            "ready": True,
            "won": False,
            "winning_tile": None,
            "pattern": None,
            "ji": {"幺鸡": 4, "责任鸡": 1},
            "dou": {"明豆": 1},
            "total": totals[1],
            "stake_total": 5 * totals[1],
        },
        {
            "seat": 2,
            "ready": True,
            "won": True,
            "winning_tile": "7s",
            "pattern": "平胡",
            "ji": {},
            "dou": {},
            "total": totals[2],
            "stake_total": 5 * totals[2],
        },
        {
            "seat": 3,
            "ready": False,
            "won": False,
            "winning_tile": None,
            "pattern": None,
            "ji": {},  # its 7m costs it nothing (D18)
            "dou": {},
            "total": totals[3],
            "stake_total": 5 * totals[3],
        },
    ]
    assert totals == [-6 + 3 - 3 - 6 + 3, 3 + 6 + 8 - 2 - 1, 7 - 4 - 1, -2 - 4 - 1]


def test_D23_huangzhuang_shows_the_ji_that_are_paid() -> None:
    """Worked example 12 (黄庄): seat 2, not ready, pays 英雄鸡 for the table's first 1s and
    幺鸡 for a later one, both in its river (D21.3), and its result shows exactly those 鸡
    (D23). The ready seats collect no 鸡 on 黄庄 and show none. The river counts whatever
    ``mantang`` says, and the first 1s is named by ``first_chicken``."""
    docs = Path(__file__).resolve().parents[3] / "docs" / "rules" / "duyun"
    record = json.loads((docs / "12-exhausted-chajiao.json").read_text(encoding="utf-8"))
    variants = (({}, "英雄鸡"), ({"mantang": False, "first_chicken": "charge"}, "冲锋鸡"))
    for settings, first in variants:
        rnd = replay({**record, "settings": {**record["settings"], **settings}})
        result = rnd.settlement()
        assert result.summary["result"] == "黄庄"
        assert [(p["ready"], p["ji"], p["dou"]) for p in result.players] == [
            (True, {}, {}),
            (True, {}, {}),
            (False, {first: 1, "幺鸡": 1}, {}),
        ]
        # The summary counts the same tiles as seat 2's 鸡 lines, one per payee.
        paid = [(line[2], line[3]) for line in lines(rnd) if line[0] == 2 and line[1] == 0]
        value = 3 if first == "英雄鸡" else 2
        assert paid == [("查叫", 10), (first, value), ("幺鸡", 1)]


def _ji(rnd: object) -> list[dict[str, int]]:
    """Each seat's D23 鸡 by kind, in seat order."""
    from majiang.round import Round

    assert isinstance(rnd, Round)
    return [dict(p["ji"]) for p in rnd.settlement().players]


def test_D23_won_hand_shows_a_not_ready_seats_river_yaoji_without_mantang() -> None:
    """The dealer discards the table's first 1s (英雄鸡) and is ready on 5p; seat 1 draws 3m,
    discards a later 1s and is not ready; seat 2 self-draws 7s. With 满堂鸡 off the river
    collects nothing, but a not-ready seat pays for the 1s in its river (D16, D18), so that
    1s is seat 1's 鸡 in the result (D23)."""
    rnd = deal(
        DUYUN,
        ["123m456m789m234p5p1s", "234s567s789p1s55m9m", "456m345p678p22s77s"],
        draws="3m7s",
        fanji="off",
        mantang=False,
    )
    play(rnd, "0:discard:1s", "1:discard:1s", "2:win")
    assert [rnd.is_ready(s) for s in range(3)] == [True, False, True]
    zimo = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"))
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0, 1], 2, *zimo),
            (0, 2, "连庄", 1, "D10a"),
            *each_pays([1, 2], 0, ("英雄鸡", 3, "D17")),
            (1, 0, "幺鸡", 1, "D18"),
            (1, 2, "幺鸡", 1, "D18"),
        ]
    )
    assert _ji(rnd) == [{"英雄鸡": 1}, {"幺鸡": 1}, {}]


def test_D23_won_hand_hides_chickens_a_not_ready_seat_does_not_pay_for() -> None:
    """The dealer's 天胡; 5m is turned, so 6m is a 翻牌鸡. Seat 1 is ready on 2p and owns a 1s
    and a 6m. Seat 2 is not ready with 11s and a 6m hidden in its hand: they cost it
    nothing (D18), so it pays no 鸡 and shows none (D23)."""
    rnd = deal(
        DUYUN, ["123m456m789m234p55p", "678m123s456p789p2p", "3569m11s579s2468p"], draws="5m"
    )
    play(rnd, "0:win")
    assert [rnd.is_ready(s) for s in range(3)] == [True, True, False]
    assert rnd.settlement().summary["chicken_tiles"] == ["6m", "1s"]
    item = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a"))
    assert sorted(lines(rnd)) == sorted(
        each_pays([1, 2], 0, *item, ("翻牌鸡", 1, "D18"))  # the dealer's 6m (456m)
        + each_pays([0, 2], 1, ("幺鸡", 1, "D18"), ("翻牌鸡", 1, "D18"))
    )
    assert _ji(rnd) == [{"翻牌鸡": 1}, {"幺鸡": 1, "翻牌鸡": 1}, {}]


# 责任鸡 at four players (as in test_duyun_dou_ji): the dealer discards the first 1s, seat 1
# pungs it and discards 9m, seat 2 self-draws 7s; seat 3 holds no chicken and is not ready.
_READY_DEALER = "123m456m789m234p5p1s"
_NOT_READY_DEALER = "123m456m789m24p58p1s"
_READY_CLAIMER = "11s234s567s789p5m9m"
_NOT_READY_CLAIMER = "11s234s567s78p5m9m3p"


@pytest.mark.parametrize(
    ("dealer", "claimer", "shown"),
    [
        # both ready: the discarder pays m + 2 and collects nothing, so shows no 责任鸡;
        # the claimer collects 责任鸡 from it and its 3 幺鸡 from seats 2 and 3.
        (_READY_DEALER, _READY_CLAIMER, [{}, {"幺鸡": 3, "责任鸡": 1}]),
        # discarder not ready: it pays the claimer 8.
        (_NOT_READY_DEALER, _READY_CLAIMER, [{"责任鸡": 1}, {"幺鸡": 3, "责任鸡": 1}]),
        # claimer not ready: the discarder collects 8; the claimer pays it, and pays the
        # others for its exposed 1s meld.
        (_READY_DEALER, _NOT_READY_CLAIMER, [{"责任鸡": 1}, {"幺鸡": 3, "责任鸡": 1}]),
        # both not ready: each pays the others 3; the meld is not paid again under D18.
        (_NOT_READY_DEALER, _NOT_READY_CLAIMER, [{"责任鸡": 1}, {"责任鸡": 1}]),
    ],
)
def test_D23_won_hand_shows_the_zeren_ji_of_the_pair_as_settled(
    dealer: str, claimer: str, shown: list[dict[str, int]]
) -> None:
    rnd = deal(
        DUYUN,
        [dealer, claimer, "456m345p678p22s77s", "3578m2468s2469p9s"], draws="7s", fanji="off"
    )
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:win")
    assert _ji(rnd) == [*shown, {}, {}]


def test_D23_robbed_seat_shows_no_ji_it_does_not_collect() -> None:
    """Seat 2, ready on 1s with a 1s in hand, is robbed of its 转弯豆 of 6s: its 幺鸡 lines are
    void (D20), so its result shows no 鸡; the robber shows its own 1s pair."""
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45s11s", "66s1s123m456p789p8s"],
        draws="7p8p6s",
        fanji="off",
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:8s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:6s", "1:win")
    assert rnd.is_ready(2)
    assert [v["payee"] for v in rnd.settlement().summary["void"]] == [2, 2]
    assert _ji(rnd) == [{}, {"幺鸡": 2}, {}]
