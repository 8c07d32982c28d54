"""报叫 and 报杠 (Z19, Z20), including the seed's three 报杠 cases word for word."""

from __future__ import annotations

from typing import Any

import pytest

from majiang.actions import Action, ActionType, Event, logged_for_viewer
from majiang.errors import IllegalActionError, RecordError
from majiang.record import record_of, replay
from majiang.state import Phase
from majiang.tiles import Tile
from majiang.variants.zigong.baogang import options_for
from tests.rules.scenario import ZIGONG, A, action, deal, lines, play, play_out

NOTHING_TICKED = "没勾选任何选项，不能报杠"
"""The seed's refusal of 报杠 with nothing ticked (Z20), word for word."""
TOO_MANY_KONGS = "抱歉，不能选择更多的杠"
"""The seed's refusal of ticks whose kongs together leave the hand not ready (Z20)."""


def view_of(event: Event, viewer: int | None) -> dict[str, Any] | None:
    """What ``viewer`` receives of ``event`` from the match log."""
    return logged_for_viewer(event.to_log(), viewer)

CASE1_FILLER = "12356789s56789p"


def _declares(rnd, seat):
    return [a.tile.code for a in rnd.legal_actions(seat) if a.declare]


def test_Z20_seed_case1_dealer_ticks_only_1p_2p() -> None:
    """案例1: 111筒、222筒、33筒、4444筒、44条
    问题1: 庄家起手可以暗杠，且暗杠完补一张，打一张后还能听牌。玩家选择完报叫，再选择报杠，那这个暗杠怎么处理？
    答案1：报叫，只能选1.2筒报杠，必须打出一张4筒。如果不报叫，起手提示开杠，可以杠上开花。
    """  # noqa: E501
    rnd = deal(ZIGONG, ["111p222p33p4444p44s", CASE1_FILLER], draws="9s1p2p", back="7s8s")
    declare_4p = Action(ActionType.DISCARD, 0, Tile.P4, declare=True)
    assert options_for(rnd, 0, declare_4p) == [Tile.P1, Tile.P2]
    # Other ready-keeping discards are legal too (Z20), but 4p is the one that allows the ticks.
    assert _declares(rnd, 0) == ["1p", "2p", "3p", "4p"]
    assert Action(ActionType.KONG, 0, Tile.P4) in rnd.legal_actions(0)
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("0 declare 4p ticks="))
    assert refused.value.message == NOTHING_TICKED
    with pytest.raises(IllegalActionError):
        rnd.apply(action("0 declare 4p ticks=4p"))
    # 报杠 1p and 2p; the fourth 1p is drawn, the fourth 2p discarded: both konged by force.
    play(rnd, "0 declare 4p ticks=1p2p; 1 discard 9s; 1 discard 2p")
    assert [(m.kind.value, m.tile.code) for m in rnd.seats[0].melds] == [
        ("concealed_kong", "1p"),
        ("exposed_kong", "2p"),
    ]
    play_out(rnd)
    # 查叫 with 报叫: 碰碰胡 1 + 根×2 + 报叫 1 = 4 (Z18).
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "查叫", 16, "Z18"),
    ]


def test_Z19_seed_case1_dealer_who_kongs_first_cannot_declare() -> None:
    """案例1 答案1: 如果不报叫，起手提示开杠，可以杠上开花 — and then no 报叫 any more."""
    rnd = deal(ZIGONG, ["111p222p33p4444p44s", CASE1_FILLER], back="3p")
    play(rnd, "0 kong 4p")
    assert _declares(rnd, 0) == []
    play(rnd, "0 win")
    # 杠上开花 on 3p: 碰碰胡 1 + 根 1 (4p) + 杠上开花 1 = 3; 自摸加底 1 (Z11).
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (1, 0, "牌型:碰碰胡", 8, "Z11"),
        (1, 0, "自摸加底", 1, "Z11"),
    ]


