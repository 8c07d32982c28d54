"""A process's cached state of a match that another process (a worker's timer, a second
daphne) has moved on since: brought forward from the log to exactly the log's state."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from apps.matches import services, state
from apps.matches.frames import view_version
from apps.matches.models import Match
from tests.support import factories
from tests.support.clock import when_due

from .driving import choose

pytestmark = pytest.mark.django_db(transaction=True)  # the cache is refilled on commit


def _step(match_id: int, clock: Any) -> None:
    """One change of the match: a held window's pause ends on its timer (H4), else a
    pending seat makes a simple move. Chosen from the log, so this process's cache is
    neither read nor taken."""
    match = Match.objects.get(pk=match_id)
    rnd = state.round_rebuild(match, match.hands.order_by("-number").first())
    if rnd.held:
        when_due(clock, match)
        return
    seat = next(s for s in rnd.pending() if rnd.observation(s)["me"]["legal"])
    move = choose(rnd.observation(seat))
    assert move is not None
    services.match_act(match_id=match_id, user_id=match.players.get(seat=seat).user_id,
                       payload={**move, "v": view_version(match.views, seat)})


@pytest.mark.parametrize("variant", ["duyun", "zigong"])
def test_a_state_cached_changes_ago_is_brought_forward_to_the_logs_state(
    variant: str, clock: Any,
) -> None:
    table = factories.table(variant, claim_pause_ms=300)
    match_id = table.match.pk
    for behind in (1, 2, 3, 5, 8):
        _step(match_id, clock)  # this process caches the state its change made
        older = state.state_checkout(Match.objects.get(pk=match_id))
        for _ in range(behind):  # changes made elsewhere, while this process's entry is out
            _step(match_id, clock)
        state.state_forget_all()
        state.state_checkin(older)  # the older entry is all this process has
        match = Match.objects.get(pk=match_id)
        hand = match.hands.order_by("-number").first()
        assert hand is not None and hand.number == 1, "the test stays in one hand"
        # Brought forward, not dealt and replayed again from the start.
        with mock.patch.object(state, "round_rebuild", side_effect=AssertionError("rebuilt")):
            current = state.state_checkout(match)
        assert current.match.version == match.version
        assert current.rnd is not None
        assert current.rnd.snapshot() == state.round_rebuild(match, hand).snapshot()
        assert [(p.seat, p.auto_play, p.consecutive_timeouts) for p in current.players] == [
            (p.seat, p.auto_play, p.consecutive_timeouts) for p in match.players.order_by("seat")]
        state.state_checkin(current)


def test_a_state_cached_in_an_earlier_hand_is_rebuilt_for_the_new_one(clock: Any) -> None:
    """The cached hand was dealt from another wall: nothing of it carries over."""
    table = factories.table("duyun", hands_per_match=4)
    match_id = table.match.pk
    _step(match_id, clock)
    older = state.state_checkout(Match.objects.get(pk=match_id))
    while Match.objects.get(pk=match_id).hands.count() < 2:  # hand 1 ends, hand 2 is dealt
        match = Match.objects.get(pk=match_id)
        rnd = state.round_rebuild(match, match.hands.order_by("-number").first())
        if rnd.ended or not any(rnd.observation(s)["me"]["legal"] for s in rnd.pending()):
            when_due(clock, match)
        else:
            _step(match_id, clock)
    state.state_forget_all()
    state.state_checkin(older)
    match = Match.objects.get(pk=match_id)
    hand = match.hands.order_by("-number").first()
    assert hand is not None and hand.number == 2
    current = state.state_checkout(match)
    assert current.hand is not None and current.hand.pk == hand.pk
    assert current.rnd is not None
    assert current.rnd.snapshot() == state.round_rebuild(match, hand).snapshot()
