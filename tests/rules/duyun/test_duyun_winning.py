"""都匀: patterns and winning payments (D6, D7, D8, D9, D10, D10a, D13, D14)."""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.state import MeldKind, Phase, WinSource
from majiang.tiles import counts_of, parse_tiles
from majiang.variants.duyun.patterns import pattern_of
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play, play_out

OFF = {"fanji": "off"}


@pytest.mark.parametrize(
    ("concealed", "melds", "name", "points"),
    [
        ("123m456m789s234p55p", "", "平胡", 1),
        ("222m444m666s999p55p", "", "大对子", 5),
        ("11m22m33s44s55p66p77p", "", "小七对", 10),
        ("55p", "1m2s3p4p", "单吊", 10),
        ("1111m22s33s44p55p66p", "", "龙七对", 20),
        ("123456789m23455m", "", "清一色", 10),
        ("22244466699955m", "", "清大对", 15),
        ("11223344556677m", "", "清七对", 20),
        ("55m", "1m2m3m4m", "清单吊", 20),
        ("11112233445566m", "", "青龙背", 30),
        # three 碰 + a concealed triplet + a single, won on the single: 大对子, not 单吊
        ("22255p", "1m2s3s", "大对子", 5),
    ],
)
def test_D6_pattern_table(concealed: str, melds: str, name: str, points: int) -> None:
    from majiang.state import Meld

    meld_list = [Meld(MeldKind.PUNG, t) for t in parse_tiles(melds)]
    found = pattern_of(counts_of(parse_tiles(concealed)), meld_list)
    assert found is not None
    assert (found.name, found.points) == (name, points)


