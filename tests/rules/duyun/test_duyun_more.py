"""都匀: parts of rulings no other file checks (D2, D4, D12, D13, D19).

Every expected line below is worked out by hand from the ruling it names; the comments show
the sums.

D5 ("The automatic discards of a 报听 hand (D9) are not timeouts") is not tested here: the
rules package only runs those discards inside ``Round.apply``; counting timeouts toward 托管
lives in ``apps/matches/lifecycle.py``, outside it.
"""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play

OFF = {"fanji": "off"}

# -- D2: passing on a 碰 sets no lock ---------------------------------------------------------


def test_D2_passing_a_pung_sets_no_lock() -> None:
    """D2: "Passing on a 碰 sets no lock; only 胡 is locked (D8)." Seat 2 (55m) passes the
    dealer's 5m; seat 1 then draws the fourth 5m and discards it, before seat 2 has drawn
    again. Seat 2 is offered the 碰 again and makes it."""
    # 5m: the dealer's 1, seat 2's 2, and seat 1's draw: all four. Nobody is near ready.
    rnd = deal(
        DUYUN,
        ["13579m13579p2468s", "2468m2468p13579s", "155m2468p2468s99p"],
        draws="5m",
        **OFF,
    )
    play(rnd, "0:discard:5m")
    assert rnd.legal_actions(2) == [
        Action(ActionType.PUNG, 2, Tile.M5),
        Action(ActionType.PASS, 2),
    ]
    play(rnd, "2:pass")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.M5
    assert rnd.seats[2].draws == 0  # seat 2 has not drawn since it passed
    play(rnd, "1:discard:5m")
    assert rnd.legal_actions(2) == [
        Action(ActionType.PUNG, 2, Tile.M5),
        Action(ActionType.PASS, 2),
    ]
    play(rnd, "2:pung")
    assert [(m.kind, m.tile, m.from_seat) for m in rnd.seats[2].melds] == [
        (MeldKind.PUNG, Tile.M5, 1)
    ]
    assert rnd.turn == 2


# -- D4: multi_win_dealer = discarder after a 抢杠 won by several players ----------------------


