"""Edges of the 自贡 rulings not covered elsewhere: 多人抢杠 and 杠上炮 under 一牌多用 (Z21),
退税 to a payer who has won (Z17), two identical 萝卜 (Z13), a ticked 报杠 tile that also wins
on a discard (Z20), and the automatic discards of a 报叫 hand (Z6, Z19).

Every expected line is worked out by hand from ``shared/rules/zigong.md``.
"""

from __future__ import annotations

from majiang.actions import Action, ActionType
from majiang.record import record_of, replay
from majiang.state import MeldKind, Phase, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import ZIGONG, A, B, C, action, deal, lines, notes, play, play_out

# -- Z21: a 补杠 robbed by two players, 一牌多用 on ------------------------------------------

# Seat 1 pungs the dealer's 6s, draws the fourth 6s and adds it. Seats 2 (45s) and 3 (57s)
# both wait on 6s; they pass the dealer's 6s (a 地胡, which locks them, Z8) and release the
# lock with their next discard. Seat 1 is left with 123s 5s 456p 789p + the 6s kong: ready
# on 5s, which the dealer draws and discards after the kong.
DOUBLE_ROB_HANDS = [
    "6s1p3p5p7p1s2s4s7s8s3s2p8p9s",
    "66s123s5s456p789p9p",
    "123p456p789p45s99s",
    "123p456p789p57s88s",
]
DOUBLE_ROB_SCRIPT = (
    "2 pass; 3 pass; 0 discard 6s; 1 pung 6s; 2 pass; 3 pass; 1 discard 9p;"
    " 2 discard 1s; 3 discard 2s; 0 discard 4p; 1 kong 6s"
)


def test_Z21_two_robbers_void_the_kong_which_still_counts_as_gen() -> None:
    """Z21: with several robbers the robbed 补杠 is still made, its money is void, and it
    counts as 根 when the konger wins later."""
    rnd = deal(ZIGONG, DOUBLE_ROB_HANDS, draws="1s2s4p6s5s", back="6p", multi_use=True)
    play(rnd, DOUBLE_ROB_SCRIPT)
    assert rnd.phase is Phase.ROB and rnd.pending() == (2, 3)
    play(rnd, "2 win; 3 win")
    assert [(w.seat, w.source, w.from_seat) for w in rnd.wins] == [
        (2, WinSource.ROBBING, 1),
        (3, WinSource.ROBBING, 1),
    ]
    # The kong is completed anyway: seat 1 holds it and draws the replacement (6p).
    assert [(m.kind, m.tile) for m in rnd.seats[1].melds] == [(MeldKind.ADDED_KONG, Tile.S6)]
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.P6
    play(rnd, "1 discard 6p; 0 discard 5s; 1 win")
    assert rnd.end_reason == "last_player"
    # Robbers: 平胡 0 + 抢杠胡 1 = 1 → 2 each, paid by the robbed seat 1 (Z12).
    # No 补杠 line at all: void (Z21). Seat 1 on the dealer's 5s: 123s 456p 789p 55s + the
    # 6s kong: 平胡 0 + 根 1 = 1 → 2, paid by the discarder.
    assert lines(rnd) == [
        (1, 2, "牌型:平胡", 2, "Z11"),
        (1, 3, "牌型:平胡", 2, "Z11"),
        (0, 1, "牌型:平胡", 2, "Z11"),
    ]
    assert notes(rnd)[2] == "平胡+0 根+1 = 1番, 2^1=2"
    assert rnd.settlement().summary["void_kongs"] == [0]
    assert rnd.settlement().totals == (-2, -2, 2, 2)
    assert rnd.next_dealer() == (1, 1)  # Z5: after 多人抢杠胡 the robbed player deals


# -- Z21: one robber, then 杠上炮 on the konger's replacement discard ------------------------

