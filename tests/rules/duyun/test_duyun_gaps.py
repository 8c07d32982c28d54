"""都匀: rulings the other files assert more weakly than their text says (D3, D6, D8, D9,
D10, D14, D15, D17, D20).

Every expected line below is worked out from the ruling it names; the comments show the sums.
"""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.round import Round
from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play, play_out

OFF = {"fanji": "off"}

# -- D3: 胡 outranks 碰 and 杠 -----------------------------------------------------------------

# The dealer's first discard is 5m. One seat waits on it with 清一色 (123m 46m 789m 789m 11m,
# the 46m gap filled); the other holds 555m and may 碰 or 杠 it.
D3_DEALER = "5m9m2468p3579s2468s"
D3_WINNER = "123m789m789m11m46m"
D3_CLAIMER = "555m13579p2468s9s"


@pytest.mark.parametrize("verb", ["pung", "kong"])
@pytest.mark.parametrize("winner", [1, 2])
def test_D3_win_outranks_pung_and_kong_on_the_same_discard(verb: str, winner: int) -> None:
    """D3: "Every player who can claim decides at the same time. 胡 outranks 杠 and 碰." The
    win is taken and the 碰/杠 is not, whichever seat is nearer the discarder and whichever
    decides first. The hand ends at once (no 血战)."""
    claimer = 3 - winner
    hands = ["", "", ""]
    hands[0], hands[winner], hands[claimer] = D3_DEALER, D3_WINNER, D3_CLAIMER
    rnd = deal(DUYUN, hands, **OFF)
    play(rnd, "0:discard:5m")
    assert rnd.legal_actions(winner) == [
        Action(ActionType.WIN, winner),
        Action(ActionType.PASS, winner),
    ]
    claims = {a.type for a in rnd.legal_actions(claimer)}
    assert claims == {ActionType.KONG, ActionType.PUNG, ActionType.PASS}
    play(rnd, f"{claimer}:{verb}")  # the claimer decides first
    assert not rnd.ended and rnd.pending() == (winner,)
    play(rnd, f"{winner}:win")
    assert rnd.ended and [(w.seat, w.source, w.from_seat) for w in rnd.wins] == [
        (winner, WinSource.DISCARD, 0)
    ]
    assert rnd.seats[claimer].melds == [] and rnd.kongs == []
    assert rnd.seats[claimer].hand[Tile.M5] == 3
    # 清一色 10 on the dealer's discard, + 连庄 1 (D10a); no 豆 (no kong was made), no 鸡.
    assert sorted(lines(rnd)) == [
        (0, winner, "牌型:清一色", 10, "D6"),
        (0, winner, "连庄", 1, "D10a"),
    ]


# The last wall tile (the first tile of ``back``) is 5p; seat 2 draws it and discards it. Seat 1
# could win on it and could also 碰 it (55p) or 杠 it (555p). The dealer keeps all four 1s
# hidden and every other copy of seat 1's waits, so nothing is won before the last tile.
LAST_TILE = {
    # 大对子 on 9s or 5p: 222m 444m 666m 99s 55p. 查叫 over either wait: 大对子 5.
    "pung": (["1111s99s5p3579m278p", "222m444m666m99s55p", "1368p2468s13579m"], "大对子", 5),
    # 清一色 on 2p or 5p: 555p 46p 123p 789p 22p. 查叫 over either wait: 清一色 10.
    "kong": (["1111s2p3579m2468s9s", "555p46p123p789p22p", "13678m3579s2468s"], "清一色", 10),
}


