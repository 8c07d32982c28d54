"""The table's pauses on a paced round (``shared/rules/README.md`` H3, H4).

H4: with ``claim_pause_ms`` on, every discard and every 补杠 opens the same held window,
whether or not anyone can claim or rob, so what a seat without a choice sees does not
depend on the other hands. H3: at a 自贡 deal the 报叫 phase (Z19) opens for every seat,
ready or not, and lasts until the pause has passed and every ready non-dealer answered.
Neither changes the hand: the same actions unpaced give the same settlement.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from majiang.actions import Action, ActionType, Event, logged_for_viewer
from majiang.round import Round
from majiang.state import Phase
from majiang.variants import get_variant

SEEDS = st.text(alphabet="0123456789abcdef", min_size=8, max_size=16)


def _public(events: list[Event], viewer: int | None) -> list[dict[str, Any]]:
    out = []
    for event in events:
        seen = logged_for_viewer(event.to_log(), viewer)
        if seen is not None:
            out.append(seen)
    return out


def _play_paced(variant: str, seed: str, players: int, **extra: Any) -> tuple[Round, int]:
    """Play a paced hand to its end by timeouts, releasing each pause as soon as its
    window is reached; check H4 at every discard and 补杠; return the round and how many
    pauses were checked."""
    rnd, _ = Round.deal(
        get_variant(variant), {"players": players, "claim_pause_ms": 1000, **extra},
        seed=seed, paced=True,
    )
    pauses = 0
    for _ in range(600):
        if rnd.ended:
            break
        if rnd.held and not rnd.pending():
            rnd.release()
            continue
        seat = rnd.pending()[0]
        action = rnd.timeout_action(seat)
        assert action is not None
        events = rnd.apply(action)
        kinds = [e.type for e in events]
        if not rnd.ended and kinds[-1] in ("claim_window", "rob_window"):
            pauses += 1
            assert rnd.held and rnd.phase in (Phase.CLAIM, Phase.ROB)
            assert rnd.pause_ms == 1000
            for viewer in [*range(players), None]:
                if viewer == seat or viewer in rnd.pending():
                    continue
                # A seat with no choice: the discard and a waiting window, nothing more.
                seen = [e["type"] for e in _public(events, viewer)]
                assert seen[-1] in ("claim_window", "rob_window")
                assert "decided" not in seen
                obs = rnd.observation(viewer)
                assert obs["waiting"] is True
                if viewer is not None:
                    assert obs["me"]["legal"] == []
        if "discard" in kinds and not rnd.ended:
            assert rnd.window is not None, "H4: every discard opens a window"
    assert rnd.ended
    return rnd, pauses


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variant=st.sampled_from(["duyun", "zigong"]))
def test_H4_every_discard_opens_the_same_held_window_and_changes_no_outcome(
    seed: str, players: int, variant: str
) -> None:
    players = max(players, 3) if variant == "duyun" else players  # D1: 3 or 4
    extra = {"declare_pause_ms": 0} if variant == "zigong" else {}
    paced, pauses = _play_paced(variant, seed, players, **extra)
    assert pauses >= 1 or not any(a.type is ActionType.DISCARD for a in paced.history)
    unpaced, _ = Round.deal(
        get_variant(variant), {"players": players, "claim_pause_ms": 1000, **extra}, seed=seed
    )
    for action in paced.history:
        unpaced.apply(action)
    assert unpaced.ended
    assert unpaced.settlement().to_json() == paced.settlement().to_json()


def test_H4_a_held_window_waits_for_release_after_every_seat_has_decided() -> None:
    rnd, _ = Round.deal(get_variant("duyun"), {"claim_pause_ms": 500}, seed="h4", paced=True)
    discard = rnd.timeout_action(rnd.dealer)
    assert discard is not None
    rnd.apply(discard)
    assert rnd.held
    for seat in rnd.pending():
        passed = rnd.timeout_action(seat)
        assert passed is not None
        rnd.apply(passed)
    assert rnd.pending() == () and rnd.window is not None and rnd.phase is Phase.CLAIM
    events = rnd.release()
    assert [e.type for e in events][-1] == "draw" and rnd.window is None
    assert rnd.release() == []


def test_H4_pause_off_or_unpaced_opens_windows_only_for_a_choice() -> None:
    for paced, pause in ((False, 1000), (True, 0)):
        rnd, _ = Round.deal(
            get_variant("duyun"), {"claim_pause_ms": pause}, seed="h4", paced=paced
        )
        assert rnd.pause_ms == 0 or not paced
        discard = rnd.timeout_action(rnd.dealer)
        assert discard is not None
        events = rnd.apply(discard)
        assert not rnd.held
        opened = "claim_window" in [e.type for e in events]
        assert opened == (rnd.window is not None)
        assert not opened or (rnd.window is not None and rnd.window.options)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), dealer=st.integers(0, 3))
def test_H3_Z19_every_deal_opens_the_same_declaration_phase_for_every_seat(
    seed: str, players: int, dealer: int
) -> None:
    dealer %= players
    rnd, events = Round.deal(
        get_variant("zigong"), {"players": players}, dealer=dealer, seed=seed, paced=True
    )
    assert rnd.settings["declare_pause_ms"] == 2000  # H3's default
    asked = set(rnd.pending())
    assert asked == {s for s in range(players) if s != dealer and rnd.is_ready(s)}
    assert rnd.phase is Phase.DECLARE and rnd.held and rnd.pause_ms == 2000
    for viewer in [*range(players), None]:
        shape = [(e["type"], e.get("seat")) for e in _public(events, viewer)]
        deals = [("deal", (dealer + i) % players) for i in range(players)]
        assert [s for s in shape if s[0] == "deal"] == deals
        assert shape[-1] == ("declare_window", None)
        obs = rnd.observation(viewer)
        assert obs["phase"] == "declare"
        assert obs["waiting"] is (viewer not in asked)
        if viewer is not None and viewer not in asked:
            assert obs["me"]["legal"] == []  # the phase, with no choice to make
    for seat in sorted(asked):
        rnd.apply(Action(ActionType.PASS, seat))
    assert rnd.phase is Phase.DECLARE, "the phase lasts at least declare_pause_ms"
    assert [e.type for e in rnd.release()] == ["turn"]
    assert rnd.phase is Phase.TURN and rnd.turn == dealer


def test_H3_without_the_pause_an_unready_deal_goes_straight_to_the_dealer() -> None:
    for seed in ("a1", "b2", "c3", "d4"):
        rnd, events = Round.deal(
            get_variant("zigong"), {"players": 4, "declare_pause_ms": 0}, seed=seed, paced=True
        )
        kinds = [e.type for e in events]
        assert "declare_window" in kinds
        if not rnd.pending():
            assert kinds[-1] == "turn" and rnd.phase is Phase.TURN
