"""都匀: edges of the rulings not exercised elsewhere (D4, D8, D11, D14, D15, D16).

Every expected line below is worked out from the ruling it names; the comments show the sums.
"""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.match import Match
from majiang.round import Round
from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play, play_out

OFF = {"fanji": "off"}

# -- D4: 黄庄 passes the deal 顺时针 (d, d-1, d-2, …), against the turn order -----------------

# A ready hand waiting on 5s alone, and two hands that are far from ready. The four 5s are
# all dealt (one in each hand), so nobody can win and every hand ends 黄庄 with these states.
READY = "123m456m789m123p5s"
NOT_READY = ("2469m1357s24689p", "1358m2579s13579p")


def _exhausted_four(states: str, dealer: int, streak: int = 2) -> Round:
    """A four-player 黄庄 where seat ``i`` is ready iff ``states[i] == "R"``."""
    spare = iter(NOT_READY)
    hands = [READY if state == "R" else next(spare) for state in states]
    hands[dealer] += "9s"  # the dealer's 14th tile, discarded first
    rnd = deal(DUYUN, hands, dealer=dealer, streak=streak, **OFF)
    play(rnd, f"{dealer}:discard:9s")
    play_out(rnd, no_wins=True)
    assert rnd.end_reason == "exhausted"
    assert [rnd.is_ready(s) for s in range(4)] == [state == "R" for state in states]
    return rnd


@pytest.mark.parametrize(
    ("states", "dealer", "expected"),
    [
        # d = 0 ready; d-1 = seat 3 is not ready and takes the deal (turn order: seat 1).
        ("RNRN", 0, (3, 1)),
        # d = 0 and d-1 = 3 ready; d-2 = seat 2 takes it (turn order: seat 1).
        ("RNNR", 0, (2, 1)),
        # d = 1 and d-1 = 0 ready; d-2 wraps to seat 3 (turn order: seat 2).
        ("RRNN", 1, (3, 1)),
        # a dealer who is not ready keeps the deal: the search starts at d itself.
        ("NRNR", 0, (0, 3)),
        # everybody ready: the dealer stays.
        ("RRRR", 2, (2, 3)),
    ],
)
def test_D4_huangzhuang_next_dealer_goes_clockwise_from_the_dealer(
    states: str, dealer: int, expected: tuple[int, int]
) -> None:
    assert _exhausted_four(states, dealer).next_dealer() == expected


def _pass_everything(rnd: Round) -> None:
    """Play a hand out without ever winning: pass every claim, discard every drawn tile."""
    while not rnd.ended:
        seat = rnd.pending()[0]
        if rnd.window is not None:
            rnd.apply(Action(ActionType.PASS, seat))
            continue
        s = rnd.seats[seat]
        tile = s.drawn if s.drawn is not None else max(s.concealed())
        rnd.apply(Action(ActionType.DISCARD, seat, tile))


@pytest.mark.parametrize("hands", [4, 8, 16])
def test_D4_a_match_is_hands_per_match_hands_huangzhuang_included(hands: int) -> None:
    match = Match.start(DUYUN, {"hands_per_match": hands}, seed="d4", opener=2)
    assert match.dealer == 2  # the first dealer is the player who opened the room
    for number in range(hands):
        assert not match.over
        rnd, _ = match.deal(f"d4-{number}")
        _pass_everything(rnd)
        assert rnd.end_reason == "exhausted" and not rnd.wins  # every hand is 黄庄
        match.finish(rnd)
        assert match.hands_played == number + 1
        assert (match.dealer, match.streak) == rnd.next_dealer()
    assert match.over
    with pytest.raises(ValueError, match="over"):
        match.deal("one more")


# -- D8: the 过胡 lock and 包牌 around a robbable 转弯豆 ---------------------------------------

# The dealer discards 6m and seat 1 pungs it (66m); seat 2 then draws 5m and discards 9p,
# which leaves it 清一色 waiting on 3m and 6m (123m 2222m 45m 789m 99m). 清一色 may win on a
# discard without 豆 (D7) and on a 转弯豆 (D14). Seat 1 draws the fourth 6m later and adds it.
D8_HANDS = ["6m2345689s134578p", "66m24578s235689p", "123m222m789m99m4m9p"]
D8_START = ("0:discard:6m", "1:pung", "1:discard:2s", "2:discard:9p")
# Seat 2 wins 自摸 清一色 on 3m at the end: each pays 10 + 自摸 1, the dealer also 连庄 1;
# seat 1 is not ready, so its 转弯豆 is not paid (D12); nobody holds a chicken.
D8_WIN = [
    *each_pays([0, 1], 2, ("牌型:清一色", 10, "D6"), ("自摸", 1, "D10")),
    (0, 2, "连庄", 1, "D10a"),
]