@pytest.mark.parametrize("claim", ["pung", "kong"])
@pytest.mark.parametrize("choice", ["win", "pass"])
def test_D3_last_wall_tile_discard_offers_win_but_not_pung_or_kong(claim: str, choice: str) -> None:
    """D3: "The discard of the last wall tile may only be won on (no 碰/杠). If nobody wins it,
    the hand is 黄庄." 胡 is still offered on it; the 碰 or 杠 the same seat could otherwise
    make is not."""
    hands, name, points = LAST_TILE[claim]
    rnd = deal(DUYUN, hands, back="5p", **OFF)
    play(rnd, f"0:discard:{'8p' if claim == 'pung' else '9s'}")
    play_out(rnd, no_wins=True, last_draw=True)
    assert rnd.turn == 2 and rnd.seats[2].drawn is Tile.P5 and rnd.wall.remaining == 0
    play(rnd, "2:discard:5p")
    assert rnd.pending() == (1,)
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, f"1:{choice}")
    assert rnd.ended and rnd.seats[1].melds == [] and rnd.kongs == []
    if choice == "win":
        assert rnd.end_reason == "win"
        # seat 2 alone pays the pattern; neither is the dealer, so no 连庄. The dealer's
        # hidden 1111s cost a not-ready player nothing (D18).
        assert lines(rnd) == [(2, 1, f"牌型:{name}", points, "D6")]
    else:
        assert rnd.end_reason == "exhausted" and not rnd.wins
        # 黄庄: the two not-ready players pay seat 1 its best pattern over its waits (D21.2).
        assert sorted(lines(rnd)) == [(0, 1, "查叫", points, "D21"), (2, 1, "查叫", points, "D21")]


# -- D6: 单吊 with an 暗杠 among the four melds ---------------------------------------------------


def test_D6_dandiao_counts_an_angang_among_the_declared_melds() -> None:
    """D6: 单吊 is "大对子 where all four sets are declared melds (碰 or any 杠, 暗杠 included)
    and the win completes the pair (金钩钓)": 10 points, not the 大对子 5."""
    # The dealer kongs 2222m on its first turn (replacement 9s, discarded), then 碰s 4p, 6s
    # and 8m from seat 1's discards, throwing 3s, 5s and 7p, and is left with a lone 9m. Seat
    # 1 then discards 9m and the dealer wins on it.
    rnd = deal(
        DUYUN,
        ["2222m44p66s88m3s5s7p9m", "13567m1359p3479s", "3479m2678p2568s9p"],
        draws="4p6s8m9m",
        back="9s",
        **OFF,
    )
    play(rnd, "0:kong:2m", "0:discard:9s")
    play(rnd, "1:discard:4p", "0:pung", "0:discard:3s")
    play(rnd, "1:discard:6s", "0:pung", "0:discard:5s")
    play(rnd, "1:discard:8m", "0:pung", "0:discard:7p")
    assert [m.kind for m in rnd.seats[0].melds] == [
        MeldKind.CONCEALED_KONG,
        MeldKind.PUNG,
        MeldKind.PUNG,
        MeldKind.PUNG,
    ]
    play(rnd, "1:discard:9m")
    assert rnd.legal_actions(0) == [Action(ActionType.WIN, 0), Action(ActionType.PASS, 0)]
    play(rnd, "0:win")
    # Seat 1 pays 单吊 10 + 连庄 1 (D10a); the dealer's 暗豆 is paid 3 by each other player
    # (D11, the owner won). No 1s and no 翻鸡: no 鸡.
    assert sorted(lines(rnd)) == sorted(
        [
            (1, 0, "牌型:单吊", 10, "D6"),
            (1, 0, "连庄", 1, "D10a"),
            *each_pays([1, 2], 0, ("暗豆", 3, "D11")),
        ]
    )


# -- D8: a kong replacement is the locked player's own next draw ------------------------------

# Seat 1 waits on 5p alone with 大对子 (222m 444m 666m 999s 5p). It draws 7p and discards it;
# seat 2 draws and discards 5p: seat 1 passes and is locked. The dealer draws and discards the
# fourth 6m, which seat 1 may 杠 (or 碰).
D8_HANDS = ["3579m246788s1379p", "222m444m666m999s5p", "13789m2468p3579s"]
D8_START = ("0:discard:8s", "1:discard:7p", "2:discard:5p", "1:pass")


def test_D8_kong_replacement_draw_releases_the_lock() -> None:
    """D8: a player who passes on a winning discard "cannot win on any discard or kong until
    their own next draw, a kong replacement included". Seat 1 is locked, 杠s the dealer's 6m
    before drawing, and the replacement ends the lock: seat 2's next 5p is offered and won,
    and no 包牌 is owed."""
    rnd = deal(DUYUN, D8_HANDS, draws="7p5p6m5p", back="4s", **OFF)
    play(rnd, *D8_START)
    assert rnd.seats[1].win_lock
    play(rnd, "0:discard:6m", "1:kong")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.S4  # the replacement
    assert not rnd.seats[1].win_lock
    play(rnd, "1:discard:4s", "2:discard:5p")
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1:win")
    assert rnd.locked_chances == []
    # seat 2 pays 大对子 5 (neither is the dealer: no 连庄); the 明豆 of 6m is paid 3 by its
    # discarder, the dealer (D11); no 包牌 (D8).
    assert sorted(lines(rnd)) == [(0, 1, "明豆", 3, "D11"), (2, 1, "牌型:大对子", 5, "D6")]