# 3 players. Seat 1 pungs the dealer's 6s and adds the fourth; seat 2 (57s) robs it alone.
# The kong is made all the same: seat 1 draws 2p from the back and discards it, and the
# dealer (234s 789s 123p 13p 55p, waiting on 2p) wins it: 杠上炮.
GSP_HANDS = ["6s234s789s123p13p55p", "66s123s5s456p789p9p", "123p456p789p57s88s"]


def test_Z21_gangshangpao_after_a_robbed_kong_gets_no_transfer() -> None:
    """Z21: the robbed kong's money went to the one robber, final; the player who then wins
    the konger's replacement discard (杠上炮) gets no 呼叫转移 for that kong."""
    rnd = deal(ZIGONG, GSP_HANDS, draws="9s1s6s", back="2p", multi_use=True)
    play(
        rnd,
        "2 pass; 0 discard 6s; 1 pung 6s; 2 pass; 1 discard 9p; 2 discard 9s; 0 discard 1s;"
        " 1 kong 6s",
    )
    assert rnd.phase is Phase.ROB and rnd.pending() == (2,)
    play(rnd, "2 win")
    assert [(m.kind, m.tile) for m in rnd.seats[1].melds] == [(MeldKind.ADDED_KONG, Tile.S6)]
    play(rnd, "1 discard 2p")
    assert rnd.legal_actions(0) == [Action(ActionType.WIN, 0), Action(ActionType.PASS, 0)]
    play(rnd, "0 win")
    assert rnd.end_reason == "last_player"
    assert rnd.wins[-1].after_kong_discard
    # 补杠: 1 from each other seat still in the hand, i.e. the dealer only (seat 2 has just
    # won); that 1 goes to the robber (Z21). Robber: 平胡 0 + 抢杠胡 1 → 2 from seat 1.
    # Dealer: 234s 789s 123p 123p 55p, 平胡 0 + 杠上炮 1 → 2 from seat 1; no 呼叫转移.
    assert lines(rnd) == [
        (0, 1, "补杠", 1, "Z14"),
        (1, 2, "抢杠转移", 1, "Z21"),
        (1, 2, "牌型:平胡", 2, "Z11"),
        (1, 0, "牌型:平胡", 2, "Z11"),
    ]
    assert rnd.settlement().totals == (1, -4, 3)


def test_Z21_gangshangpao_after_a_robbed_kong_transfers_no_kong_of_that_turn() -> None:
    """Z21 over Z15: seat 1 makes an 暗杠 and then a 补杠 in one turn; the 补杠 is robbed, and
    the replacement discard is won (杠上炮). "That winner gets no transfer": the 暗杠's money
    stays with seat 1 instead of moving to the 杠上炮 winner as Z15 alone would have it."""
    hands = ["6s234s789s123p13p55p", "66s1111s5s456p78p9s", "123p456p789p57s88s"]
    rnd = deal(ZIGONG, hands, draws="9s9p6s", back="3s2p", multi_use=True)
    play(rnd, "2 pass; 0 discard 6s; 1 pung 6s; 2 pass; 1 discard 9s; 2 discard 9s;"
             " 0 discard 9p; 1 kong 1s; 1 kong 6s")
    assert rnd.phase is Phase.ROB and rnd.pending() == (2,)
    play(rnd, "2 win; 1 discard 2p; 0 win")
    assert rnd.wins[-1].after_kong_discard and rnd.end_reason == "last_player"
    # 暗杠 1s: 2 from each other seat (Z14), kept. 补杠 6s: 1 from the dealer (seat 2 has
    # won), passed to the robber (Z21). Robber and 杠上炮 winner: 平胡 0 + 1 → 2 each.
    assert lines(rnd) == [
        (2, 1, "暗杠", 2, "Z14"),
        (0, 1, "暗杠", 2, "Z14"),
        (0, 1, "补杠", 1, "Z14"),
        (1, 2, "抢杠转移", 1, "Z21"),
        (1, 2, "牌型:平胡", 2, "Z11"),
        (1, 0, "牌型:平胡", 2, "Z11"),
    ]
    assert rnd.settlement().totals == (-1, 0, 1)


