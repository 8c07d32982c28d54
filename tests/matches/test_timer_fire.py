"""A live timer's fire, in-process (``services.match_timeout_fire``): the usual early fire
only re-arms, from the match row alone; anything due takes the full path."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.matches import services, state
from apps.matches.change import timer_token
from apps.matches.models import Match, MatchEvent, MatchPlayer

pytestmark = pytest.mark.django_db(transaction=True)


def _arm_live_timer(match: Match, seconds: float) -> int:
    """Make the match's live timer one due ``seconds`` from now; return its token."""
    due = timezone.now() + timedelta(seconds=seconds)
    due = due.replace(microsecond=due.microsecond // 1000 * 1000)
    Match.objects.filter(pk=match.pk).update(timer_due=due)
    return timer_token(due)


def test_an_early_fire_rearms_for_the_deadline_without_the_round(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = make_table().match
    token = _arm_live_timer(match, -0.01)  # fired now, long before the 15 s deadline
    state.round_forget(match.pk)  # no cached round: the full path would have to rebuild

    def no_rebuild(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an early fire rebuilt the round")

    monkeypatch.setattr(state, "round_rebuild", no_rebuild)
    with CaptureQueriesContext(connection) as queries:
        assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert after.version == match.version
    assert after.deadline is not None
    assert after.timer_due == after.deadline.replace(
        microsecond=after.deadline.microsecond // 1000 * 1000
    )
    statements = [q["sql"] for q in queries.captured_queries
                  if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))]
    # live? lock; any seat in 托管? the new timer_due
    assert len(statements) == 4, statements


def test_a_seat_in_auto_play_takes_the_full_path_and_acts(make_table: Any) -> None:
    """托管 acts on a short delay, which needs the round: the early-fire shortcut must not
    swallow it."""
    match = make_table().match
    dealer = match.hands.get().dealer
    MatchPlayer.objects.filter(match=match, seat=dealer).update(auto_play=True)
    Match.objects.filter(pk=match.pk).update(
        changed_at=timezone.now() - services.AUTO_PLAY_DELAY - timedelta(seconds=1)
    )
    state.round_forget(match.pk)  # the rows changed outside a MatchChange
    token = _arm_live_timer(match, -0.01)
    assert services.match_timeout_fire(match_id=match.pk, token=token) is True
    entry = MatchEvent.objects.filter(match=match, kind="action").order_by("-seq").first()
    assert entry is not None and entry.seat == dealer and entry.payload["timeout"] is True


def test_a_fire_past_the_deadline_times_the_seat_out(make_table: Any) -> None:
    match = make_table().match
    dealer = match.hands.get().dealer
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    state.round_forget(match.pk)
    token = _arm_live_timer(match, -0.01)
    assert services.match_timeout_fire(match_id=match.pk, token=token) is True
    assert MatchPlayer.objects.get(match=match, seat=dealer).consecutive_timeouts == 1


def test_a_fire_that_is_no_longer_live_does_nothing(make_table: Any) -> None:
    match = make_table().match
    token = _arm_live_timer(match, -0.01)
    _arm_live_timer(match, 5)  # superseded
    before = Match.objects.get(pk=match.pk)
    assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert (after.version, after.timer_due) == (before.version, before.timer_due)
