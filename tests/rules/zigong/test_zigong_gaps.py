"""Rulings asserted more weakly elsewhere than their text says: the last-tile discard and the
胡 > 杠 precedence (Z3), 直杠 under a 过手碰 lock (Z7), the 过手胡 lock after a passed 抢杠 (Z8),
a 自摸 winner's open tiles and the next drawer (Z4), the count of hands in a match (Z5),
双龙七对 and 三龙七对 (Z11), and a void kong that still counts as 根 (Z15).

Every expected line is worked out by hand from ``shared/rules/zigong.md``.
"""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.match import Match
from majiang.round import Round
from majiang.state import MeldKind, Phase, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, notes, play, play_out

# -- Z3: the discard of the last wall tile --------------------------------------------------

# 2 players. The dealer holds 111p 23p 456s 789s 99s (after discarding 5p): it waits on 1p
# and 4p and holds three 1p, so a 1p discard could be won, 碰'd or 杠'd. Seat 1 holds 13
# single tiles and is never ready. The fourth 1p is the last wall tile (``back``): 72 − 27 =
# 45 tiles are left after the deal, and seat 1 draws the odd ones, so the 45th.
LAST_TILE_HANDS = ["111p23p456s789s99s5p", "1234578s24578p6p"]


def _discard_drawn_until_the_wall_is_empty(rnd: Round) -> None:
    """Pass every window and discard every drawn tile until the last tile has been drawn."""
    while rnd.wall.remaining > 0:
        seat = rnd.pending()[0]
        if rnd.window is not None:
            play(rnd, f"{seat} pass")
        else:
            rnd.apply(Action(ActionType.DISCARD, seat, rnd.seats[seat].drawn))


def test_Z3_last_tile_discard_can_be_won_not_punged_or_konged() -> None:
    """Z3: "The discard of the last wall tile may be won on, but not claimed with 碰 or 杠."
    The same 1p discarded while the wall still has tiles offers 胡, 杠 and 碰."""
    # Control: seat 1 draws 1p first and discards it mid-hand.
    rnd = deal(ZIGONG, LAST_TILE_HANDS, draws="1p")
    play(rnd, "0 discard 5p; 1 discard 1p")
    assert rnd.legal_actions(0) == [
        Action(ActionType.WIN, 0),
        Action(ActionType.KONG, 0, Tile.P1),
        Action(ActionType.PUNG, 0, Tile.P1),
        Action(ActionType.PASS, 0),
    ]
    # The ruling: the same 1p as the last wall tile.
    rnd = deal(ZIGONG, LAST_TILE_HANDS, back="1p")
    play(rnd, "0 discard 5p")
    _discard_drawn_until_the_wall_is_empty(rnd)
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.P1
    held = " ".join(t.code for t in rnd.seats[0].concealed())
    assert held == "4s 5s 6s 7s 8s 9s 9s 9s 1p 1p 1p 2p 3p"
    play(rnd, "1 discard 1p")
    assert rnd.legal_actions(0) == [Action(ActionType.WIN, 0), Action(ActionType.PASS, 0)]
    play(rnd, "0 win")
    assert rnd.end_reason == "last_player"
    # 111p 123p 456s 789s 99s on seat 1's discard, holding all four 1p: 平胡 0 + 根 1 = 1
    # → 2^1 = 2 from the discarder.
    assert lines(rnd) == [(1, 0, "牌型:平胡", 2, "Z11")]
    assert notes(rnd) == ["平胡+0 根+1 = 1番, 2^1=2"]


# 4 players. Seat 1 holds 555p (could 杠 or 碰 the dealer's 5p); seat 2 waits on 5p.
HU_OVER_KONG_HANDS = [
    "124578s1278p369s5p",
    "555p124578s1278p",
    "123s456s789s46p99p",
    "12357s9s1346789p",
]


def test_Z3_hu_beats_kong_between_two_players() -> None:
    """Z3: "Precedence: 胡 > 杠 > 碰", all deciding at once. Seat 1 chooses 杠 first, seat 2
    then 胡s the same discard: the win stands and the kong is never made.

    (杠 against 碰 between two players cannot arise: the 杠 needs three copies in one hand and
    the 碰 two in another, six copies of a tile that has four.)
    """
    rnd = deal(ZIGONG, HU_OVER_KONG_HANDS, tiandihu=False)
    play(rnd, "2 pass; 0 discard 5p")
    assert rnd.pending() == (1, 2)
    assert rnd.legal_actions(1) == [
        Action(ActionType.KONG, 1, Tile.P5),
        Action(ActionType.PUNG, 1, Tile.P5),
        Action(ActionType.PASS, 1),
    ]
    assert rnd.legal_actions(2) == [Action(ActionType.WIN, 2), Action(ActionType.PASS, 2)]
    play(rnd, "1 kong 5p")
    assert rnd.pending() == (2,) and rnd.seats[1].melds == [] and rnd.kongs == []
    play(rnd, "2 win")
    assert [(w.seat, w.source, w.from_seat) for w in rnd.wins] == [(2, WinSource.DISCARD, 0)]
    assert rnd.seats[1].melds == [] and rnd.kongs == [] and rnd.seats[1].hand[Tile.P5] == 3
    # Z4: a single win, so the first seat after the winner draws.
    assert rnd.turn == 3 and rnd.seats[3].drawn is not None
    play_out(rnd)
    # 123s 456s 789s 456p 99p: 平胡 0 → 1 from the discarder; no kong line at all. Nobody
    # left in the hand is ready, so no 查叫.
    assert lines(rnd) == [(0, 2, "牌型:平胡", 1, "Z11")]