# -- Z17: 退税 also pays back a payer who has won ----------------------------------------------


def test_Z17_tuishui_refunds_a_payer_who_already_won() -> None:
    """Z17: the konger is not ready at exhaustion; everyone who paid for the kong gets it
    back, "including players who have already won"."""
    rnd = deal(
        ZIGONG,
        ["3333p1s4s7s2s5s8s1p5p8p9p", "123s456s789s46p99p", "1s2s3s4s5s7s8s1p2p4p6p7p8p"],
        draws="5p",
        back="6s",
    )
    play(rnd, "1 pass; 0 kong 3p; 0 discard 6s")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.P5
    play(rnd, "1 win")
    assert rnd.wins[0].payers == (2, 0)
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    assert not rnd.is_ready(0) and not rnd.is_ready(2)
    # 暗杠 2 from seats 1 and 2, both refunded (seat 1 has won by then). Seat 1's 自摸
    # 123s 456s 789s 456p 99p: 平胡 0 → 1, + 自摸加底 1, from seats 2 and 0. No 查叫: neither
    # seat left in the hand is ready.
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (0, 1, "退税", 2, "Z17"),
        (0, 2, "退税", 2, "Z17"),
        (2, 1, "牌型:平胡", 1, "Z11"),
        (2, 1, "自摸加底", 1, "Z11"),
        (0, 1, "牌型:平胡", 1, "Z11"),
        (0, 1, "自摸加底", 1, "Z11"),
    ]
    assert rnd.settlement().totals == (-2, 4, -2)


# -- Z13: two identical 萝卜 tiles -------------------------------------------------------------


def test_Z13_two_identical_luobo_each_count() -> None:
    """Z13: "two identical 萝卜 tiles count twice": one 6s in the winning hand with 萝卜 6s 6s
    adds 2 底分 per payer."""
    rnd = deal(ZIGONG, ["333p666p999p33s56s9s", A, B, C], draws="1s2s8s7s", back="6s6s", luobo=2)
    assert rnd.observation(2)["luobo"] == ["6s", "6s"]
    assert rnd.wall.remaining == 72 - 53 - 2
    play(rnd, "0 discard 9s; 1 discard 1s; 2 discard 2s; 3 discard 8s")
    assert rnd.seats[0].drawn is Tile.S7
    play(rnd, "0 win")
    play_out(rnd)
    # 333p 666p 999p 567s 33s: 平胡 0 → 1, 自摸加底 1, 萝卜 1 + 1 = 2, from each other seat.
    assert lines(rnd) == [
        line
        for p in (1, 2, 3)
        for line in (
            (p, 0, "牌型:平胡", 1, "Z11"),
            (p, 0, "自摸加底", 1, "Z11"),
            (p, 0, "萝卜", 2, "Z13"),
        )
    ]


# -- Z20: the fourth copy of a ticked tile is discarded and also wins --------------------------

BAOGANG_WIN_HANDS = ["1p2p3p5p6p8p9p2s3s4s5s6s7s9s", "111p23p111s23s678s"]