def test_D8_a_pung_is_no_draw_and_keeps_the_lock() -> None:
    """D8: the lock lasts until the player's own next draw; a 碰 draws nothing. Seat 1 碰s the
    6m instead, so seat 2's next 5p is not offered and seat 1 owes 包牌 for it."""
    rnd = deal(DUYUN, D8_HANDS, draws="7p5p6m5p", **OFF)
    play(rnd, *D8_START, "0:discard:6m", "1:pung")
    assert rnd.seats[1].win_lock
    play(rnd, "1:discard:6m", "2:discard:5p")
    assert rnd.window is None and rnd.turn == 0  # not offered; the dealer drew
    assert [(c.seat, c.tile, c.from_seat, c.source) for c in rnd.locked_chances] == [
        (1, Tile.P5, 2, WinSource.DISCARD)
    ]


# -- D9: 报听 only at the start, before any 碰 or 杠; a 报听 seat never 碰s or 杠s -------------

# Seat 1 is ready on 5p (123m 456m 789m 234p 5p) after discarding 9s with its first discard.
D9_HANDS = ["3455m78m2468s246p3s", "123m456m789m234p9s", "3579m3578s3679p9m"]


def _declares(rnd: Round, seat: int) -> list[Action]:
    """The 报听 discards ``seat`` is offered now."""
    return [a for a in rnd.legal_actions(seat) if a.declare]


def test_D9_baoting_refused_on_a_later_discard() -> None:
    """D9: 报听 is made "only at the start of a hand": a non-dealer declares "with the discard
    after their first draw". Seat 1 lets that discard go undeclared; on its second discard
    it is still ready but may no longer declare."""
    rnd = deal(DUYUN, D9_HANDS, draws="5p2m3m8s", **OFF)
    play(rnd, "0:discard:3s")
    assert {a.tile for a in _declares(rnd, 1)} == {Tile.P2, Tile.P5, Tile.S9}
    play(rnd, "1:discard:9s", "2:discard:2m", "0:discard:3m")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.S8
    assert _declares(rnd, 1) == []
    with pytest.raises(IllegalActionError):
        play(rnd, "1:declare:8s")
    play(rnd, "1:discard:8s")
    assert rnd.is_ready(1) and not rnd.seats[1].declared


# The dealer's first discard is 5m. Seat 1 holds 55m (碰) or 555m (杠, whose replacement 2s is
# seat 1's first draw); either way, after discarding 9s it is ready on 2s (123m 456p 789p 2s).
D9_CLAIM_DEALER = "5m9m2468m2468s3579p"
D9_CLAIM_SEAT_2 = "34799m3579s1368p"


@pytest.mark.parametrize(
    ("verb", "seat_1"), [("pung", "55m123m456p789p2s9s"), ("kong", "555m123m456p789p9s")]
)
def test_D9_baoting_refused_after_a_pung_or_kong(verb: str, seat_1: str) -> None:
    """D9: 报听 only "before the player has made any 碰 or 杠". A non-dealer whose first move
    is a 碰, or a 杠 whose replacement is its first draw, may not declare with the discard
    that follows, although that discard leaves it ready."""
    rnd = deal(DUYUN, [D9_CLAIM_DEALER, seat_1, D9_CLAIM_SEAT_2], back="2s", **OFF)
    play(rnd, "0:discard:5m", f"1:{verb}")
    assert rnd.turn == 1 and len(rnd.seats[1].melds) == 1
    assert _declares(rnd, 1) == []
    with pytest.raises(IllegalActionError):
        play(rnd, "1:declare:9s")
    play(rnd, "1:discard:9s")
    assert rnd.is_ready(1) and not rnd.seats[1].declared


