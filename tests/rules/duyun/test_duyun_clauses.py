"""都匀: clauses an audit found implemented but untested (D8, D11, D17, D19, D21).

Every expected line below is worked out by hand from the ruling it names; the comments show
the sums. ``fanji`` is off throughout, so the only chicken tile is ``1s``.

D5 ``auto_play_after`` (托管 after a number of timeouts in a row) is not tested here: the
rules package only declares the setting (checked in ``test_duyun_flow``) and offers
``Round.timeout_action``; counting consecutive timeouts and entering 托管 lives in
``apps/matches/lifecycle.py``, outside the rules package.
"""

from __future__ import annotations

from majiang.actions import Action, ActionType
from majiang.state import MeldKind
from majiang.tiles import Tile
from tests.rules.scenario import DUYUN, deal, each_pays, lines, pays_each, play, play_out

OFF = {"fanji": "off"}

PINGHU_ZIMO = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"))
STREAK = ("连庄", 1, "D10a")

# -- D21: a 1s meld costs a not-ready player nothing on 黄庄 --------------------------------

# Three players. The dealer discards the table's first 1s; seat 1 碰s it (111s) and throws
# 9m, leaving 2468s 13579p 4m: not ready. Seat 2 holds a 小七对 waiting on 9s, and the dealer
# holds the other three 9s, so nobody can ever win and the wall runs out (黄庄).
D21_CLAIMER = "11s2468s13579p49m"
D21_READY = "22m44m66m88m33p55p9s"


def test_D21_yaoji_pung_of_a_not_ready_player_costs_nothing_on_huangzhuang() -> None:
    """D21.3: "Each not-ready player pays each other player for the unclaimed `1s` still in
    their river … Only the river counts here …; `1s` melds cost nothing on 黄庄." D21.1: "no
    责任鸡 is settled". The not-ready seat 1 has a 碰 of 1s and no 1s in its river: it pays no
    鸡. The not-ready dealer's first 1s was claimed (not "unclaimed … in their river"): no
    英雄鸡; its other 1s is hidden in its hand and costs nothing either."""
    rnd = deal(DUYUN, ["1357m2468p3s999s11s", D21_CLAIMER, D21_READY], **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m")
    assert [(m.kind, m.tile) for m in rnd.seats[1].melds] == [(MeldKind.PUNG, Tile.S1)]
    play_out(rnd, no_wins=True)
    assert rnd.end_reason == "exhausted" and rnd.wins == []
    assert [rnd.is_ready(s) for s in range(3)] == [False, False, True]
    # D21.2 查叫: seat 2's best pattern over its wait 9s is 小七对 = 10, from each not-ready
    # seat. D21.3: nothing else (no 1s left in any not-ready river).
    assert sorted(lines(rnd)) == sorted([(0, 2, "查叫", 10, "D21"), (1, 2, "查叫", 10, "D21")])


def test_D21_pung_owner_pays_only_for_its_later_river_yaoji_on_huangzhuang() -> None:
    """D21.3 as above, but seat 1 later draws the fourth 1s and discards it: it pays "1 for
    each later one" in its river to each other player, and still nothing for its 111s meld
    (1, not 1 + 3)."""
    # seat 2 draws and throws 1m, the dealer 1p, seat 1 the fourth 1s; then play runs out.
    rnd = deal(DUYUN, ["1357m2468p37s999s1s", D21_CLAIMER, D21_READY], draws="1m1p1s", **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m")
    play(rnd, "2:discard:1m", "0:discard:1p", "1:discard:1s")
    play_out(rnd, no_wins=True)
    assert rnd.end_reason == "exhausted" and rnd.wins == []
    assert [rnd.is_ready(s) for s in range(3)] == [False, False, True]
    assert sorted(lines(rnd)) == sorted(
        [
            (0, 2, "查叫", 10, "D21"),
            (1, 2, "查叫", 10, "D21"),
            (1, 0, "幺鸡", 1, "D21"),
            (1, 2, "幺鸡", 1, "D21"),
        ]
    )


# -- D19: 责任鸡 at three players -------------------------------------------------------------

# The dealer discards the table's first 1s, seat 1 碰s it and throws 9m; seat 2 (456m 345p
# 678p 22s 77s) self-draws 7s (平胡) unless said otherwise. At three players seat 2 is the
# only player outside the pair.
READY_DEALER = "123m456m789m234p5p1s"  # ready on 2p/5p after the 1s
NOT_READY_DEALER = "123m456m789m24p58p1s"
READY_CLAIMER = "11s234s567s789p5m9m"  # ready on 5m after 碰 and 9m
NOT_READY_CLAIMER = "11s234s567s78p5m9m3p"
OUTSIDE = "456m345p678p22s77s"
# seat 2's 自摸 平胡: 1 + 自摸 1 from each, and 连庄 1 from the dealer (D10, D10a)
WIN_2 = each_pays([0], 2, *PINGHU_ZIMO, STREAK) + each_pays([1], 2, *PINGHU_ZIMO)


def _zeren_3(dealer: str, claimer: str) -> list[tuple[int, int, str, int, str]]:
    rnd = deal(DUYUN, [dealer, claimer, OUTSIDE], draws="7s", **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:win")
    return sorted(lines(rnd))


def test_D19_three_players_both_not_ready_each_pays_the_one_outside_player_3() -> None:
    """D19, both not ready: "nothing between them; instead each of the two pays every player
    outside the pair 3 …, and this replaces the claimer's D18 payments for the meld". At
    three players "every player outside the pair" is the one other seat: two lines of 3, and
    no 幺鸡 line for the claimer's 111s."""
    assert _zeren_3(NOT_READY_DEALER, NOT_READY_CLAIMER) == sorted(
        [*WIN_2, (0, 2, "责任鸡", 3, "D19"), (1, 2, "责任鸡", 3, "D19")]
    )


def test_D19_three_players_claimer_not_ready_pays_8_and_its_meld_to_the_outsider() -> None:
    """D19, discarder ready, claimer not ready: "the claimer pays the discarder 8". "Toward
    players outside the pair, the claimer's meld counts under D18 as usual": not ready, it
    pays the outsider for the three exposed 1s of its 碰 (D18), 3 × 1."""
    assert _zeren_3(READY_DEALER, NOT_READY_CLAIMER) == sorted(
        [*WIN_2, (1, 0, "责任鸡", 8, "D19"), (1, 2, "幺鸡", 3, "D18")]
    )


def test_D19_three_players_both_ready_claimer_wins() -> None:
    """D19, both ready (the claimer by winning): "the discarder pays the claimer *m* + 2" =
    3 + 2 = 5 for a 碰; toward the outsider the 111s counts under D18, 3 × 1."""
    # seat 2 draws and throws 1p, the dealer 9p; seat 1 self-draws 5m: 111s 234s 567s 789p
    # 55m, 平胡.
    rnd = deal(DUYUN, [READY_DEALER, READY_CLAIMER, OUTSIDE], draws="1p9p5m", **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m", "2:discard:1p", "0:discard:9p")
    play(rnd, "1:win")
    assert [rnd.is_ready(s) for s in range(3)] == [True, True, True]
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0], 1, *PINGHU_ZIMO, STREAK),
            *each_pays([2], 1, *PINGHU_ZIMO),
            (0, 1, "责任鸡", 5, "D19"),
            (2, 1, "幺鸡", 3, "D18"),
        ]
    )


