"""The generic round (basic variant): deal, play, claims, kongs, wins, errors and views."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from majiang.actions import Action, ActionType, logged_for_viewer
from majiang.analysis import waits
from majiang.errors import IllegalActionError
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.state import MeldKind, Phase, WinSource
from majiang.tiles import Tile, format_tiles, parse_tile
from majiang.variants import get_variant
from majiang.wall import full_set, shuffled

BASIC = get_variant("basic")
A = ActionType

# Seat 0 deals and discards 5m first. Seat 1 can 碰 it, seat 2 (46m) waits on it.
CLAIM_HANDS = ["5m123456789s1357p", "55m12469s124689p", "46m77788s222333p", "1199m359s145689p"]
# As above, but seat 1 holds three 5m (杠 or 碰) and seat 3 (34m) also waits on 5m.
KONG_HANDS = ["5m123456789s1357p", "555m1246s124689p", "46m77788s222333p", "34m999m99s456p789p"]


def deal(hands: list[str], *, draws: str = "", back: str = "", **settings: Any) -> Round:
    rnd, _ = deal_scenario(
        BASIC, {"players": len(hands), **settings}, hands=hands, draws=draws, back=back
    )
    return rnd


def act(kind: ActionType, seat: int, tile: str | None = None) -> Action:
    return Action(kind, seat, parse_tile(tile) if tile is not None else None)


def hand(rnd: Round, seat: int) -> str:
    return format_tiles(rnd.seats[seat].concealed())


def types(actions: list[Action]) -> list[tuple[str, str | None]]:
    return [(a.type.value, a.tile.code if a.tile is not None else None) for a in actions]


# -- deal ---------------------------------------------------------------------------------


def test_deal_from_seed_follows_the_documented_order() -> None:
    rnd, events = Round.deal(BASIC, {"players": 4}, dealer=2, seed="deal-order")
    wall = shuffled(full_set(list(Tile)), "deal-order")
    order = [2, 3, 0, 1]
    for i, seat in enumerate(order):
        dealt = wall[13 * i : 13 * i + 13] + ([wall[52]] if seat == 2 else [])
        assert hand(rnd, seat) == format_tiles(dealt)
    assert [sum(s.hand) for s in rnd.seats] == [13, 13, 14, 13]
    assert rnd.wall.remaining == 108 - 53
    assert rnd.dealt_last is wall[52]
    assert (rnd.phase, rnd.turn, rnd.pending()) == (Phase.TURN, 2, (2,))
    assert [(e.type, e.seat, e.data.get("count")) for e in events] == [
        ("deal", 2, 14),
        ("deal", 3, 13),
        ("deal", 0, 13),
        ("deal", 1, 13),
        ("turn", 2, None),
    ]
    deal0 = events[2]
    assert deal0.secret["tiles"] == [t.code for t in rnd.seats[0].concealed()]
    assert logged_for_viewer(deal0.to_log(), 0) == deal0.to_json()
    assert logged_for_viewer(deal0.to_log(), 1) == {"type": "deal", "seat": 0, "count": 13}
    assert logged_for_viewer(deal0.to_log(), None) == {"type": "deal", "seat": 0, "count": 13}


def test_deal_needs_a_seed_or_a_full_wall() -> None:
    with pytest.raises(ValueError, match="seed or an explicit wall"):
        Round.deal(BASIC, {"players": 4})
    with pytest.raises(ValueError, match="tile set"):
        Round.deal(BASIC, {"players": 4}, wall=full_set(list(Tile))[:-1])


def test_two_and_three_players() -> None:
    for players in (2, 3):
        rnd, _ = Round.deal(BASIC, {"players": players}, seed="small")
        assert [sum(s.hand) for s in rnd.seats] == [14] + [13] * (players - 1)
        assert rnd.wall.remaining == 108 - 13 * players - 1


# -- draw and discard ---------------------------------------------------------------------


def test_discard_then_next_seat_draws_from_the_front() -> None:
    rnd = deal(CLAIM_HANDS, draws="9m8m")
    before = rnd.wall.remaining
    events = rnd.apply(act(A.DISCARD, 0, "1p"))
    assert [(e.type, e.seat) for e in events] == [("discard", 0), ("draw", 1)]
    assert events[1].tile is Tile.M9 and events[1].private
    assert events[1].data == {"remaining": before - 1}
    assert logged_for_viewer(events[1].to_log(), 2) == {
        "type": "draw", "seat": 1, "remaining": before - 1,
    }
    assert logged_for_viewer(events[1].to_log(), 1) == {
        "type": "draw", "seat": 1, "tile": "9m", "remaining": before - 1,
    }
    assert rnd.seats[1].drawn is Tile.M9
    assert (rnd.turn, rnd.wall.remaining) == (1, before - 1)
    assert [e.tile for e in rnd.seats[0].river] == [Tile.P1]
    rnd.apply(act(A.DISCARD, 1, "1s"))
    assert rnd.seats[2].drawn is Tile.M8


def test_legal_actions_on_a_turn() -> None:
    rnd = deal(CLAIM_HANDS)
    assert types(rnd.legal_actions(0)) == [
        ("discard", c) for c in ["5m", "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s",
                                 "1p", "3p", "5p", "7p"]
    ]
    assert rnd.legal_actions(1) == []
    assert rnd.legal_actions(4) == []
    assert rnd.legal_actions(-1) == []


# -- the claim window -----------------------------------------------------------------------


def test_claim_window_waits_for_every_eligible_seat_and_win_beats_pung() -> None:
    rnd = deal(CLAIM_HANDS)
    events = rnd.apply(act(A.DISCARD, 0, "5m"))
    assert [e.type for e in events] == ["discard", "claim_window"]
    assert rnd.phase is Phase.CLAIM and rnd.pending() == (1, 2)
    assert types(rnd.legal_actions(1)) == [("pung", "5m"), ("pass", None)]
    assert types(rnd.legal_actions(2)) == [("win", None), ("pass", None)]
    assert rnd.legal_actions(3) == [] and rnd.legal_actions(0) == []

    events = rnd.apply(act(A.PUNG, 1, "5m"))
    # Nothing is resolved while seat 2 decides; the decision is for seat 1's eyes only.
    assert [(e.type, e.audience) for e in events] == [("decided", 1)]
    assert logged_for_viewer(events[0].to_log(), 2) is None
    assert logged_for_viewer(events[0].to_log(), None) is None
    assert rnd.phase is Phase.CLAIM and rnd.pending() == (2,) and rnd.seats[1].melds == []
    assert rnd.observation(1)["waiting"] is True
    assert rnd.observation(2)["waiting"] is False

    events = rnd.apply(act(A.WIN, 2))
    assert [e.type for e in events] == ["decided", "win", "hand_end"]
    assert rnd.ended and rnd.end_reason == "win"
    [win] = rnd.wins
    assert (win.seat, win.tile, win.source, win.from_seat) == (2, Tile.M5, WinSource.DISCARD, 0)
    assert format_tiles(win.concealed) == "46m77788s222333p"
    assert win.payers == (3, 0, 1)
    assert rnd.seats[1].melds == []
    assert rnd.seats[0].river[-1].won_by == (2,)
    assert rnd.settlement().totals == (-1, 0, 1, 0)
    assert rnd.next_dealer() == (2, 1)


def test_pung_when_the_winner_passes() -> None:
    rnd = deal(CLAIM_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 2))
    events = rnd.apply(act(A.PUNG, 1, "5m"))
    assert [(e.type, e.seat) for e in events] == [("decided", 1), ("pung", 1)]
    assert (rnd.phase, rnd.turn) == (Phase.TURN, 1)
    meld = rnd.seats[1].melds[0]
    assert (meld.kind, meld.tile, meld.from_seat) == (MeldKind.PUNG, Tile.M5, 0)
    assert hand(rnd, 1) == "12469s124689p"
    assert rnd.seats[0].river[-1].claimed_by == 1
    assert rnd.seats[1].drawn is None
    # After a 碰 the seat discards without drawing: no kong, no win.
    assert {a.type for a in rnd.legal_actions(1)} == {A.DISCARD}
    assert len(rnd.legal_actions(1)) == 11
    # Passing an offered win sets the pass lock (released at the seat's next draw).
    assert rnd.seats[2].win_lock and rnd.snapshot()["seats"][2]["locks"] == [True, False]


def test_all_pass_moves_play_on() -> None:
    rnd = deal(CLAIM_HANDS, draws="9m")
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 1))
    events = rnd.apply(act(A.PASS, 2))
    assert [(e.type, e.seat) for e in events] == [("decided", 2), ("draw", 1)]
    assert rnd.seats[0].river[-1].in_river


def test_decision_errors_in_a_window() -> None:
    rnd = deal(CLAIM_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.WIN, 2))
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(act(A.PASS, 2))
    assert info.value.code == "already_decided"
    assert info.value.message == "你已经做出选择，请等待其他玩家"
    for seat in (0, 3):
        with pytest.raises(IllegalActionError) as info:
            rnd.apply(act(A.PASS, seat))
        assert info.value.code == "not_your_turn"
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(act(A.KONG, 1, "5m"))
    assert info.value.code == "illegal_action"


def test_several_winners_on_one_discard_beat_a_kong() -> None:
    rnd = deal(KONG_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    assert types(rnd.legal_actions(1)) == [("kong", "5m"), ("pung", "5m"), ("pass", None)]
    rnd.apply(act(A.KONG, 1, "5m"))
    rnd.apply(act(A.WIN, 3))
    events = rnd.apply(act(A.WIN, 2))
    assert [(e.type, e.seat) for e in events] == [
        ("decided", 2),
        ("win", 2),
        ("win", 3),
        ("hand_end", None),
    ]
    assert [(w.seat, w.group, w.from_seat) for w in rnd.wins] == [(2, 0, 0), (3, 0, 0)]
    assert rnd.seats[1].melds == [] and rnd.kongs == []
    assert rnd.seats[0].river[-1].won_by == (2, 3)
    assert rnd.settlement().totals == (-2, 0, 1, 1)
    assert rnd.next_dealer() == (2, 1)


def test_exposed_kong_replaces_from_the_back() -> None:
    rnd = deal(KONG_HANDS, back="7m")
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 2))
    rnd.apply(act(A.PASS, 3))
    front = rnd.wall.drawn_from_front
    events = rnd.apply(act(A.KONG, 1, "5m"))
    assert [(e.type, e.seat, e.tile) for e in events] == [
        ("decided", 1, None),
        ("kong", 1, Tile.M5),
        ("draw", 1, Tile.M7),
    ]
    assert events[1].data == {"kind": "exposed_kong", "from": 0}
    assert events[2].data == {"replacement": True} and events[2].private
    assert (rnd.wall.drawn_from_back, rnd.wall.drawn_from_front) == (1, front)
    assert [(m.kind, m.tile, m.from_seat) for m in rnd.seats[1].melds] == [
        (MeldKind.EXPOSED_KONG, Tile.M5, 0)
    ]
    [kong] = rnd.kongs
    assert (kong.seat, kong.kind, kong.from_seat, kong.payers) == (
        1, MeldKind.EXPOSED_KONG, 0, (2, 3, 0)
    )
    assert (rnd.turn, rnd.seats[1].drawn, rnd.replacement_turn) == (1, Tile.M7, True)
    assert rnd.turn_kongs == (0,)
    assert hand(rnd, 1) == "7m1246s124689p"


def test_concealed_kong_and_win_on_the_replacement() -> None:
    rnd = deal(
        ["5555m123456789s1p", "2468m2468s2468p9m", "1379m1379s1379p6m", "2468m2468s2468p9m"],
        back="1p",
    )
    assert ("kong", "5m") in types(rnd.legal_actions(0))
    assert ("win", None) not in types(rnd.legal_actions(0))
    events = rnd.apply(act(A.KONG, 0, "5m"))
    assert [(e.type, e.tile) for e in events] == [("kong", Tile.M5), ("draw", Tile.P1)]
    assert rnd.seats[0].melds[0].kind is MeldKind.CONCEALED_KONG
    assert rnd.kongs[0].payers == (1, 2, 3)
    assert types(rnd.legal_actions(0))[0] == ("win", None)
    events = rnd.apply(act(A.WIN, 0))
    assert [e.type for e in events] == ["win", "hand_end"]
    [win] = rnd.wins
    assert (win.source, win.tile, win.kong_replacement, win.from_seat) == (
        WinSource.SELF_DRAW, Tile.P1, True, None
    )
    assert format_tiles(win.concealed) == "123456789s1p"
    assert win.counts[Tile.P1] == 2
    assert rnd.settlement().totals == (3, -1, -1, -1)
    assert rnd.next_dealer() == (0, 2)


def test_self_draw_win_from_the_front() -> None:
    # Seat 1 waits on 5m and draws it.
    rnd = deal(
        ["2468m2468s2468p9m1s", "46m77788s222333p", "1379m1379s1579p5s", "1379m1359s1479p5p"],
        draws="5m",
    )
    rnd.apply(act(A.DISCARD, 0, "1s"))
    assert rnd.seats[1].drawn is Tile.M5
    assert types(rnd.legal_actions(1))[0] == ("win", None)
    rnd.apply(act(A.WIN, 1))
    [win] = rnd.wins
    assert (win.seat, win.source, win.kong_replacement, win.payers) == (
        1, WinSource.SELF_DRAW, False, (2, 3, 0)
    )
    assert rnd.settlement().totals == (-1, 3, -1, -1)
    assert [(line.payer, line.payee, line.points) for line in rnd.settlement().lines] == [
        (2, 1, 1), (3, 1, 1), (0, 1, 1)
    ]


# Seat 1 碰s 5m from the dealer, draws the fourth 5m later and adds it (补杠); seat 2 waits
# on 5m and may rob it.
ROB_HANDS = CLAIM_HANDS
ROB_DRAWS = "2m3m7m5m"


def _to_added_kong() -> Round:
    rnd = deal(ROB_HANDS, draws=ROB_DRAWS, back="8m")
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 2))
    rnd.apply(act(A.PUNG, 1, "5m"))
    rnd.apply(act(A.DISCARD, 1, "1s"))
    assert rnd.seats[2].win_lock is False  # released by seat 2's draw
    rnd.apply(act(A.DISCARD, 2, "2m"))
    rnd.apply(act(A.DISCARD, 3, "3m"))
    rnd.apply(act(A.DISCARD, 0, "7m"))
    assert rnd.seats[1].drawn is Tile.M5
    assert ("kong", "5m") in types(rnd.legal_actions(1))
    return rnd


def test_robbing_an_added_kong() -> None:
    rnd = _to_added_kong()
    events = rnd.apply(act(A.KONG, 1, "5m"))
    assert [(e.type, e.seat, e.tile) for e in events] == [("rob_window", 1, Tile.M5)]
    assert rnd.phase is Phase.ROB and rnd.pending() == (2,)
    assert types(rnd.legal_actions(2)) == [("win", None), ("pass", None)]
    events = rnd.apply(act(A.WIN, 2))
    assert [e.type for e in events] == ["decided", "win", "hand_end"]
    [win] = rnd.wins
    assert (win.seat, win.source, win.from_seat, win.tile) == (
        2, WinSource.ROBBING, 1, Tile.M5
    )
    # The robbed tile leaves the konger's hand; the pung stays a pung.
    assert rnd.seats[1].hand[Tile.M5] == 0
    assert [m.kind for m in rnd.seats[1].melds] == [MeldKind.PUNG]
    assert rnd.kongs == []
    assert rnd.settlement().totals == (0, -1, 1, 0)


def test_added_kong_completes_when_nobody_robs() -> None:
    rnd = _to_added_kong()
    rnd.apply(act(A.KONG, 1, "5m"))
    events = rnd.apply(act(A.PASS, 2))
    assert [(e.type, e.tile) for e in events] == [
        ("decided", None), ("kong", Tile.M5), ("draw", Tile.M8)
    ]
    assert events[1].data == {"kind": "added_kong", "from": None}
    meld = rnd.seats[1].melds[0]
    assert (meld.kind, meld.from_seat) == (MeldKind.ADDED_KONG, 0)
    assert rnd.wall.drawn_from_back == 1
    assert rnd.seats[2].win_lock  # passing the robbing win locks too


# -- the end of the wall -------------------------------------------------------------------

# Play "discard what you drew, pass every claim": hands never change, the last front tile
# (5p, the back end of this wall) is drawn by seat 3. Seat 1 holds 55p, seat 2 waits on 5p.
LAST_HANDS = ["147m147s147p258s5p9m", "55p258m13679s369p", "46p111222333m99s", "3689m23678s1378p"]


def _play_to_last_discard() -> Round:
    rnd = deal(LAST_HANDS, back="5p")
    while rnd.wall.remaining or rnd.phase is not Phase.TURN:
        for seat in rnd.pending():
            if rnd.window is not None:
                rnd.apply(Action(A.PASS, seat))
            else:
                tile = rnd.seats[seat].drawn or rnd.dealt_last
                rnd.apply(Action(A.DISCARD, seat, tile))
    assert (rnd.turn, rnd.seats[3].drawn) == (3, Tile.P5)
    return rnd


def test_last_tile_discard_can_only_be_won_on() -> None:
    rnd = _play_to_last_discard()
    rnd.apply(act(A.DISCARD, 3, "5p"))
    assert rnd.window is not None and list(rnd.window.options) == [2]
    assert rnd.legal_actions(1) == []  # holds 55p, but no 碰 on the last tile
    assert types(rnd.legal_actions(2)) == [("win", None), ("pass", None)]
    rnd.apply(act(A.WIN, 2))
    assert rnd.end_reason == "win"
    assert (rnd.wins[0].seat, rnd.wins[0].from_seat) == (2, 3)


def test_exhaustive_draw() -> None:
    rnd = _play_to_last_discard()
    rnd.apply(act(A.DISCARD, 3, "5p"))
    events = rnd.apply(act(A.PASS, 2))
    assert [e.type for e in events] == ["decided", "hand_end"]
    assert events[-1].data == {"reason": "exhausted"}
    assert rnd.ended and rnd.wins == [] and rnd.wall.remaining == 0
    assert rnd.settlement().totals == (0, 0, 0, 0)
    assert rnd.settlement().lines == ()
    assert rnd.next_dealer() == (0, 2)
    assert rnd.pending() == ()
    assert all(rnd.legal_actions(s) == [] for s in range(4))


def test_no_kong_when_the_wall_is_empty() -> None:
    rnd = _play_to_last_discard()
    # Seat 3 has just drawn the last tile: whatever it holds, it may only discard.
    assert {a.type for a in rnd.legal_actions(3)} == {A.DISCARD}


# -- illegal actions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Action(A.DISCARD, 0, Tile.M1), "illegal_action"),  # not in hand
        (Action(A.PUNG, 0, Tile.M5), "illegal_action"),
        (Action(A.WIN, 0), "illegal_action"),
        (Action(A.DECLARE, 0), "illegal_action"),
        (Action(A.KONG, 0, Tile.S1), "illegal_action"),
        (Action(A.DISCARD, 1, Tile.M5), "not_your_turn"),
        (Action(A.PASS, 3), "not_your_turn"),
        (Action(A.DISCARD, 4, Tile.M5), "bad_seat"),
        (Action(A.DISCARD, -1, Tile.M5), "bad_seat"),
    ],
)
def test_illegal_action_raises_and_changes_nothing(action: Action, code: str) -> None:
    rnd = deal(CLAIM_HANDS)
    before = copy.deepcopy(rnd.snapshot())
    history = list(rnd.history)
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(action)
    assert info.value.code == code
    assert info.value.message and str(info.value).startswith(code + ": ")
    assert rnd.snapshot() == before
    assert rnd.history == history


def test_ticks_need_a_declaration() -> None:
    rnd = deal(CLAIM_HANDS)
    before = rnd.snapshot()
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(Action(A.DISCARD, 0, Tile.M5, ticks=(Tile.S1,)))
    assert (info.value.code, info.value.message) == ("illegal_action", "只有报叫时才能报杠")
    assert rnd.snapshot() == before


def test_no_action_after_the_end() -> None:
    rnd = deal(CLAIM_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 1))
    rnd.apply(act(A.WIN, 2))
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(act(A.DISCARD, 3, "1m"))
    assert info.value.code == "hand_over"
    with pytest.raises(IllegalActionError) as info:
        deal(CLAIM_HANDS).settlement()
    assert info.value.code == "hand_not_over"


# -- views ---------------------------------------------------------------------------------


def _concealed_lists(rnd: Round) -> dict[int, list[str]]:
    return {seat: [t.code for t in rnd.seats[seat].concealed()] for seat in range(rnd.players)}


def test_observation_shows_own_tiles_only_and_never_the_wall() -> None:
    rnd = deal(CLAIM_HANDS, draws="9m")
    rnd.apply(act(A.DISCARD, 0, "1p"))
    obs = rnd.observation(1)
    assert obs["me"]["hand"] == ["5m", "5m", "1s", "2s", "4s", "6s", "9s",
                                 "1p", "2p", "4p", "6p", "8p", "9p"]
    assert obs["me"]["drawn"] == "9m"
    assert obs["me"]["legal"][0] == {"seat": 1, "type": "discard", "tile": "5m"}
    assert obs["wall_remaining"] == rnd.wall.remaining
    assert obs["turn"] == 1 and obs["phase"] == "turn"
    for entry in obs["seats"]:
        assert "concealed" not in entry
    assert [entry["hand_size"] for entry in obs["seats"]] == [13, 14, 13, 13]
    assert obs["seats"][0]["river"] == [{"tile": "1p"}]
    assert "wall" not in json.dumps(obs).replace("wall_remaining", "")
    spectator = rnd.observation(None)
    assert "me" not in spectator and all("concealed" not in e for e in spectator["seats"])


def test_observation_after_the_end_reveals_hands() -> None:
    rnd = deal(CLAIM_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 1))
    rnd.apply(act(A.WIN, 2))
    obs = rnd.observation(3)
    assert obs["phase"] == "ended"
    assert obs["seats"][1]["concealed"] == _concealed_lists(rnd)[1]
    assert obs["seats"][2]["win"] == {"tile": "5m", "source": "on_discard", "from": 0}
    assert obs["result"]["reason"] == "win"
    assert obs["result"]["settlement"]["totals"] == [-1, 0, 1, 0]


def test_waits_and_ready_exclude_tiles_held_four_times_via_a_kong() -> None:
    # Seat 0 kongs 5555m; what is left (46m + sets + pair) waits only on the 5m it holds.
    rnd = deal(
        ["5555m46m222333p77s", "1379m1379s1379p6m", "2468m2468s2468p9m", "1379m1379s1468p9m"],
        back="1m",
    )
    rnd.apply(act(A.KONG, 0, "5m"))
    rnd.apply(act(A.DISCARD, 0, "1m"))
    assert hand(rnd, 0) == "46m77s222333p"
    # The table alone says 5m; the seat holds all four (in its kong), so it is no wait.
    assert waits(rnd.seats[0].hand, melds=1) == [Tile.M5]
    assert rnd.waits(0) == []
    assert not rnd.is_ready(0)
    assert rnd.observation(0)["me"]["waits"] == []


def test_ready_and_completes() -> None:
    rnd = deal(CLAIM_HANDS)
    assert rnd.is_ready(2) and rnd.waits(2) == [Tile.M5]
    assert rnd.completes(2, Tile.M5) and not rnd.completes(2, Tile.M4)
    assert not rnd.is_ready(3)
    assert not rnd.is_ready(0)  # 14 tiles: not a 13-tile hand


# -- timers --------------------------------------------------------------------------------


def test_timeout_actions() -> None:
    rnd = deal(CLAIM_HANDS, draws="9m")
    # The dealer has drawn nothing: the rightmost tile in hand order goes.
    assert rnd.timeout_action(0) == Action(A.DISCARD, 0, Tile.P7)
    assert rnd.timeout_action(1) is None
    rnd.apply(act(A.DISCARD, 0, "5m"))
    assert rnd.timeout_action(1) == Action(A.PASS, 1)
    assert rnd.timeout_action(2) == Action(A.WIN, 2)
    assert rnd.timeout_action(0) is None
    rnd.apply(act(A.PASS, 2))
    assert rnd.timeout_action(2) is None
    rnd.apply(act(A.PASS, 1))
    assert rnd.timeout_action(1) == Action(A.DISCARD, 1, Tile.M9)  # the drawn tile


def test_timeout_passes_a_win_when_the_setting_says_so() -> None:
    rnd = deal(CLAIM_HANDS, timeout_takes_win=False)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    assert rnd.timeout_action(2) == Action(A.PASS, 2)


def test_timeout_after_a_pung_discards_the_last_tile() -> None:
    rnd = deal(CLAIM_HANDS)
    rnd.apply(act(A.DISCARD, 0, "5m"))
    rnd.apply(act(A.PASS, 2))
    rnd.apply(act(A.PUNG, 1, "5m"))
    assert rnd.timeout_action(1) == Action(A.DISCARD, 1, Tile.P9)