def test_D9_dealer_baoting_refused_after_a_concealed_kong() -> None:
    """D9: the dealer declares "with the first discard", and only before any 杠. The dealer
    could declare on its dealt 14 (discarding an 8p leaves 888p 123m 456m 789m 5p, ready);
    after an 暗杠 of 8p the discard that follows leaves it ready on 5p, but no 报听."""
    rnd = deal(
        DUYUN, ["8888p123m456m789m5p", "336699m2258s147p", "2237m4578s13579p"], back="3s", **OFF
    )
    assert Tile.P8 in {a.tile for a in _declares(rnd, 0)}
    play(rnd, "0:kong:8p")
    assert rnd.seats[0].drawn is Tile.S3
    assert _declares(rnd, 0) == []
    with pytest.raises(IllegalActionError):
        play(rnd, "0:declare:3s")
    play(rnd, "0:discard:3s")
    assert rnd.is_ready(0) and not rnd.seats[0].declared


def test_D9_baoting_seat_is_never_offered_pung_or_kong() -> None:
    """D9: "From then on the hand is frozen: each drawn tile is discarded automatically unless
    it wins, and the player may not 碰 or 杠." Seat 1 declares holding 222m, 444m and 55s,
    ready on 6p/9p (78p). Seat 2 discards 5s (no 碰), the dealer discards the fourth 4m (no
    碰 or 杠) and seat 1 draws the fourth 2m, which is thrown, not 暗杠'd."""
    rnd = deal(
        DUYUN,
        ["35799m24678s3569p", "222m444m55s123p78p", "1368m1479p34689s"],
        draws="9s5s4m2m",
        **OFF,
    )
    play(rnd, "0:discard:7s", "1:declare:9s")
    assert rnd.seats[1].declared
    play(rnd, "2:discard:5s")
    assert rnd.window is None and rnd.turn == 0  # no 碰 window for seat 1
    play(rnd, "0:discard:4m")
    # no 杠/碰 window: seat 1 drew 2m, could not 暗杠 it, and threw it; seat 2 has drawn
    assert rnd.window is None and rnd.turn == 2
    assert [e.tile for e in rnd.seats[1].river] == [Tile.S9, Tile.M2]
    assert rnd.seats[1].melds == [] and rnd.kongs == []
    assert (rnd.seats[1].hand[Tile.M2], rnd.seats[1].hand[Tile.M4]) == (3, 3)
    assert rnd.seats[1].declared and rnd.is_ready(1)


# -- D10: 杠上花 after a 明豆 ---------------------------------------------------------------------


def test_D10_gangshanghua_after_a_mingdou_everyone_pays() -> None:
    """D10: "杠上花 +1 (a win on a kong's replacement tile, including after a 明豆: everyone
    pays, as for any 自摸)". Seat 1 杠s the dealer's 7s and wins 平胡 on the replacement 5p."""
    rnd = deal(
        DUYUN,
        ["234566m2468s24p7s9s", "777s123m456m789m5p", "3579m3589s3679p9m"],
        back="5p",
        **OFF,
    )
    play(rnd, "0:discard:7s", "1:kong")
    assert rnd.legal_actions(1)[0] == Action(ActionType.WIN, 1)
    play(rnd, "1:win")
    [win] = rnd.wins
    assert win.source is WinSource.SELF_DRAW and win.kong_replacement
    # Both other players pay 平胡 1 + 自摸 1 + 杠上花 1 (not the 明豆's discarder alone); the
    # dealer adds 连庄 1 (D10a) and, as the discarder of the 7s, the 明豆 3 (D11).
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0, 2], 1, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("杠上花", 1, "D10")),
            (0, 1, "连庄", 1, "D10a"),
            (0, 1, "明豆", 3, "D11"),
        ]
    )
    assert list(rnd.settlement().totals) == [-7, 10, -3]


# -- D14 / D20: the robbed player's own 豆 are void too ----------------------------------------