def test_D10_D10a_dealer_heavenly_self_draw_pinghu() -> None:
    rnd = deal(DUYUN, ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"], **OFF)
    play(rnd, "0:win")
    item = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a"))
    assert sorted(lines(rnd)) == sorted(each_pays([1, 2], 0, *item))


@pytest.mark.parametrize(("bonus", "streak"), [(0, 1), (2, 3)])
def test_D10_zimo_bonus_setting_and_D10a_streak(bonus: int, streak: int) -> None:
    rnd = deal(
        DUYUN,
        ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"],
        streak=streak,
        zimo_bonus=bonus,
        **OFF,
    )
    play(rnd, "0:win")
    item = (("牌型:平胡", 1, "D6"), ("自摸", bonus, "D10"), ("连庄", streak, "D10a"))
    expected = [x for x in each_pays([1, 2], 0, *item) if x[3]]
    assert sorted(lines(rnd)) == sorted(expected)


def _non_dealer_self_draw(streak: int) -> list[tuple[int, int, str, int, str]]:
    rnd = deal(
        DUYUN,
        ["234566m2468s2468p", "123m456m789m234p5p", "3579m3579s3579p9m"],
        draws="5p",
        streak=streak,
        **OFF,
    )
    play(rnd, "0:discard:8p", "1:win")
    return lines(rnd)


def test_D10a_streak_only_between_dealer_and_non_dealer() -> None:
    assert sorted(_non_dealer_self_draw(2)) == sorted(
        [
            (0, 1, "牌型:平胡", 1, "D6"),
            (0, 1, "自摸", 1, "D10"),
            (0, 1, "连庄", 2, "D10a"),
            (2, 1, "牌型:平胡", 1, "D6"),
            (2, 1, "自摸", 1, "D10"),
        ]
    )


# seat 1 waits on 5p with a 平胡 (123m456m789m234p5p); the dealer discards 5p.
PINGHU_HANDS = ["3455m78m2468s245p9s", "123m456m789m234p5p", "3579m3579s3679p9m"]


def test_D7_pinghu_on_discard_without_dou_is_not_offered() -> None:
    rnd = deal(DUYUN, PINGHU_HANDS, draws="9p5p", **OFF)
    play(rnd, "0:discard:5p")
    # no window: seat 1 simply draws; no lock was set (D8: a win not allowed sets no lock)
    assert rnd.phase is Phase.TURN and rnd.turn == 1
    assert not rnd.seats[1].win_lock
    assert rnd.locked_chances == []


def test_D7_pinghu_on_discard_allowed_when_setting_off() -> None:
    rnd = deal(DUYUN, PINGHU_HANDS, pinghu_discard_needs_dou=False, **OFF)
    play(rnd, "0:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted([(0, 1, "牌型:平胡", 1, "D6"), (0, 1, "连庄", 1, "D10a")])


def test_D7_big_pattern_wins_on_discard_without_dou() -> None:
    rnd = deal(DUYUN, ["3455m78m2468s245p9s", "222m444m666m999s5p", "3579m3578s3679p9m"], **OFF)
    play(rnd, "0:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted([(0, 1, "牌型:大对子", 5, "D6"), (0, 1, "连庄", 1, "D10a")])


def test_D7_qingyise_wins_on_discard_without_dou() -> None:
    # 清一色 has a 平胡 shape but is a bigger pattern (10): it needs no 豆 on a discard.
    rnd = deal(DUYUN, ["3455m78m2468s245p9s", "123m456m789m34m11m", "3579m3579s3679p9m"], **OFF)
    play(rnd, "0:discard:5m", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [(0, 1, "牌型:清一色", 10, "D6"), (0, 1, "连庄", 1, "D10a")]
    )


def test_D7_pinghu_with_a_dou_wins_on_discard() -> None:
    # dealer discards 7s, seat 1 kongs it (明豆), discards the replacement 9p; seat 2 draws
    # and discards 5p; seat 1 wins 平胡 with its 豆.
    rnd = deal(
        DUYUN,
        ["234566m2468s24p7s9s", "777s123m456m789m5p", "3579m3589s3679p9m"],
        draws="5p",
        back="9p",
        **OFF,
    )
    play(rnd, "0:discard:7s", "1:kong", "1:discard:9p", "2:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted([(2, 1, "牌型:平胡", 1, "D6"), (0, 1, "明豆", 3, "D11")])


def test_D8_pass_locks_until_own_draw_and_baopai_is_paid() -> None:
    # seat 1 waits on 5p for 大对子. It passes seat 2's 5p, is locked when the dealer
    # discards 5p (包牌 5 to each other player), then self-draws 5p after its draw.
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "222m444m666m999s5p", "3579m3578s3679p9m"],
        draws="9p5p5p5p",
        **OFF,
    )
    play(rnd, "0:discard:3s", "1:discard:9p", "2:discard:5p", "1:pass")
    assert rnd.seats[1].win_lock
    play(rnd, "0:discard:5p")
    assert rnd.turn == 1 and not rnd.seats[1].win_lock  # the draw released the lock
    play(rnd, "1:win")
    assert sorted(lines(rnd)) == sorted(
        [
            (0, 1, "牌型:大对子", 5, "D6"),
            (0, 1, "自摸", 1, "D10"),
            (0, 1, "连庄", 1, "D10a"),
            (2, 1, "牌型:大对子", 5, "D6"),
            (2, 1, "自摸", 1, "D10"),
            (1, 0, "包牌", 5, "D8"),
            (1, 2, "包牌", 5, "D8"),
        ]
    )


def test_D8_baopai_off_posts_no_baopai() -> None:
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "222m444m666m999s5p", "3579m3578s3679p9m"],
        draws="9p5p5p5p",
        baopai=False,
        **OFF,
    )
    play(rnd, "0:discard:3s", "1:discard:9p", "2:discard:5p", "1:pass", "0:discard:5p", "1:win")
    assert len(rnd.locked_chances) == 1
    assert not any(line[2] == "包牌" for line in lines(rnd))


def test_D8_win_not_allowed_sets_no_lock_and_no_baopai() -> None:
    # seat 1's 平胡 has no 豆: neither 5p discard is offered, so no lock and no 包牌.
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "123m456m789m234p5p", "3579m3578s3679p9m"],
        draws="9p5p5p5p",
        **OFF,
    )
    play(rnd, "0:discard:3s", "1:discard:9p", "2:discard:5p", "0:discard:5p", "1:win")
    assert rnd.locked_chances == []
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0, 2], 1, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
            (0, 1, "连庄", 1, "D10a"),
        ]
    )


# seat 1 declares 报听 with its first discard, waiting on 5p with a bare 平胡.
BAOTING_HANDS = ["3455m78m2468s246p3s", "123m456m789m234p9s", "3579m3578s3679p9m"]