# -- D8: one 包牌 line per payee for each occurrence -----------------------------------------


def test_D8_two_locked_chances_in_one_lock_give_two_sets_of_baopai_lines() -> None:
    """D8: "Settlement posts one `包牌` line per payee for each occurrence". Four players.
    Seat 1 (222m 444m 666m 999s 5p) waits on 5p for 大对子 (5). It passes seat 2's 5p (the
    lock; that pass itself is no occurrence: it was offered). Seat 3 and then the dealer each
    discard 5p before seat 1 draws again: two occurrences, so 2 × 3 lines of 5, not one set
    and not lines of 10."""
    rnd = deal(
        DUYUN,
        [
            "13579m1379p3468s5s",
            "222m444m666m999s5p",
            "456m234p678p22s77s",
            "13579m1379p3468s",
        ],
        draws="8m5p5p5p5s7s",
        **OFF,
    )
    play(rnd, "0:discard:5s", "1:discard:8m", "2:discard:5p")
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1:pass", "3:discard:5p", "0:discard:5p")
    assert [(c.seat, c.tile, c.from_seat) for c in rnd.locked_chances] == [
        (1, Tile.P5, 3),
        (1, Tile.P5, 0),
    ]
    # seat 1 draws (the lock ends) and throws 5s; seat 2 self-draws 7s: 456m 234p 678p 22s
    # 777s, 平胡.
    play(rnd, "1:discard:5s", "2:win")
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0], 2, *PINGHU_ZIMO, STREAK),
            *each_pays([1, 3], 2, *PINGHU_ZIMO),
            *pays_each(1, [0, 2, 3], ("包牌", 5, "D8")),
            *pays_each(1, [0, 2, 3], ("包牌", 5, "D8")),
        ]
    )


# -- D11: 暗豆 and 转弯豆 at four players -----------------------------------------------------