def test_Z20_seed_case2_never_3s() -> None:
    """案例2: 111条、222条、3333条、444条、5条
    问题2: 庄家起手可以天胡且暗杠，且暗杠完补一张，打一张后还能听牌。玩家选择完不胡，再报叫、报杠，那这个暗杠怎么处理？
    答案2：天胡不胡，报叫。1.2.4条可以报杠，3条不能报，报杠后，3.5条随便打出去一条张，由于3条没有报杠，所以即使没打出3条，也不能暗杠。
    """  # noqa: E501
    rnd = deal(ZIGONG, ["111s222s3333s444s5s", "1245s6789s56789p"])
    legal = rnd.legal_actions(0)
    assert Action(ActionType.WIN, 0) in legal
    assert Action(ActionType.KONG, 0, Tile.S3) in legal
    for discard in (Tile.S3, Tile.S5):
        declaring = Action(ActionType.DISCARD, 0, discard, declare=True)
        assert options_for(rnd, 0, declaring) == [Tile.S1, Tile.S2, Tile.S4]
    with pytest.raises(IllegalActionError):
        rnd.apply(action("0 declare 5s ticks=3s"))
    # Keeping 3333s5s... discarding 5s, the three kongs together would leave only 3s: refused.
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("0 declare 5s ticks=1s2s4s"))
    assert refused.value.message == TOO_MANY_KONGS
    play(rnd, "0 declare 5s ticks=1s2s")
    while not rnd.ended:
        assert Action(ActionType.KONG, 0, Tile.S3) not in rnd.legal_actions(0)
        play_out_step(rnd)
    assert rnd.seats[0].melds == [] and rnd.seats[0].hand[Tile.S3] == 4
    # 查叫: 清一色 2 + 根 (3s) 1 + 报叫 1 = 4 at least: capped at 4 (Z18).
    assert lines(rnd) == [(1, 0, "查叫", 16, "Z18")]


def play_out_step(rnd) -> None:
    """One step of :func:`play_out`."""
    seat = rnd.pending()[0]
    legal = rnd.legal_actions(seat)
    if rnd.window is not None or rnd.seats[seat].declared:
        rnd.apply(next(a for a in legal if a.type is not ActionType.WIN))
    else:
        rnd.apply(Action(ActionType.DISCARD, seat, rnd.seats[seat].drawn))


def test_Z20_seed_case3_only_one_of_1p_1s() -> None:
    """案例3: 111筒、23筒、111条、23条、678条
    问题3: 闲家起手可以听牌且能报杠，那这个杠的选择怎么处理？
    答案3：1筒和1条，仅能选择1个进行报杠，则勾选超出的杠，就提示“抱歉，不能选择更多的杠”；
    """
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"], draws="1p6s1s", back="5s")
    assert rnd.phase is Phase.DECLARE and rnd.pending() == (1,)
    assert options_for(rnd, 1, Action(ActionType.DECLARE, 1)) == [Tile.S1, Tile.P1]
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("1 declare ticks=1p1s"))
    assert refused.value.message == TOO_MANY_KONGS
    play(rnd, "1 declare ticks=1p; 0 discard 9p")
    # The fourth 1p is drawn: it also wins, so 胡 is offered first; declining it, the kong follows.
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.KONG, 1, Tile.P1)]
    play(rnd, "1 kong 1p")
    # The fourth 1p was konged; the fourth 1s (unticked) was discarded.
    assert [m.tile.code for m in rnd.seats[1].melds] == ["1p"]
    play_out(rnd)
    assert [e.tile.code for e in rnd.seats[1].river[:2]] == ["5s", "1s"]
    # 查叫: 平胡 0 + 根 1 + 报叫 1 = 2 (Z18).
    assert lines(rnd) == [(0, 1, "暗杠", 2, "Z14"), (0, 1, "查叫", 4, "Z18")]


def test_Z20_bubao_means_no_kongs() -> None:
    """不报: the fourth 1p is drawn and discarded, never konged; ticks=None is 不报."""
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"], draws="1p")
    play(rnd, "1 declare; 1 bubao; 0 discard 9p")
    assert rnd.legal_actions(1) == [
        Action(ActionType.WIN, 1),
        Action(ActionType.DISCARD, 1, Tile.P1),
    ]
    play(rnd, "1 discard 1p")
    assert rnd.seats[1].melds == []
    assert [e.tile.code for e in rnd.seats[1].river] == ["1p"]
    play_out(rnd)
    # 查叫: 1p, 4p, 1s, 4s; best 平胡 + 根 (1p or 1s) + 报叫 = 2 (Z18).
    assert lines(rnd) == [(0, 1, "查叫", 4, "Z18")]