def test_D9_baoting_only_with_first_discard() -> None:
    rnd = deal(DUYUN, BAOTING_HANDS, draws="5p2m3m", **OFF)
    dealer_declares = [a for a in rnd.legal_actions(0) if a.declare]
    assert dealer_declares == []  # the dealer's hand is not ready after any discard
    play(rnd, "0:discard:3s")
    declares = {a.tile.code for a in rnd.legal_actions(1) if a.declare and a.tile}
    assert declares == {"2p", "5p", "9s"}


def test_D9_baoting_hand_is_frozen_and_wins_pinghu_on_discard() -> None:
    # seat 1 draws 5p and declares with 9s, keeping 123m456m789m234p5p: it waits on 5p
    rnd = deal(DUYUN, BAOTING_HANDS, draws="5p2m3m8s5p", **OFF)
    play(rnd, "0:discard:3s", "1:declare:9s")
    assert rnd.seats[1].declared
    play(rnd, "2:discard:2m", "0:discard:3m")
    # seat 1 drew 8s and discarded it automatically; seat 2 drew 5p
    assert [e.tile.code for e in rnd.seats[1].river] == ["9s", "8s"]
    play(rnd, "2:discard:5p")
    assert [a.type for a in rnd.legal_actions(1)] == [ActionType.WIN, ActionType.PASS]
    play(rnd, "1:win")
    assert sorted(lines(rnd)) == sorted([(2, 1, "牌型:平胡", 1, "D6"), (2, 1, "报听", 10, "D10")])


def test_D9_baoting_pass_on_drawn_win_sets_lock() -> None:
    rnd = deal(DUYUN, BAOTING_HANDS, draws="5p2m3m5p", **OFF)
    play(rnd, "0:discard:3s", "1:declare:9s", "2:discard:2m", "0:discard:3m")
    assert rnd.turn == 1 and [a.type for a in rnd.legal_actions(1)] == [
        ActionType.WIN,
        ActionType.DISCARD,
    ]
    play(rnd, "1:discard:5p")
    assert rnd.seats[1].win_lock


def test_D10_kong_replacement_win_is_gangshanghua() -> None:
    # dealer: concealed kong of 9s on its first turn, the replacement 5p wins.
    rnd = deal(
        DUYUN,
        ["9999s123m456m789m5p", "336699m2258s147p", "2237m4578s13579p"],
        back="5p",
        **OFF,
    )
    play(rnd, "0:kong:9s", "0:win")
    item = (
        ("牌型:平胡", 1, "D6"),
        ("自摸", 1, "D10"),
        ("杠上花", 1, "D10"),
        ("连庄", 1, "D10a"),
        ("暗豆", 3, "D11"),
    )
    assert sorted(lines(rnd)) == sorted(each_pays([1, 2], 0, *item))


def test_D13_hot_discard_after_kong_pays_double_pattern_plus_one_and_burns_dou() -> None:
    # the dealer kongs 8p on its first turn and discards 5p: seat 1 wins 大对子 on it.
    rnd = deal(
        DUYUN,
        ["8888p123m456m789m5p", "222m444m666m999s5p", "3579m3578s3679p9m"],
        back="3s",
        **OFF,
    )
    play(rnd, "0:kong:8p", "0:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [
            (0, 1, "牌型:大对子", 5, "D6"),
            (0, 1, "热炮", 6, "D13"),
            (0, 1, "连庄", 1, "D10a"),
        ]
    )
    assert [v["category"] for v in rnd.settlement().summary["void"]] == ["暗豆", "暗豆"]


def test_D13_hot_discard_lets_a_bare_pinghu_win() -> None:
    rnd = deal(
        DUYUN,
        ["8888p123m456m789m5p", "123m456m789m234p5p", "3579m3578s3679p9m"],
        back="3s",
        **OFF,
    )
    play(rnd, "0:kong:8p", "0:discard:5p", "1:win")
    assert sorted(lines(rnd)) == sorted(
        [(0, 1, "牌型:平胡", 1, "D6"), (0, 1, "热炮", 2, "D13"), (0, 1, "连庄", 1, "D10a")]
    )