# -- Z7: 直杠 is not blocked by a 过手碰 lock --------------------------------------------------

# The dealer holds 33s and 666p. It passes 碰 on seat 1's 3s, then seat 2 discards 6p before
# the dealer's next draw: 碰 is locked, 直杠 is not.
GUOSHOU_KONG_HANDS = ["33s666p333p999p78s1s", C, B, A]


def test_Z7_zhigang_offered_after_passing_a_peng() -> None:
    """Z7: "A player who could 碰 and passed cannot 碰 anything until their own next draw.
    直杠 is not blocked." The locked dealer is offered 直杠 6p (and no 碰) and makes it."""
    rnd = deal(ZIGONG, GUOSHOU_KONG_HANDS, draws="5s6p", back="1p")
    play(rnd, "0 discard 1s; 1 discard 3s")
    assert rnd.legal_actions(0) == [Action(ActionType.PUNG, 0, Tile.S3), Action(ActionType.PASS, 0)]
    play(rnd, "0 pass")
    assert rnd.seats[0].pung_lock
    play(rnd, "2 discard 6p")
    assert rnd.legal_actions(0) == [Action(ActionType.KONG, 0, Tile.P6), Action(ActionType.PASS, 0)]
    play(rnd, "0 kong 6p")
    assert [(m.kind, m.tile, m.from_seat) for m in rnd.seats[0].melds] == [
        (MeldKind.EXPOSED_KONG, Tile.P6, 2)
    ]
    assert rnd.turn == 0 and rnd.seats[0].drawn is Tile.P1
    play(rnd, "0 discard 1p")
    play_out(rnd)
    # 直杠: the discarder pays 2. At exhaustion the dealer holds 33s 78s 333p 999p + the 6p
    # kong, ready on 6s and 9s: 平胡 0 + 根 1 = 1 → 2 from each seat not ready.
    assert lines(rnd) == [(2, 0, "直杠", 2, "Z14")] + [(p, 0, "查叫", 2, "Z16") for p in (1, 2, 3)]


# -- Z8: passing a 抢杠 locks like passing a discard ------------------------------------------

# 3 players. The dealer pungs seat 1's 6s, later draws the fourth and adds it (补杠). Seat 1
# then holds 45s 99s 123p 456p 789p (waiting on 3s and 6s) and may rob; it passes. The
# dealer's replacement discard is a 3s: seat 1 is locked and not offered it.
ROB_LOCK_HANDS = ["66s3s11s777s333p888p", "4s6s8s9s123p456p789p", "234579s1245679p"]


def test_Z8_passing_a_robbable_kong_locks_until_next_discard() -> None:
    """Z8: passing a 胡 "covers a win on a discard, on a robbed kong, and on their own draw":
    after passing the rob, seat 1 cannot 胡 the konger's 3s; after its own next discard it
    wins the next 3s."""
    rnd = deal(ZIGONG, ROB_LOCK_HANDS, draws="9s5s2s6s2s4p", back="5p")
    play(
        rnd,
        "0 discard 1s; 1 discard 6s; 0 pung 6s; 0 discard 1s; 1 discard 8s;"
        " 2 discard 2s; 0 kong 6s",
    )
    assert rnd.phase is Phase.ROB and rnd.pending() == (1,)
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1 pass")
    assert rnd.seats[1].win_lock
    assert [(m.kind, m.tile) for m in rnd.seats[0].melds] == [(MeldKind.ADDED_KONG, Tile.S6)]
    assert rnd.seats[0].drawn is Tile.P5
    play(rnd, "0 discard 3s")
    # No window: the 3s would complete seat 1's hand, but it is locked.
    assert rnd.window is None and rnd.turn == 1 and rnd.wins == []
    chance = rnd.locked_chances[-1]
    assert (chance.seat, chance.tile, chance.from_seat, chance.source) == (
        1,
        Tile.S3,
        0,
        WinSource.DISCARD,
    )
    play(rnd, "1 discard 2s")
    assert not rnd.seats[1].win_lock
    play(rnd, "2 discard 3s")
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1 win")
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    # 补杠 6s: 1 from each other seat in the hand (1, 2). Seat 1 on seat 2's 3s: 345s 99s
    # 123p 456p 789p, 平胡 0 → 1. At exhaustion the dealer holds 777s 333p 888p 5p + the 6s
    # kong, ready on 5p: 碰碰胡 1 + 根 1 = 2 → 4 from seat 2, not ready.
    assert lines(rnd) == [
        (1, 0, "补杠", 1, "Z14"),
        (2, 0, "补杠", 1, "Z14"),
        (2, 1, "牌型:平胡", 1, "Z11"),
        (2, 0, "查叫", 4, "Z16"),
    ]
    assert rnd.settlement().totals == (6, 0, -6)