def test_D11_four_players_angang_paid_3_by_each_of_the_three_others() -> None:
    """D11: 暗豆 / 闷豆 "four in hand, concealed kong": "each other player pays 3", three
    payers at four players. The dealer kongs 6m on its first turn, throws the replacement 5p,
    and self-draws 9s after a round of draws: 6666m 234m 456p 789p 99s, 平胡."""
    rnd = deal(
        DUYUN,
        [
            "6666m234m456p789p9s",
            "13578m3579s2468p",
            "1357m2468s1379p5s",
            "89m2468s123p357s8p",
        ],
        draws="9m4s6s9s",
        back="5p",
        **OFF,
    )
    play(rnd, "0:kong:6m", "0:discard:5p", "1:discard:9m", "2:discard:4s", "3:discard:6s")
    play(rnd, "0:win")
    assert [(m.kind, m.tile) for m in rnd.seats[0].melds] == [(MeldKind.CONCEALED_KONG, Tile.M6)]
    assert sorted(lines(rnd)) == sorted(
        each_pays([1, 2, 3], 0, *PINGHU_ZIMO, STREAK, ("暗豆", 3, "D11"))
    )


def test_D11_four_players_zhuanwan_dou_paid_3_by_each_of_the_three_others() -> None:
    """D11: 转弯豆 / 爬坡豆 "add a drawn fourth tile to your own 碰": "each other player pays 3",
    three payers at four players (not only the player whose 6s was 碰ed). Seat 2 碰s the
    dealer's 6s, later draws the fourth 6s, adds it and wins on the replacement 8s: 666s6s
    123m 456p 789p 88s, 平胡 杠上花 (D10: everyone pays 1 + 自摸 1 + 杠上花 1)."""
    rnd = deal(
        DUYUN,
        [
            "234566m2468p245p6s",
            "123m456m789m45p99s",
            "66s123m456p789p8s3s",
            "179m139p23457s89s",
        ],
        draws="5m7p8p6s",
        back="8s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "3:discard:5m", "0:discard:7p")
    play(rnd, "1:discard:8p", "2:kong:6s", "2:win")
    assert [(m.kind, m.tile) for m in rnd.seats[2].melds] == [(MeldKind.ADDED_KONG, Tile.S6)]
    item = (*PINGHU_ZIMO, ("杠上花", 1, "D10"), ("转弯豆", 3, "D11"))
    assert sorted(lines(rnd)) == sorted(
        each_pays([0], 2, *item, STREAK) + each_pays([1, 3], 2, *item)
    )


# -- D17: no 冲锋鸡 after the first 1s was claimed ---------------------------------------------


def test_D17_later_yaoji_of_a_ready_player_is_no_hero_chicken_after_claimed_first() -> None:
    """D17: "If the first `1s` is claimed, no later `1s` becomes 冲锋鸡." The dealer's first
    1s is 碰ed by seat 1 (责任鸡, both ready: m + 2 = 5). Seat 2 then draws and discards the
    fourth 1s and self-draws 7s. Its river 1s is an ordinary chicken it owns (满堂鸡, D16,
    D18): 1 from each other player, not 英雄鸡 3."""
    rnd = deal(DUYUN, [READY_DEALER, READY_CLAIMER, OUTSIDE], draws="1s1p9p7s", **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m")
    play(rnd, "2:discard:1s", "0:discard:1p", "1:discard:9p", "2:win")
    assert [rnd.is_ready(s) for s in range(3)] == [True, True, True]
    assert sorted(lines(rnd)) == sorted(
        [
            *WIN_2,
            *each_pays([0, 1], 2, ("幺鸡", 1, "D18")),
            (2, 1, "幺鸡", 3, "D18"),  # the 111s toward the outsider
            (0, 1, "责任鸡", 5, "D19"),
        ]
    )


def test_D17_later_yaoji_of_a_not_ready_player_is_no_hero_chicken_after_claimed_first() -> None:
    """D17 as above, but the not-ready dealer discards both the first 1s (碰ed by the ready
    seat 1: "discarder not ready, claimer ready: the discarder pays the claimer 8") and the
    fourth 1s. That later 1s is no 冲锋鸡 (which would cost 3 to each): under D18 a
    not-ready player pays each other player 1 for it, the pair partner included ("Their other
    chickens count between them under D18 as usual")."""
    rnd = deal(DUYUN, [NOT_READY_DEALER, READY_CLAIMER, OUTSIDE], draws="1p1s9p7s", **OFF)
    play(rnd, "0:discard:1s", "1:pung", "1:discard:9m")
    play(rnd, "2:discard:1p", "0:discard:1s", "1:discard:9p", "2:win")
    assert [rnd.is_ready(s) for s in range(3)] == [False, True, True]
    assert sorted(lines(rnd)) == sorted(
        [
            *WIN_2,
            (0, 1, "幺鸡", 1, "D18"),
            (0, 2, "幺鸡", 1, "D18"),
            (2, 1, "幺鸡", 3, "D18"),  # the 111s toward the outsider
            (0, 1, "责任鸡", 8, "D19"),
        ]
    )