def test_D8_passing_a_robbable_zhuanwan_dou_locks_until_the_next_draw() -> None:
    # The dealer draws and discards 7p. Seat 1 draws the fourth 6m and adds it: seat 2 may
    # rob it and passes, which locks it. Seat 1's replacement is 3m, which it discards (a
    # 热炮 that seat 2 could legally win): seat 2 is locked, so it is not offered, and owes
    # 包牌 of the 清一色 3m would make (10 to each other player). Seat 2 then draws 3m: the
    # draw ends the lock and the 自摸 is allowed.
    rnd = deal(DUYUN, D8_HANDS, draws="5m7p6m3m", back="3m", **OFF)
    play(rnd, *D8_START, "0:discard:7p", "1:kong:6m")
    assert rnd.window is not None and rnd.pending() == (2,)
    assert rnd.legal_actions(2) == [Action(ActionType.WIN, 2), Action(ActionType.PASS, 2)]
    play(rnd, "2:pass")
    assert rnd.seats[2].win_lock
    assert rnd.seats[1].melds[0].kind is MeldKind.ADDED_KONG
    play(rnd, "1:discard:3m")
    assert rnd.window is None and rnd.turn == 2  # not offered; seat 2 drew at once
    assert not rnd.seats[2].win_lock
    [chance] = rnd.locked_chances
    assert (chance.seat, chance.tile, chance.from_seat, chance.source) == (
        2,
        Tile.M3,
        1,
        WinSource.DISCARD,
    )
    play(rnd, "2:win")
    assert not rnd.is_ready(1)
    assert sorted(lines(rnd)) == sorted(
        [*D8_WIN, (2, 0, "包牌", 10, "D8"), (2, 1, "包牌", 10, "D8")]
    )


def test_D8_a_locked_player_owes_baopai_for_a_robbable_zhuanwan_dou() -> None:
    # The dealer draws and discards 3m: seat 2 may win 清一色 and passes (locked). Seat 1
    # then draws the fourth 6m and adds it before seat 2 draws again: seat 2 could rob it
    # but is locked, so no rob is offered, the kong stands, and seat 2 owes 包牌 of the
    # 清一色 6m would make (10 to each). Seat 1 discards its replacement 9s; seat 2 draws 3m
    # and wins.
    rnd = deal(DUYUN, D8_HANDS, draws="5m3m6m3m", back="9s", **OFF)
    play(rnd, *D8_START, "0:discard:3m")
    assert rnd.legal_actions(2) == [Action(ActionType.WIN, 2), Action(ActionType.PASS, 2)]
    play(rnd, "2:pass")
    assert rnd.seats[2].win_lock and rnd.locked_chances == []
    play(rnd, "1:kong:6m")
    assert rnd.window is None and rnd.turn == 1  # no rob window: the kong was made
    assert rnd.seats[1].melds[0].kind is MeldKind.ADDED_KONG
    [chance] = rnd.locked_chances
    assert (chance.seat, chance.tile, chance.from_seat, chance.source) == (
        2,
        Tile.M6,
        1,
        WinSource.ROBBING,
    )
    play(rnd, "1:discard:9s", "2:win")
    assert sorted(lines(rnd)) == sorted(
        [*D8_WIN, (2, 0, "包牌", 10, "D8"), (2, 1, "包牌", 10, "D8")]
    )


# -- D11: no kong when the wall has no tile left to replace it --------------------------------


# Three hands far from ready; 9p is the last wall tile (back).
D11_DEALER = "1357m2468s2468p5s9s"
D11_OTHER = "2468m1357s1357p9m"