def test_D14_D20_robbed_player_loses_its_dou_and_ji_but_its_payments_stand() -> None:
    """D14: "All 鸡 and 豆 lines that would pay the robbed player this hand are void (D20)."
    D20: the robbed player "receives nothing from any 鸡 or 豆 line this hand. Their own
    payments stand." """
    # Seat 2 碰s the dealer's 6s and throws 3s; later it draws the fourth 6s, 暗杠s 9999s
    # (replacement 1s) and adds the 6s to its 碰. Seat 1 (45s 11s) robs it with a 平胡. Seat 2,
    # judged with its 碰, is ready on 1s (123p 456p 1s).
    rnd = deal(
        DUYUN,
        ["234566m2468p245p6s", "123m456m789m45s11s", "66s9999s123p456p3s"],
        draws="7p8p6s",
        back="1s",
        **OFF,
    )
    play(rnd, "0:discard:6s", "2:pung", "2:discard:3s", "0:discard:7p", "1:discard:8p")
    play(rnd, "2:kong:9s", "2:kong:6s")
    assert rnd.pending() == (1,)
    play(rnd, "1:win")
    assert rnd.wins[0].source is WinSource.ROBBING
    assert [(k.seat, k.kind) for k in rnd.kongs] == [(2, MeldKind.CONCEALED_KONG)]
    assert [rnd.is_ready(s) for s in range(3)] == [False, True, True]
    # Seat 2 pays seat 1 平胡 1 + 抢杠 10 (D14). Seat 1 owns 11s: 幺鸡 2 from each other player,
    # seat 2 included (its payments stand). Void: seat 2's 暗豆 (3 from each of 0 and 1, D11)
    # and its 幺鸡 for the 1s in hand (1 from each of 0 and 1, D18).
    assert sorted(lines(rnd)) == sorted(
        [
            (2, 1, "牌型:平胡", 1, "D6"),
            (2, 1, "抢杠", 10, "D14"),
            *each_pays([0, 2], 1, ("幺鸡", 2, "D18")),
        ]
    )
    void = rnd.settlement().summary["void"]
    assert sorted((v["payer"], v["payee"], v["category"], v["points"]) for v in void) == [
        (0, 2, "幺鸡", 1),
        (0, 2, "暗豆", 3),
        (1, 2, "幺鸡", 1),
        (1, 2, "暗豆", 3),
    ]
    assert list(rnd.settlement().totals) == [-2, 15, -13]


# -- D15 / D17: 金鸡 doubles 英雄鸡 and 冲锋鸡, through the settlement --------------------------

# The dealer discards the table's first 1s; seat 1 draws 8m and discards another 1s (ready
# on 7m: 234s 567s 789p 55m 89m); seat 2 self-draws 7s (平胡: 456m 345p 678p 777s 22s). The
# next wall tile, turned for 翻鸡, is 9s: 金鸡. Its 翻牌鸡 would be 1s, never counted twice.
READY_DEALER = "123m456m789m234p5p1s"  # ready on 5p after the 1s
NOT_READY_DEALER = "123m456m789m24p58p1s"
JIN_WIN = [
    *each_pays([0], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("连庄", 1, "D10a")),
    *each_pays([1], 2, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
    # seat 1's later river 1s (满堂鸡), 1 × 2 under 金鸡, from each other player (D16, D18)
    *each_pays([0, 2], 1, ("金鸡", 2, "D15")),
]


@pytest.mark.parametrize(
    ("dealer", "first_chicken", "expected"),
    [
        # 英雄鸡 3 × 2 = 6, paid to the ready discarder by each other player
        (READY_DEALER, "hero", each_pays([1, 2], 0, ("英雄鸡", 6, "D17"))),
        # 冲锋鸡 2 × 2 = 4
        (READY_DEALER, "charge", each_pays([1, 2], 0, ("冲锋鸡", 4, "D17"))),
        # a discarder who is not ready pays each other player 6
        (NOT_READY_DEALER, "hero", [(0, 1, "英雄鸡", 6, "D17"), (0, 2, "英雄鸡", 6, "D17")]),
    ],
)
def test_D15_D17_jin_ji_doubles_the_first_chicken_in_the_settlement(
    dealer: str, first_chicken: str, expected: list[tuple[int, int, str, int, str]]
) -> None:
    """D15: when the turned tile is 9s, "every 幺鸡-based value below doubles, 冲锋 and 责任
    included". D17: 英雄鸡 "3, or 6 under 金鸡"; 冲锋鸡 "2, or 4 under 金鸡"."""
    rnd = deal(
        DUYUN,
        [dealer, "234s567s789p1s55m9m", "456m345p678p22s77s"],
        draws="8m7s9s",
        first_chicken=first_chicken,
    )
    play(rnd, "0:discard:1s", "1:discard:1s", "2:win")
    summary = rnd.settlement().summary
    assert summary["fanji"] == "9s" and summary["jin_ji"] is True
    assert rnd.is_ready(0) is (dealer == READY_DEALER)
    assert sorted(lines(rnd)) == sorted(JIN_WIN + expected)