def test_Z20_ticks_secret_at_table_public_in_replay() -> None:
    """Others see only the 报杠 label; the record and the replay carry the ticks."""
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"])
    play(rnd, "1 declare ticks=1s")
    seen = rnd.observation(0)["seats"][1]
    assert seen["declared"] is True and seen["baogang"] is True
    assert "ticks" not in rnd.observation(0)["me"] or rnd.observation(0)["me"]["ticks"] == []
    assert rnd.observation(1)["me"]["ticks"] == ["1s"]
    record = record_of(rnd)
    assert record["actions"][0] == {"seat": 1, "type": "declare", "ticks": ["1s"]}
    assert replay(record).seats[1].ticks == frozenset({Tile.S1})
    play_out(rnd)
    assert rnd.observation(0)["result"]["ticks"] == [[], ["1s"]]
    # The fourth 1s came off the wall to seat 1 and was konged by force.
    assert lines(rnd) == [(0, 1, "暗杠", 2, "Z14"), (0, 1, "查叫", 4, "Z18")]


def test_Z19_non_dealers_asked_together_window_waits_for_all() -> None:
    """Two ready non-dealers are asked at once; the hand waits for both (Z19, Z3)."""
    rnd = deal(
        ZIGONG,
        ["1245s1245p789s78p3s", "111p23p456s678s99s", "444p56p123s456s77s", "2358s2358p69s69p9p"]
    )
    assert rnd.phase is Phase.DECLARE and rnd.pending() == (1, 2)
    play(rnd, "2 declare")
    # Seat 2 holds 444p: its 报杠 panel opens, and it is still undecided (Z20).
    assert rnd.pending() == (1, 2) and rnd.legal_actions(2) == [Action(ActionType.DECLARE, 2)]
    play(rnd, "2 bubao")
    assert rnd.phase is Phase.DECLARE and rnd.pending() == (1,)
    assert rnd.observation(2)["waiting"] is True
    assert rnd.timeout_action(1) == Action(ActionType.PASS, 1)
    play(rnd, "1 pass")
    assert rnd.phase is Phase.TURN and rnd.turn == 0
    assert [s.declared for s in rnd.seats] == [False, False, True, False]


def test_Z19_declared_seat_passes_win_then_auto_discards() -> None:
    """A win offered to a declared seat may be passed (Z8); draws are discarded for it."""
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"], draws="6s4p")
    play(rnd, "1 declare; 1 bubao; 0 discard 4s")
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1 pass")
    # seat 1 drew 6s and had it discarded automatically; 4p drawn by 0 and discarded:
    assert rnd.seats[1].win_lock is False
    assert [e.tile.code for e in rnd.seats[1].river] == ["6s"]
    play(rnd, "0 discard 4p; 1 win")
    # 平胡 0 + 报叫 1 = 1 (Z11), 点炮 paid by the discarder (Z12).
    assert lines(rnd) == [(0, 1, "牌型:平胡", 2, "Z11")]


# -- Z20: the 报杠 panel as a step of its own ------------------------------------------------

CASE3 = ["44599s5566789p99p", "111p23p111s23s678s"]


def test_Z20_panel_timeout_is_bu_bao() -> None:
    """报叫 without ticks opens the panel; a timeout there is 不报 and 报叫 stands (Z20),
    whereas a timeout before declaring means no 报叫 at all (Z19)."""
    rnd = deal(ZIGONG, CASE3, draws="1p")
    assert rnd.timeout_action(1) == Action(ActionType.PASS, 1)  # Z19: no 报叫
    play(rnd, "1 declare")
    # The panel is open: still undecided, and its only action is the choice.
    assert rnd.phase is Phase.DECLARE and rnd.pending() == (1,)
    assert rnd.legal_actions(1) == [Action(ActionType.DECLARE, 1)]
    assert rnd.observation(1)["me"]["baogang_panel"] == ["1s", "1p"]
    assert rnd.legal_actions(0) == [] and not rnd.seats[1].declared
    timeout = rnd.timeout_action(1)
    assert timeout == Action(ActionType.DECLARE, 1)  # 不报
    rnd.apply(timeout)
    assert rnd.seats[1].declared and rnd.seats[1].ticks is None
    assert rnd.phase is Phase.TURN and rnd.turn == 0 and rnd.pending_declarations == {}
    play(rnd, "0 discard 9p")
    # 不报: the fourth 1p is offered as a win or discarded, never konged.
    assert rnd.legal_actions(1) == [
        Action(ActionType.WIN, 1),
        Action(ActionType.DISCARD, 1, Tile.P1),
    ]