def test_Z20_ticked_tile_discarded_and_winning_offers_hu_first_then_kong() -> None:
    """Z20: a ticked tile whose fourth copy is discarded and also wins: 胡 is offered first;
    declining it triggers Z8 and the kong follows."""
    rnd = deal(ZIGONG, BAOGANG_WIN_HANDS, back="4p")
    play(rnd, "1 declare ticks=1p; 0 discard 1p")
    # 胡 first; the only other answer is the kong itself (declining; no plain 过).
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.KONG, 1, Tile.P1)]
    events = rnd.apply(action("1 kong 1p"))
    assert [(m.kind, m.tile, m.from_seat) for m in rnd.seats[1].melds] == [
        (MeldKind.EXPOSED_KONG, Tile.P1, 0)
    ]
    # The replacement 4p would complete 234p 11s 123s 678s (杠上开花), but the declined win
    # locks seat 1 until its next discard (Z8): no 胡 is offered and 4p is discarded for it.
    assert rnd.seats[1].draw_log == [Tile.P4]
    assert [e.tile for e in rnd.seats[1].river] == [Tile.P4]
    assert [(e.type, e.seat) for e in events if e.type == "auto"] == [("auto", 1)]
    assert rnd.wins == []
    assert rnd.seats[1].win_lock is False  # released by that discard
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    # 直杠 2 from the discarder; 查叫 on 4p: 平胡 0 + 根 1 + 报叫 1 = 2 → 4 (Z18).
    assert lines(rnd) == [(0, 1, "直杠", 2, "Z14"), (0, 1, "查叫", 4, "Z18")]


def test_Z20_timeout_on_the_ticked_winning_discard() -> None:
    """Z19/Z20: a timeout on the offered win follows ``timeout_takes_win``; when it does not
    take the win, it declines, and the kong follows."""
    for takes, expected in ((True, Action(ActionType.WIN, 1)), (False, None)):
        rnd = deal(ZIGONG, BAOGANG_WIN_HANDS, back="4p", timeout_takes_win=takes)
        play(rnd, "1 declare ticks=1p; 0 discard 1p")
        timeout = rnd.timeout_action(1)
        if expected is not None:
            assert timeout == expected
            continue
        assert timeout == Action(ActionType.KONG, 1, Tile.P1)
        rnd.apply(timeout)
        assert [m.tile for m in rnd.seats[1].melds] == [Tile.P1]
        assert rnd.wins == [] and [e.tile for e in rnd.seats[1].river] == [Tile.P4]


# -- Z6 / Z19: automatic 报叫 discards are no decisions, so never timeouts -------------------


def test_Z6_Z19_automatic_baojiao_discards_are_not_decisions() -> None:
    """Z6: "Automatic 报叫 discards (Z19) never count as timeouts": the declared seat's
    non-winning draws are discarded for it without it ever being asked (nothing pending,
    no timeout action), and they are not its actions in the record."""
    rnd = deal(ZIGONG, ["124578s124578p9s3p", "123s456s789s46p99p"], draws="3s")
    play(rnd, "1 declare")
    assert rnd.seats[1].declared and rnd.turn == 0
    events = rnd.apply(action("0 discard 3p"))
    # Inside the dealer's action: seat 1 draws 3s, it is discarded for it, the dealer draws.
    assert [(e.type, e.seat) for e in events] == [
        ("discard", 0),
        ("draw", 1),
        ("auto", 1),
        ("discard", 1),
        ("draw", 0),
    ]
    assert [e.tile for e in rnd.seats[1].river] == [Tile.S3]
    assert rnd.pending() == (0,) and rnd.timeout_action(1) is None
    # To the end of the hand: seat 1 is asked only when a win is offered to it (Z19); all
    # its other discards are made for it and are not among the recorded actions.
    asked = 0
    while not rnd.ended:
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
        if seat == 1:
            assert Action(ActionType.WIN, 1) in legal
            asked += 1
            rnd.apply(next(a for a in legal if a.type is not ActionType.WIN))
        elif rnd.window is not None:
            rnd.apply(Action(ActionType.PASS, seat))
        else:
            rnd.apply(Action(ActionType.DISCARD, seat, rnd.seats[seat].drawn))
    assert rnd.end_reason == "exhausted"
    recorded = [a for a in record_of(rnd)["actions"] if a["seat"] == 1]
    assert recorded[0] == {"seat": 1, "type": "declare"} and len(recorded) == 1 + asked
    assert len(rnd.seats[1].river) > asked
    assert replay(record_of(rnd)).snapshot() == rnd.snapshot()
