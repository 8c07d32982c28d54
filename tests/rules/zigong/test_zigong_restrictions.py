"""过手碰 (Z7), 过手胡 (Z8), after 碰 (Z9) and after 杠 (Z10)."""

from __future__ import annotations

from majiang.actions import Action, ActionType
from majiang.state import Phase
from majiang.tiles import Tile
from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, play, play_out


def test_Z7_guoshou_peng_until_own_next_draw() -> None:
    """Passing a 碰 of 6s forbids every 碰 until the dealer's next draw; 直杠 is not blocked."""
    rnd = deal(ZIGONG, ["33s66s99s33p66p99p12s", A, B, C], draws="6s6s3p6p3p")
    play(rnd, "0 discard 1s; 1 discard 6s")
    assert Action(ActionType.PUNG, 0, Tile.S6) in rnd.legal_actions(0)
    play(rnd, "0 pass; 2 discard 6s")
    assert rnd.phase is Phase.TURN and rnd.turn == 3  # no 碰 offered to seat 0
    play(rnd, "3 discard 3p")
    assert rnd.turn == 0  # still locked on 3p, a different tile; now seat 0 draws
    play(rnd, "0 discard 6p; 1 discard 3p")
    assert Action(ActionType.PUNG, 0, Tile.P3) in rnd.legal_actions(0)
    play(rnd, "0 pass")
    play_out(rnd)
    # 2s33s66s99s33p66p99p: 七对 waiting on 2s: 2 fan.
    assert lines(rnd) == [(p, 0, "查叫", 4, "Z16") for p in (1, 2, 3)]


def test_Z8_guoshou_hu_blocks_self_draw_until_discard() -> None:
    """Seat 1 passes 5p (a 地胡 even); it then draws 5p and may not 自摸 it ("加番也不能胡");
    after its discard the lock is gone and it wins the next 5p."""
    rnd = deal(ZIGONG, ["5p12458s12478p9s3s3p", "123s456s789s46p99p"], draws="5p5p")
    play(rnd, "1 pass; 0 discard 5p")
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1 pass")
    assert rnd.turn == 1 and rnd.seats[1].drawn is Tile.P5
    assert Action(ActionType.WIN, 1) not in rnd.legal_actions(1)
    play(rnd, "1 discard 5p")
    assert rnd.seats[1].win_lock is False
    play(rnd, "0 discard 5p; 1 win")
    assert lines(rnd) == [(0, 1, "牌型:平胡", 1, "Z11")]


def test_Z8_pass_self_draw_then_kong_no_gangshanghua() -> None:
    """The dealer declines 天胡 by konging 3p; the replacement 6p completes the hand, but the
    win is locked until the dealer's next discard."""
    rnd = deal(ZIGONG, ["3333p45p999p33s666s", A, B, C], back="6p")
    assert Action(ActionType.WIN, 0) in rnd.legal_actions(0)
    play(rnd, "0 kong 3p")
    assert rnd.seats[0].drawn is Tile.P6
    assert Action(ActionType.WIN, 0) not in rnd.legal_actions(0)
    play(rnd, "0 discard 6p")
    play_out(rnd)
    # Ready on 6p: 平胡 0 + 根 1 = 1 → 2 from each.
    assert lines(rnd) == [(p, 0, "暗杠", 2, "Z14") for p in (1, 2, 3)] + [
        (p, 0, "查叫", 2, "Z16") for p in (1, 2, 3)
    ]


def test_Z9_no_kong_in_the_turn_of_a_peng() -> None:
    """Seed 6 (1)(2): after 碰 6s (a 直杠 was possible) no 补杠 6s and no 暗杠 3p this turn;
    both are offered from the next turn."""
    rnd = deal(ZIGONG, ["3333p666s12p45p9s9p7p", A, B, C], draws="6s1s2s4s5s")
    play(rnd, "0 discard 9s; 1 discard 6s")
    assert Action(ActionType.KONG, 0, Tile.S6) in rnd.legal_actions(0)
    play(rnd, "0 pung 6s")
    assert all(a.type is ActionType.DISCARD for a in rnd.legal_actions(0))
    play(rnd, "0 discard 9p; 1 discard 1s; 2 discard 2s; 3 discard 4s")
    legal = rnd.legal_actions(0)
    assert Action(ActionType.KONG, 0, Tile.P3) in legal
    assert Action(ActionType.KONG, 0, Tile.S6) in legal
    play(rnd, "0 discard 5s")
    play_out(rnd)
    assert lines(rnd) == []