# -- Z4: a 自摸 winner's tiles are shown; who draws next --------------------------------------

# Seats 1 and 2 are ready at the deal (seat 1 on 5p, seat 2 on 2p); neither declares. Seat 2
# draws 2p and 自摸s, then seat 1 draws 5p and 自摸s. The dealer and seat 3 never get ready.
ZIMO_HANDS = [
    "124578s124578p9s3p",
    "123s456s789s46p99p",
    "123s456s789s13p88p",
    C,
]


def test_Z4_self_draw_winner_shown_to_all_and_next_seat_draws() -> None:
    """Z4: "A winner leaves the hand: their tiles are frozen and shown", seen by every other
    seat and by a spectator; "After a single win, the next player to draw is the first player
    after the winner who has not won"."""
    rnd = deal(ZIGONG, ZIMO_HANDS, draws="6s2p6s3p5p")
    play(rnd, "1 pass; 2 pass; 0 discard 3p; 1 discard 6s")
    assert rnd.turn == 2 and rnd.seats[2].drawn is Tile.P2
    for viewer in (0, 1, 3, None):
        assert "concealed" not in rnd.observation(viewer)["seats"][2]
    play(rnd, "2 win")
    assert not rnd.ended
    # Seat 3, the first after the winner, draws.
    assert rnd.turn == 3 and rnd.seats[3].drawn is Tile.S6
    shown = "1s 2s 3s 4s 5s 6s 7s 8s 9s 1p 2p 3p 8p 8p"
    for viewer in (0, 1, 3, None):
        seat = rnd.observation(viewer)["seats"][2]
        assert seat["won"] is True and " ".join(seat["concealed"]) == shown
        assert seat["win"] == {"tile": "2p", "source": "self_draw", "from": None}
        assert all("concealed" not in rnd.observation(viewer)["seats"][s] for s in (0, 1, 3))
    play(rnd, "3 discard 6s; 0 discard 3p")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.P5
    play(rnd, "1 win")
    # Seat 2 after the winner has won: seat 3 draws.
    assert not rnd.ended and rnd.turn == 3 and rnd.seats[3].drawn is not None
    shown_1 = " ".join(rnd.observation(None)["seats"][1]["concealed"])
    assert shown_1 == "1s 2s 3s 4s 5s 6s 7s 8s 9s 4p 5p 6p 9p 9p"
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    assert " ".join(rnd.observation(None)["seats"][2]["concealed"]) == shown  # frozen to the end
    # Seat 2: 123s 456s 789s 123p 88p, 平胡 0 → 1 + 自摸加底 1 from seats 3, 0, 1.
    # Seat 1: 123s 456s 789s 456p 99p, 平胡 0 → 1 + 自摸加底 1 from seats 3, 0 (seat 2 won).
    # Neither seat left is ready: no 查叫.
    assert lines(rnd) == [
        line
        for winner, payers in ((2, (3, 0, 1)), (1, (3, 0)))
        for p in payers
        for line in ((p, winner, "牌型:平胡", 1, "Z11"), (p, winner, "自摸加底", 1, "Z11"))
    ]
    assert rnd.settlement().totals == (-4, 2, 6, -4)


# -- Z5: every hand of a match counts, a 黄庄 too --------------------------------------------


@pytest.mark.parametrize("hands", [4, 8, 16])
def test_Z5_match_ends_after_hands_per_match_even_without_winners(hands: int) -> None:
    """Z5: "A match ends after ``hands_per_match`` hands. Every hand counts, including one
    with no winner", and "If nobody won, the dealer stays" (its streak grows)."""
    match = Match.start(ZIGONG, {"hands_per_match": hands}, seed="z5-gaps")
    dealer = match.dealer
    assert match.hands_total == hands
    for played in range(hands):
        assert not match.over
        rnd, _ = match.deal(f"z5-gaps/{played}")
        play_out(rnd)
        assert rnd.wins == [] and rnd.end_reason == "exhausted"
        match.finish(rnd)
        assert match.hands_played == played + 1
        assert (match.dealer, match.streak) == (dealer, played + 2)
    assert match.over
    assert sum(match.totals) == 0
    with pytest.raises(ValueError, match="over"):
        match.deal("z5-gaps/extra")