def test_D4_discarder_setting_gives_the_deal_to_the_robbed_player_after_multi_rob() -> None:
    """D4: "With `multi_win_dealer` = `discarder`, the discarder deals after any 一炮多响,
    even when the dealer won." On a 抢杠 the tile comes from the robbed player, who pays
    each robber (D14): it is the 点炮者 of the seed's "下局点炮者做庄"."""
    # The dealer discards 6s and seat 2 碰s it. Seat 2 later draws the fourth 6s and adds it;
    # the dealer (57s) and seat 1 (45s) both rob it with a 平胡. The dealer is among the
    # winners, yet under `discarder` the robbed seat 2 deals next. The deal passes, so the
    # streak restarts at 1.
    rnd = deal(
        DUYUN,
        ["123m456m789p57s22p6s", "123m456m789m45s99p", "66s3579m3579p38s4p"],
        draws="7p8p6s",
        multi_win_dealer="discarder",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:6s")
    assert rnd.pending() == (0, 1)
    play(rnd, "0:win", "1:win")
    assert sorted((w.seat, w.source, w.from_seat) for w in rnd.wins) == [
        (0, WinSource.ROBBING, 2),
        (1, WinSource.ROBBING, 2),
    ]
    assert rnd.next_dealer() == (2, 1)


# -- D12: a not-ready owner's kong of a tile other than 1s ------------------------------------

# The dealer 暗杠s 9999m on its first turn; the replacement is 9s. Discarding 9s leaves it
# ready on 4p (123m 456m 11p 35p); discarding a 1p leaves it not ready (123m 456m 1p 3p 5p
# 9s). Seat 1 draws and throws 3s; seat 2 self-draws 7s: 平胡 (456m 345p 678p 22s 777s).
D12_HANDS = ["9999m123m456m11p35p", "2378m2468s2469p5s", "456m345p678p22s77s"]
# Seat 2's 自摸 平胡: each pays 1 + 自摸 1; the dealer adds 连庄 1 (D10, D10a). No 1s is held
# anywhere and 翻鸡 is off: no 鸡.
D12_WIN = [
    *each_pays([0, 1], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
    (0, 2, "连庄", 1, "D10a"),
]


@pytest.mark.parametrize("ready", [False, True])
def test_D12_not_ready_owner_of_a_non_yaoji_kong_gets_nothing(ready: bool) -> None:
    """D12: "豆 are settled only when someone wins, and only if the owner won or is ready."
    "An owner who is not ready gets nothing and pays nothing for their 豆." The 暗豆 here is
    of 9m, not 1s, so D18 adds nothing either. The ready case is the control: each other
    player pays the owner 3 (D11)."""
    rnd = deal(DUYUN, D12_HANDS, draws="3s7s", back="9s", **OFF)
    play(rnd, "0:kong:9m", f"0:discard:{'9s' if ready else '1p'}", "1:discard:3s", "2:win")
    assert [(k.seat, k.kind, k.tile) for k in rnd.kongs] == [(0, MeldKind.CONCEALED_KONG, Tile.M9)]
    assert rnd.is_ready(0) is ready
    expected = D12_WIN + (each_pays([1, 2], 0, ("暗豆", 3, "D11")) if ready else [])
    assert sorted(lines(rnd)) == sorted(expected)
    assert rnd.settlement().summary["void"] == []


def test_D12_not_ready_owner_of_a_mingdou_is_not_paid_by_the_discarder() -> None:
    """D12: "An owner who is not ready gets nothing and pays nothing for their 豆." Seat 1
    杠s the dealer's 9p (明豆, which D11 has the discarder pay 3), takes the replacement 6m,
    throws 9m and is not ready (23567m 468p 35s). Seat 2 self-draws 7s."""
    rnd = deal(
        DUYUN,
        ["13579m2468s3578p9p", "999p2357m468p35s9m", "456m345p678p22s77s"],
        draws="7s",
        back="6m",
        **OFF,
    )
    play(rnd, "0:discard:9p", "1:kong", "1:discard:9m", "2:win")
    assert [(k.seat, k.kind, k.tile, k.from_seat) for k in rnd.kongs] == [
        (1, MeldKind.EXPOSED_KONG, Tile.P9, 0)
    ]
    assert not rnd.is_ready(1)
    # Only seat 2's 自摸 平胡 (as D12_WIN): no 明豆 3 from the dealer, no 鸡 (no 1s held).
    assert sorted(lines(rnd)) == sorted(D12_WIN)


# -- D13: 热炮 with several winners ----------------------------------------------------------

# Four players. The dealer (streak 2) 暗杠s 8888p on its first turn, takes the replacement
# 5m and discards 5p: 热炮. It is then ready on 9p/5m (567s 789s 99p 55m). Three seats wait
# on 5p, with no 豆:
#   seat 1: 222m 444m 666m 999s 5p   -> 大对子 5
#   seat 2: 123m 456m 789m 234p 5p   -> bare 平胡 1 (allowed: 热炮, D7)
#   seat 3: 11m 33m 33s 44s 66p 77p 5p -> 小七对 10
D13_HANDS = [
    "8888p5p567s789s99p5m",
    "222m444m666m999s5p",
    "123m456m789m234p5p",
    "11m33m33s44s66p77p5p",
]
# The konger pays each winner 2 x pattern + 1, as the pattern line plus a 热炮 line of
# pattern + 1, and the streak 2 undoubled (the dealer pays every winner, D10a):
#   seat 1: 5 + (5 + 1) + 2 = 2 x 5 + 1 + 2 = 13
#   seat 2: 1 + (1 + 1) + 2 = 2 x 1 + 1 + 2 = 5
#   seat 3: 10 + (10 + 1) + 2 = 2 x 10 + 1 + 2 = 23
D13_PAY = {
    1: [(0, 1, "牌型:大对子", 5, "D6"), (0, 1, "热炮", 6, "D13"), (0, 1, "连庄", 2, "D10a")],
    2: [(0, 2, "牌型:平胡", 1, "D6"), (0, 2, "热炮", 2, "D13"), (0, 2, "连庄", 2, "D10a")],
    3: [(0, 3, "牌型:小七对", 10, "D6"), (0, 3, "热炮", 11, "D13"), (0, 3, "连庄", 2, "D10a")],
}


@pytest.mark.parametrize("winners", [(1, 2, 3), (2, 3), (1, 3)], ids=["1-2-3", "2-3", "1-3"])
def test_D13_hot_discard_with_several_winners_pays_each_winner(winners: tuple[int, ...]) -> None:
    """D13: "The konger pays each winner 2 × (the winner's D6 pattern points) + 1. They then
    add, undoubled, the winner's 报听 +10 and the D10a streak where they apply." And "The
    konger's own 豆 (all of them, this hand) are void: 烧豆", however many won."""
    rnd = deal(DUYUN, D13_HANDS, back="5m", streak=2, **OFF)
    play(rnd, "0:kong:8p", "0:discard:5p")
    assert rnd.pending() == (1, 2, 3)
    for seat in (1, 2, 3):
        assert rnd.legal_actions(seat) == [
            Action(ActionType.WIN, seat),
            Action(ActionType.PASS, seat),
        ]
    play(rnd, *(f"{s}:{'win' if s in winners else 'pass'}" for s in (1, 2, 3)))
    assert rnd.ended
    assert sorted(w.seat for w in rnd.wins) == list(winners)
    assert all(w.after_kong_discard and w.from_seat == 0 for w in rnd.wins)
    assert rnd.is_ready(0)
    # Only the winning payments: the dealer's 暗豆 (3 from each other player, D11) is burnt,
    # and nobody holds a 1s with 翻鸡 off.
    assert sorted(lines(rnd)) == sorted(line for s in winners for line in D13_PAY[s])
    void = rnd.settlement().summary["void"]
    assert sorted((v["payer"], v["payee"], v["category"], v["points"]) for v in void) == [
        (1, 0, "暗豆", 3),
        (2, 0, "暗豆", 3),
        (3, 0, "暗豆", 3),
    ]
    # the dealer pays 13 / 5 / 23 to the seats that won
    assert rnd.settlement().totals[0] == -sum({1: 13, 2: 5, 3: 23}[s] for s in winners)


# -- D19: 责任鸡 --------------------------------------------------------------------------------

# Four players: the dealer discards the table's first 1s and seat 1 碰s it (11s), throwing
# 9m; seat 2 self-draws 7s (平胡: 456m 345p 678p 22s 777s). The next wall tile is 9s: 金鸡
# (D15), and its 翻牌鸡 would be 1s, never counted twice, so no other tile is a chicken.
# After its 1s the dealer is not ready (123m 456m 789m 24p 58p); after its 9m seat 1 is not
# ready (234s 567s 78p 5m 3p). Seat 3 is not ready and holds no 1s.
ZEREN_HANDS = [
    "123m456m789m24p58p1s",
    "11s234s567s78p5m9m3p",
    "456m345p678p22s77s",
    "3578m2468s2469p9s",
]


def test_D19_both_not_ready_pay_the_others_doubled_under_jin_ji() -> None:
    """D19 "both not ready": "nothing between them; instead each of the two pays every player
    outside the pair 3 … and this replaces the claimer's D18 payments for the meld", and
    "Every figure doubles under 金鸡": 3 × 2 = 6."""
    rnd = deal(DUYUN, ZEREN_HANDS, draws="7s9s", fanji="next")
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:win")
    summary = rnd.settlement().summary
    assert summary["fanji"] == "9s" and summary["jin_ji"] is True
    assert [rnd.is_ready(s) for s in range(4)] == [False, False, True, False]
    # Seat 2's 自摸 平胡: each pays 1 + 自摸 1, the dealer also 连庄 1 (D10, D10a).
    # 鸡: the pair (0, 1) each pay seats 2 and 3 the 责任鸡 3 × 2 = 6. The claimer's 111s
    # would otherwise cost it 3 × 2 = 6 金鸡 to each other player (D18); that is replaced.
    # The first 1s was claimed: no 英雄鸡 (D17).
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a")),
            *each_pays([1, 3], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
            (0, 2, "责任鸡", 6, "D19"),
            (0, 3, "责任鸡", 6, "D19"),
            (1, 2, "责任鸡", 6, "D19"),
            (1, 3, "责任鸡", 6, "D19"),
        ]
    )


def test_D19_pung_of_yaoji_turned_into_zhuanwan_dou_counts_four() -> None:
    """D19: "*m* is the meld's chicken count at the end of the hand: 3 for a 碰, and 4 for a
    杠, including a 碰 later turned into 转弯豆." Both ready: "the discarder pays the claimer
    *m* + 2" = 4 + 2 = 6, not 5."""
    # Three players. The dealer discards the first 1s (then ready on 5p: 123m 456m 789m
    # 234p 5p) and seat 1 碰s it (11s), throwing 9m (then ready on 5m: 234s 567s 789p 5m).
    # Seat 2 draws and throws 1p, the dealer draws and throws 9s. Seat 1 draws the fourth 1s
    # and adds it (转弯豆; nobody waits on 1s, so no 抢杠), throws the replacement 2m. Seat 2
    # self-draws 7s (平胡: 456m 345p 678p 22s 777s).
    rnd = deal(
        DUYUN,
        ["123m456m789m234p5p1s", "11s234s567s789p5m9m", "456m345p678p22s77s"],
        draws="1p9s1s7s",
        back="2m",
        **OFF,
    )
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:discard:1p", "0:discard:9s")
    play(rnd, "1:kong:1s")
    assert rnd.window is None and rnd.turn == 1
    assert [(m.kind, m.tile) for m in rnd.seats[1].melds] == [(MeldKind.ADDED_KONG, Tile.S1)]
    play(rnd, "1:discard:2m", "2:win")
    assert [rnd.is_ready(s) for s in range(3)] == [True, True, True]
    assert sorted(lines(rnd)) == sorted(
        [
            # seat 2's 自摸 平胡: 1 + 自摸 1 from each, 连庄 1 from the dealer (D10, D10a)
            *each_pays([0], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a")),
            *each_pays([1], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
            # seat 1's 转弯豆: 3 from each other player (D11; seat 1 is ready)
            *each_pays([0, 2], 1, ("转弯豆", 3, "D11")),
            # toward seat 2, outside the pair, the 1111s counts under D18: 4 × 1
            (2, 1, "幺鸡", 4, "D18"),
            # between the pair, both ready: m + 2 = 4 + 2
            (0, 1, "责任鸡", 6, "D19"),
        ]
    )