def test_Z10_kong_again_and_gangshang_kaihua() -> None:
    """A kong, a replacement that makes another four, a second kong, and 杠上开花."""
    rnd = deal(ZIGONG, ["3333p666p999p33s66s", A, B, C], back="6p3s")
    play(rnd, "0 kong 3p")
    assert Action(ActionType.KONG, 0, Tile.P6) in rnd.legal_actions(0)
    play(rnd, "0 kong 6p")
    play(rnd, "0 win")
    play_out(rnd)
    # 999p 333s 66s + two kongs: 碰碰胡 1 + 根 2 + 杠上开花 1 = 4 → 16.
    assert lines(rnd) == [(p, 0, "暗杠", 2, "Z14") for p in (1, 2, 3)] * 2 + [
        line
        for p in (1, 2, 3)
        for line in ((p, 0, "牌型:碰碰胡", 16, "Z11"), (p, 0, "自摸加底", 1, "Z11"))
    ]


def test_Z10_Z3_last_tile_no_kong_no_claim() -> None:
    """Whoever draws the last tile may not kong; its discard can be won, not 碰 or 杠."""
    rnd = deal(ZIGONG, ["3333p1245s1245p78s", "6666p1245s1245p7s"])
    while rnd.wall.remaining > 0:
        seat = rnd.pending()[0]
        if rnd.window is not None:
            play(rnd, f"{seat} pass")
            continue
        drawn = rnd.seats[seat].drawn
        tile = drawn if drawn is not None else max(rnd.seats[seat].concealed())
        rnd.apply(Action(ActionType.DISCARD, seat, tile))
    seat = rnd.turn
    assert all(a.type is not ActionType.KONG for a in rnd.legal_actions(seat))
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    assert lines(rnd) == []


def test_Z10_baogang_tick_ignored_when_the_wall_is_empty() -> None:
    """Seat 1 报杠s 1s. The fourth 1s is the last wall tile and seat 1 draws it: no kong from
    an empty wall, the tick notwithstanding; it is discarded for seat 1. Drawn while the wall
    still has tiles, the same tick makes the kong."""
    hands = ["1111p4444p2468s3s8s", "111s456s789s23p99p"]
    for back, draws, konged in (("1s", "", False), ("", "1s", True)):
        rnd = deal(ZIGONG, hands, draws=draws, back=back)
        play(rnd, "1 declare ticks=1s; 0 discard 8s")
        assert rnd.seats[1].ticks == frozenset({Tile.S1})
        play_out(rnd)
        s = rnd.seats[1]
        assert rnd.end_reason == "exhausted"
        if konged:
            assert s.draw_log[0] is Tile.S1
            assert [(m.kind.value, m.tile) for m in s.melds] == [("concealed_kong", Tile.S1)]
            assert lines(rnd) == [(0, 1, "暗杠", 2, "Z14"), (0, 1, "查叫", 4, "Z18")]
        else:
            # The last draw of the hand was the fourth 1s, and it went to the river.
            assert s.draw_log[-1] is Tile.S1 and rnd.wall.remaining == 0
            assert s.melds == [] and rnd.kongs == []
            last = max((e for seat in rnd.seats for e in seat.river), key=lambda e: e.order)
            assert s.river[-1] is last and last.tile is Tile.S1
            # 查叫 with 报叫 only (平胡 0 + 报叫 1 = 2): no 根, no kong money.
            assert lines(rnd) == [(0, 1, "查叫", 2, "Z18")]