def test_Z20_dealer_panel_holds_the_declaring_discard() -> None:
    """Case 1 in two steps: the dealer's declaring 4p is neither in the river nor claimable
    until the panel is answered; the other seat learns nothing of the panel. The outcome is
    that of the one-step form (test_Z20_seed_case1_dealer_ticks_only_1p_2p)."""
    rnd = deal(ZIGONG, ["111p222p33p4444p44s", CASE1_FILLER], draws="9s1p2p", back="7s8s")
    events = rnd.apply(action("0 declare 4p"))
    assert [e.type for e in events] == ["baogang_panel"]
    assert [view_of(e, v) for e in events for v in (1, None)] == [None, None]
    assert view_of(events[0], 0) == {"type": "baogang_panel", "seat": 0, "options": ["1p", "2p"]}
    assert rnd.observation(0)["me"]["baogang_panel"] == ["1p", "2p"]
    assert rnd.pending() == (0,) and rnd.window is None
    assert rnd.seats[0].river == [] and not rnd.seats[0].declared
    seen = rnd.observation(1)
    assert seen["seats"][0]["river"] == [] and seen["seats"][0]["declared"] is False
    assert "baogang_panel" not in seen["me"] and seen["me"]["legal"] == []
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("1 discard 9s"))
    assert refused.value.code == "not_your_turn"
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("0 discard 3p"))
    assert refused.value.message == "请先选择报杠或不报"
    # The seed's refusals, on the panel built from the 13 tiles after the discard.
    with pytest.raises(IllegalActionError) as refused:
        rnd.apply(action("0 baogang ticks="))
    assert refused.value.message == NOTHING_TICKED
    with pytest.raises(IllegalActionError):
        rnd.apply(action("0 baogang ticks=1p4p"))
    assert rnd.seats[0].river == [] and rnd.pending() == (0,)
    events = rnd.apply(action("0 baogang ticks=1p2p"))
    assert [e.type for e in events][:2] == ["discard", "declare"]
    assert view_of(events[1], 1) == {"type": "declare", "seat": 0, "baogang": True}
    assert view_of(events[1], 0) == {"type": "declare", "seat": 0, "baogang": True,
                                  "ticks": ["1p", "2p"]}
    assert rnd.seats[0].ticks == frozenset({Tile.P1, Tile.P2})
    assert [e.tile for e in rnd.seats[0].river] == [Tile.P4]
    play(rnd, "1 discard 9s; 1 discard 2p")
    assert [(m.kind.value, m.tile.code) for m in rnd.seats[0].melds] == [
        ("concealed_kong", "1p"),
        ("exposed_kong", "2p"),
    ]
    record = record_of(rnd)
    assert record["actions"][:2] == [
        {"seat": 0, "type": "discard", "tile": "4p", "declare": True},
        {"seat": 0, "type": "declare", "ticks": ["1p", "2p"]},
    ]
    assert replay(record).snapshot() == rnd.snapshot()
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "查叫", 16, "Z18"),
    ]


def test_Z20_dealer_panel_timeout_is_bu_bao() -> None:
    """A timeout on the dealer's panel is 不报: the declaring discard is made, 报叫 stands."""
    rnd = deal(ZIGONG, ["111p222p33p4444p44s", CASE1_FILLER], draws="9s1p")
    play(rnd, "0 declare 4p")
    timeout = rnd.timeout_action(0)
    assert timeout == Action(ActionType.DECLARE, 0)
    rnd.apply(timeout)
    assert rnd.seats[0].declared and rnd.seats[0].ticks is None
    assert [e.tile for e in rnd.seats[0].river] == [Tile.P4]
    play(rnd, "1 discard 9s")
    # No 报杠: the fourth 1p, drawn, is discarded for the dealer instead of konged.
    assert rnd.seats[0].melds == [] and rnd.seats[0].river[-1].tile is Tile.P1