def test_D11_no_concealed_kong_on_the_last_wall_tile() -> None:
    # 68 tiles are left after the deal at three players; with no claims seat 2 draws the
    # last one, its fourth 9p.
    rnd = deal(DUYUN, [D11_DEALER, D11_OTHER, "999p1359m2479s36p"], back="9p", **OFF)
    play(rnd, "0:discard:9s")
    play_out(rnd, no_wins=True, last_draw=True)
    assert rnd.turn == 2 and rnd.seats[2].drawn is Tile.P9 and rnd.seats[2].hand[Tile.P9] == 4
    assert Action(ActionType.KONG, 2, Tile.P9) not in rnd.legal_actions(2)
    with pytest.raises(IllegalActionError):
        rnd.apply(Action(ActionType.KONG, 2, Tile.P9))


def test_D11_the_same_concealed_kong_is_allowed_with_tiles_left() -> None:
    rnd = deal(DUYUN, [D11_DEALER, D11_OTHER, "999p1359m2479s36p"], draws="2p9p", **OFF)
    play(rnd, "0:discard:9s", "1:discard:2p")
    assert rnd.turn == 2 and rnd.wall.remaining > 0
    assert Action(ActionType.KONG, 2, Tile.P9) in rnd.legal_actions(2)


def test_D11_no_zhuanwan_dou_on_the_last_wall_tile() -> None:
    # Seat 1 draws 2p and discards it, seat 2 draws 9p and discards it, and the dealer pungs
    # it (99p), which skips seat 0's draw: of the 66 draws left, the dealer takes the last,
    # its fourth 9p, drawn after the 碰.
    dealer = "1357m2468s2468p99p"
    rnd = deal(DUYUN, [dealer, D11_OTHER, "135589m2479s367p"], draws="2p9p", back="9p", **OFF)
    play(rnd, "0:discard:8p", "1:discard:2p", "2:discard:9p", "0:pung", "0:discard:1m")
    play_out(rnd, no_wins=True, last_draw=True)
    assert rnd.turn == 0 and rnd.seats[0].drawn is Tile.P9
    assert rnd.seats[0].melds[0].kind is MeldKind.PUNG
    assert Action(ActionType.KONG, 0, Tile.P9) not in rnd.legal_actions(0)
    with pytest.raises(IllegalActionError):
        rnd.apply(Action(ActionType.KONG, 0, Tile.P9))


def test_D11_no_exposed_kong_on_the_last_discard() -> None:
    # Seat 1 holds 999p; seat 2 draws the last tile, the fourth 9p, and discards it: no 杠
    # (nor 碰) is offered and the hand is 黄庄 (D3, D11).
    rnd = deal(DUYUN, [D11_DEALER, "2468m1357s13p999p", "135589m2479s367p"], back="9p", **OFF)
    play(rnd, "0:discard:9s")
    play_out(rnd, no_wins=True, last_draw=True)
    assert rnd.turn == 2 and rnd.seats[2].drawn is Tile.P9
    play(rnd, "2:discard:9p")
    assert rnd.ended and rnd.end_reason == "exhausted"
    assert rnd.seats[1].melds == [] and rnd.kongs == []


# -- D14: several players rob one 转弯豆 -----------------------------------------------------


def test_D14_two_players_rob_one_zhuanwan_dou() -> None:
    # The dealer discards 6s and seat 2 pungs it. Seat 2 later draws the fourth 6s and adds
    # it. The dealer (57s) and seat 1 (45s) both complete a 平胡 with 6s and both rob it,
    # with no 豆 (D14). Seat 2 pays each robber 10 + 1 (平胡); the dealer robber also gets
    # its 连庄 1 (D10a). The kong does not happen and seat 2 keeps its 碰. The dealer, a
    # winner, keeps the deal (D4).
    rnd = deal(
        DUYUN,
        ["123m456m789p57s22p6s", "123m456m789m45s99p", "66s3579m3579p38s4p"],
        draws="7p8p6s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:6s")
    assert rnd.pending() == (0, 1)
    play(rnd, "1:win")
    assert not rnd.ended and rnd.pending() == (0,)  # the window waits for the dealer
    play(rnd, "0:win")
    assert sorted((w.seat, w.source, w.from_seat) for w in rnd.wins) == [
        (0, WinSource.ROBBING, 2),
        (1, WinSource.ROBBING, 2),
    ]
    assert rnd.seats[2].melds[0].kind is MeldKind.PUNG and rnd.kongs == []
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 0, "牌型:平胡", 1, "D6"),
            (2, 0, "抢杠", 10, "D14"),
            (2, 0, "连庄", 1, "D10a"),
            (2, 1, "牌型:平胡", 1, "D6"),
            (2, 1, "抢杠", 10, "D14"),
        ]
    )
    assert list(rnd.settlement().totals) == [12, 11, -23]
    assert rnd.next_dealer() == (0, 2)