def test_D14_robbing_an_added_kong() -> None:
    # seat 2 pungs the dealer's 6s, later draws the fourth 6s and adds it: seat 1 robs it
    # with a bare 平胡 (no 豆 needed).
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45s99p", "66s3579m3579p38s4p"],
        draws="7p8p6s",
        **OFF,
    )
    play(rnd, "0:discard:6s")
    assert [a.type for a in rnd.legal_actions(1)] == []  # 平胡 without 豆 not offered
    play(rnd, "2:pung", "2:discard:3s", "0:discard:7p", "1:discard:8p")
    assert Action(ActionType.KONG, 2, parse_tiles("6s")[0]) in rnd.legal_actions(2)
    play(rnd, "2:kong:6s", "1:win")
    assert rnd.seats[2].melds[0].kind is MeldKind.PUNG
    assert sorted(lines(rnd)) == sorted([(2, 1, "牌型:平胡", 1, "D6"), (2, 1, "抢杠", 10, "D14")])


def test_D8_baopai_is_posted_on_huangzhuang() -> None:
    # As above, but the last 5p stays in seat 2's hand: seat 1 never wins, the wall runs
    # out (黄庄), and the 包牌 of its locked chance on the dealer's 5p still stands (D8, D21.4).
    hands = ["3455m78m2468s245p3s", "222m444m666m999s5p", "3579m3578s3556p9m"]
    for baopai in (True, False):
        rnd = deal(DUYUN, hands, draws="9p1p9s", baopai=baopai, **OFF)
        play(rnd, "0:discard:3s", "1:discard:9p", "2:discard:5p", "1:pass", "0:discard:5p")
        assert [(c.seat, c.tile.code, c.from_seat) for c in rnd.locked_chances] == [(1, "5p", 0)]
        play_out(rnd, no_wins=True)
        assert rnd.end_reason == "exhausted" and rnd.wins == []
        baopai_lines = [line for line in lines(rnd) if line[2] == "包牌"]
        if baopai:
            # 大对子 on 5p: 5 to each other player, after 查叫 and the 幺鸡 (D22).
            assert baopai_lines == [(1, 0, "包牌", 5, "D8"), (1, 2, "包牌", 5, "D8")]
            assert lines(rnd)[-2:] == baopai_lines
        else:
            assert baopai_lines == []
        assert lines(rnd)[:2] == [(0, 1, "查叫", 5, "D21"), (2, 1, "查叫", 5, "D21")]


def test_D13_baoting_adds_10_undoubled_on_a_hot_discard() -> None:
    # seat 1 declares 报听 (waiting 2p/5p with a bare 平胡); seat 2 kongs 7s and discards the
    # replacement 5p: seat 1 wins the 热炮. The pattern is doubled (+1), the 报听 10 is not.
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "123m456m789m234p9s", "3579m7778s3679p9m"],
        draws="5p7s",
        back="5p",
        **OFF,
    )
    play(rnd, "0:discard:3s", "1:declare:9s", "2:kong:7s", "2:discard:5p")
    assert [a.type for a in rnd.legal_actions(1)] == [ActionType.WIN, ActionType.PASS]
    play(rnd, "1:win")
    [win] = rnd.wins
    assert win.declared and win.after_kong_discard and win.from_seat == 2
    assert lines(rnd) == [
        (2, 1, "牌型:平胡", 1, "D6"),
        (2, 1, "热炮", 2, "D13"),
        (2, 1, "报听", 10, "D10"),
    ]


def test_D14_baoting_adds_10_on_robbing_a_kong() -> None:
    # test_D14_robbing_an_added_kong, with seat 1 declaring 报听 on its first discard (8p).
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45s99p", "66s3579m3579p38s4p"],
        draws="7p8p6s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "0:discard:7p", "1:declare:8p")
    assert rnd.seats[1].declared
    play(rnd, "2:kong:6s", "1:win")
    [win] = rnd.wins
    assert win.declared and win.source is WinSource.ROBBING and win.from_seat == 2
    assert lines(rnd) == [
        (2, 1, "牌型:平胡", 1, "D6"),
        (2, 1, "抢杠", 10, "D14"),
        (2, 1, "报听", 10, "D10"),
    ]