def test_Z20_panels_in_the_opening_window_stay_private() -> None:
    """Two non-dealers declare at once and both get a panel. The window waits for both
    answers; the others see only "waiting", never the panels or the ticks."""
    rnd = deal(
        ZIGONG,
        ["1245s1245p789s78p3s", "111p23p456s678s99s", "444p56p123s456s77s", "2358s2358p69s69p9p"]
    )
    first = rnd.apply(action("1 declare"))
    second = rnd.apply(action("2 declare"))
    assert [e.type for e in first + second] == ["baogang_panel", "baogang_panel"]
    assert all(view_of(e, v) is None for e in first + second for v in (0, 3, None))
    assert rnd.pending() == (1, 2) and rnd.legal_actions(0) == []
    assert rnd.observation(1)["me"]["baogang_panel"] == ["1p"]
    assert rnd.observation(2)["me"]["baogang_panel"] == ["4p"]
    for viewer in (0, 3, None):
        seen = rnd.observation(viewer)
        assert seen["phase"] == "declare"
        assert [(s["declared"], s["baogang"]) for s in seen["seats"]] == [(False, False)] * 4
        if viewer is not None:
            assert "baogang_panel" not in seen["me"] and "baogang_options" not in seen["me"]
    decided = rnd.apply(action("1 baogang ticks=1p"))
    assert [(e.type, e.audience) for e in decided] == [("decided", 1)]
    assert rnd.pending() == (2,) and rnd.observation(1)["waiting"] is True
    resolved = rnd.apply(rnd.timeout_action(2) or Action(ActionType.PASS, 2))
    declares = [e for e in resolved if e.type == "declare"]
    assert [e.seat for e in declares] == [1, 2]
    assert [view_of(e, 0) for e in declares] == [
        {"type": "declare", "seat": 1, "baogang": True},
        {"type": "declare", "seat": 2, "baogang": False},
    ]
    assert rnd.seats[1].ticks == frozenset({Tile.P1}) and rnd.seats[2].ticks is None
    assert rnd.phase is Phase.TURN and rnd.turn == 0
    seen = rnd.observation(3)
    assert [(s["declared"], s["baogang"]) for s in seen["seats"]] == [
        (False, False),
        (True, True),
        (True, False),
        (False, False),
    ]
    assert rnd.observation(1)["me"]["ticks"] == ["1p"] and rnd.observation(2)["me"]["ticks"] == []


def test_Z20_no_triplet_no_panel() -> None:
    """With no triplet to offer there is no panel: the declaration is 不报 at once."""
    rnd = deal(ZIGONG, ["13579s13579p22p55p", "123s456s789s46p99p", "123s456s789s46p88p", A])
    assert options_for(rnd, 1, Action(ActionType.DECLARE, 1)) == []
    events = rnd.apply(action("1 declare"))
    assert [e.type for e in events] == ["decided"]
    assert rnd.pending_declarations == {} and rnd.pending() == (2,)
    assert "baogang_panel" not in rnd.observation(1)["me"]


def test_Z20_records_from_before_the_panel_step_still_replay() -> None:
    """In older records a declaration without ticks was 不报 even with triplets to tick, and
    the next action was someone else's. Replay answers the panel 不报 for them."""
    for hands, script, declarer in (
        (CASE3, "1 declare; 1 bubao; 0 discard 9p", 1),
        (["111p222p33p4444p44s", CASE1_FILLER], "0 declare 4p; 0 bubao; 1 discard 9s", 0),
    ):
        rnd = deal(ZIGONG, hands, draws="9s1p")
        play(rnd, script)
        play_out(rnd)
        record = record_of(rnd)
        # The old form: the same record without the panel's answer (the second action).
        assert record["actions"][1] == {"seat": declarer, "type": "declare"}
        old = dict(record, actions=[record["actions"][0], *record["actions"][2:]])
        again = replay(old)
        assert again.snapshot() == rnd.snapshot()
        assert again.settlement() == rnd.settlement()
        assert record_of(again)["actions"] == record["actions"]


def test_Z20_a_refused_panel_answer_in_a_record_is_reported() -> None:
    """A record whose panel answer ticks too many kongs fails at that action."""
    rnd = deal(ZIGONG, CASE3)
    record = record_of(rnd)
    record["actions"] = [
        {"seat": 1, "type": "declare"},
        {"seat": 1, "type": "declare", "ticks": ["1p", "1s"]},
    ]
    with pytest.raises(RecordError) as failed:
        replay(record)
    assert failed.value.index == 1 and TOO_MANY_KONGS in str(failed.value)