# -- D15: 翻鸡 wraps 9 → 1 -----------------------------------------------------------------

# The dealer's 天胡 平胡 (123m 456m 789m 234p 55p); seat 1 ready on 2p (678m 123s 456p 789p
# 2p); seat 2 not ready (3569m 13579s 2468p): its chickens cost it nothing (D18).
FANJI_HANDS = ["123m456m789m234p55p", "678m123s456p789p2p", "3569m13579s2468p"]
TIANHU = (("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a"))


@pytest.mark.parametrize(
    ("fanji", "turned", "chickens", "jin", "expected"),
    [
        # 9m turned, rank 9 + 1 wraps to 1: 1m. The dealer's 123m holds it; seat 1 has 1s.
        (
            "next",
            "9m",
            {"1m", "1s"},
            False,
            [
                *each_pays([1, 2], 0, ("翻牌鸡", 1, "D18")),
                *each_pays([0, 2], 1, ("幺鸡", 1, "D18")),
            ],
        ),
        # 1p turned, up and down: 2p and 9p (1 - 1 wraps to 9). The dealer's 234p holds a
        # 2p; seat 1 holds 9p (789p) and 2p, and 1s.
        (
            "up_down",
            "1p",
            {"2p", "9p", "1s"},
            False,
            [
                *each_pays([1, 2], 0, ("上下鸡", 1, "D18")),
                *each_pays([0, 2], 1, ("幺鸡", 1, "D18"), ("上下鸡", 2, "D18")),
            ],
        ),
        # 9s turned, up and down: 8s, and 1s by the wrap. 1s is 金鸡 and is counted once,
        # at 2 (D15, D18); nobody holds an 8s.
        (
            "up_down",
            "9s",
            {"8s", "1s"},
            True,
            each_pays([0, 2], 1, ("金鸡", 2, "D15")),
        ),
    ],
)
def test_D15_turned_chicken_wraps_nine_to_one(
    fanji: str,
    turned: str,
    chickens: set[str],
    jin: bool,
    expected: list[tuple[int, int, str, int, str]],
) -> None:
    rnd = deal(DUYUN, FANJI_HANDS, draws=turned, fanji=fanji)
    play(rnd, "0:win")
    summary = rnd.settlement().summary
    assert summary["fanji"] == turned
    assert set(summary["chicken_tiles"]) == chickens
    assert summary["jin_ji"] is jin
    assert sorted(lines(rnd)) == sorted(each_pays([1, 2], 0, *TIANHU) + expected)


# -- D16: the winning tile is a chicken in each winner's hand ----------------------------------


def test_D16_a_won_on_yaoji_counts_in_the_hand_of_each_winner() -> None:
    # The dealer's first discard is 1s (the table's first); seats 1 (23s) and 2 (23s) both
    # win 平胡 on it (allowed without 豆 by the setting, D7). The dealer pays each 1 + 连庄 1.
    # The 1s leaves the dealer's river: it is no 英雄鸡 (D17) and the not-ready dealer
    # exposed no 1s (D18). It counts once in each winner's hand, so each winner collects
    # 幺鸡 1 from both other players (D16, D18).
    rnd = deal(
        DUYUN,
        ["1s3579m2468s35678p", "23s456m789m234p55p", "23s123m456p789p99m"],
        pinghu_discard_needs_dou=False,
        **OFF,
    )
    play(rnd, "0:discard:1s", "1:win", "2:win")
    assert [w.seat for w in rnd.wins] == [1, 2] and not rnd.is_ready(0)
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0], 1, ("牌型:平胡", 1, "D6"), ("连庄", 1, "D10a")),
            *each_pays([0], 2, ("牌型:平胡", 1, "D6"), ("连庄", 1, "D10a")),
            *each_pays([0, 2], 1, ("幺鸡", 1, "D18")),
            *each_pays([0, 1], 2, ("幺鸡", 1, "D18")),
        ]
    )
    result = rnd.settlement()
    assert list(result.totals) == [-6, 3, 3]
    assert [dict(p["ji"]) for p in result.players] == [{}, {"幺鸡": 1}, {"幺鸡": 1}]
    assert rnd.next_dealer() == (1, 1)  # D4: the first winner from d+1