# -- Z11: 双龙七对 and 三龙七对 ------------------------------------------------------------------

LONG_QIDUI = [
    # (seat 1's hand, dealer's hand, tile, fan_cap, category, points, note)
    (
        "1111s2222p33s55p7p",
        "2468s13468p9p35s9s7p",
        "7p",
        6,
        "牌型:双龙七对",
        16,
        "双龙七对+4 = 4番, 2^4=16",
    ),
    (
        "1111s2222p3333s5p",
        "2468s13468p9p57s9s5p",
        "5p",
        6,
        "牌型:三龙七对",
        32,
        "三龙七对+5 = 5番, 2^5=32",
    ),
    (
        "1111s2222p3333s5p",
        "2468s13468p9p57s9s5p",
        "5p",
        4,
        "牌型:三龙七对",
        16,
        "三龙七对+5 = 5番 (封顶4番), 2^4=16",
    ),
]


@pytest.mark.parametrize(
    ("hand", "dealer", "tile", "cap", "category", "points", "note"), LONG_QIDUI
)
def test_Z11_shuanglong_and_sanlong_qidui(
    hand: str, dealer: str, tile: str, cap: int, *, category: str, points: int, note: str
) -> None:
    """Z11: "双龙七对 | 七对 with two | 4" and "三龙七对 | 七对 with three | 5"; the fours are the
    pattern, not 根. Won on the dealer's discard (地胡 off): 2^fan from the discarder, with
    fan capped at ``fan_cap`` (6 shows the raw fan, the default 4 caps 三龙七对)."""
    rnd = deal(ZIGONG, [dealer, hand], tiandihu=False, fan_cap=cap)
    play(rnd, f"1 pass; 0 discard {tile}; 1 win")
    assert rnd.end_reason == "last_player"
    assert lines(rnd) == [(0, 1, category, points, "Z11")]
    assert notes(rnd) == [note]


# -- Z15: a kong voided by two 杠上炮 winners is still 根 ------------------------------------

# The dealer kongs 3p and discards 5p; seats 1 and 2 both win it. The dealer then holds
# 777s 888s 99s 67p + the 3p kong, and wins seat 3's 8p.
VOID_GEN_HANDS = [
    "3333p777s888s99s6p5p",
    "123s456s789s46p99p",
    "111p222p888p46p55s",
    "123456s9s12p4789p",
]


def test_Z15_void_kong_still_counts_as_gen_when_the_konger_wins() -> None:
    """Z15: "If two or more players win it, no money moves: that kong money is void. The
    completed kongs still count as 根 if the konger wins later." The dealer's 暗杠 is voided
    by two 杠上炮 winners, and counts as 根 when the dealer wins afterwards."""
    rnd = deal(ZIGONG, VOID_GEN_HANDS, draws="1s", back="7p", tiandihu=False)
    play(rnd, "1 pass; 2 pass; 0 kong 3p")
    assert rnd.seats[0].drawn is Tile.P7
    play(rnd, "0 discard 5p")
    assert rnd.pending() == (1, 2)
    play(rnd, "1 win; 2 win")
    assert [(w.seat, w.after_kong_discard) for w in rnd.wins] == [(1, True), (2, True)]
    # Z4: after several wins on one discard, the first seat after the discarder that is
    # neither it nor a winner draws.
    assert rnd.turn == 3 and rnd.seats[3].drawn is Tile.S1
    play(rnd, "3 discard 8p")
    assert rnd.legal_actions(0) == [Action(ActionType.WIN, 0), Action(ActionType.PASS, 0)]
    play(rnd, "0 win")
    assert rnd.end_reason == "last_player"
    # 暗杠 3p: void, no line. Seats 1 and 2 on the 5p: 平胡 0 + 杠上炮 1 = 1 → 2 each, from
    # the dealer. The dealer on 8p: 777s 888s 99s 678p + the void 3p kong, 平胡 0 + 根 1 = 1
    # → 2 from seat 3.
    assert lines(rnd) == [
        (0, 1, "牌型:平胡", 2, "Z11"),
        (0, 2, "牌型:平胡", 2, "Z11"),
        (3, 0, "牌型:平胡", 2, "Z11"),
    ]
    assert notes(rnd) == [
        "平胡+0 杠上炮+1 = 1番, 2^1=2",
        "平胡+0 杠上炮+1 = 1番, 2^1=2",
        "平胡+0 根+1 = 1番, 2^1=2",
    ]
    assert rnd.settlement().summary["void_kongs"] == [0]
    assert rnd.settlement().totals == (-2, 2, 2, -2)
    assert rnd.next_dealer() == (0, 2)  # Z5: after 一炮多响 the discarder deals
