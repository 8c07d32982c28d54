"""A live timer's fire, in-process (``services.match_timeout_fire``): the usual early fire
only re-arms, from the match row alone and without its lock; anything due, or a change
committed while the fire looked, takes the locked path."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.matches import rows, services, state
from apps.matches.change import MatchChange, timer_due_of, timer_token
from apps.matches.models import Match, MatchEvent, MatchPlayer

pytestmark = pytest.mark.django_db(transaction=True)


def _arm_live_timer(match: Match, seconds: float) -> int:
    """Make the match's live timer one due ``seconds`` from now; return its token."""
    due = _ms(timezone.now() + timedelta(seconds=seconds))
    Match.objects.filter(pk=match.pk).update(timer_due=due)
    return timer_token(due)


def _count_locks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The matches whose row the fire locks, from now on."""
    locked: list[int] = []
    match_lock = rows.match_lock

    def counted(match_id: int, **kwargs: Any) -> Any:
        locked.append(match_id)
        return match_lock(match_id, **kwargs)

    monkeypatch.setattr(rows, "match_lock", counted)
    return locked


def test_an_early_fire_rearms_for_the_deadline_without_the_round(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = make_table().match
    token = _arm_live_timer(match, -0.01)  # fired now, long before the 15 s deadline
    state.round_forget(match.pk)  # no cached round: the full path would have to rebuild

    def no_rebuild(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an early fire rebuilt the round")

    monkeypatch.setattr(state, "round_rebuild", no_rebuild)
    locks = _count_locks(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert after.version == match.version
    assert after.deadline is not None
    assert after.timer_due == _ms(after.deadline)
    statements = [q["sql"] for q in queries.captured_queries]
    # the row and whether a seat is in 托管; the new timer_due, if the row is unchanged
    assert len(statements) == 2, statements
    assert locks == []


def _play_any_move(table: Any) -> int:
    """Make a legal move (the first legal action of the first seat that has one); return
    the match version afterwards."""
    match = Match.objects.get(pk=table.match.pk)
    rnd = state.table_read(match).rnd
    assert rnd is not None
    seat = next(s for s in range(4) if rnd.legal_actions(s))
    payload = {**rnd.legal_actions(seat)[0].to_json(), "v": match.version}
    payload.pop("seat", None)
    return services.match_act(match_id=match.pk, user_id=table.users[seat].pk,
                              payload=payload)


def _meanwhile(monkeypatch: pytest.MonkeyPatch, times: int, happen: Any) -> list[Any]:
    """Run ``happen()`` each of the first ``times`` times a fire asks for the timer rule,
    between its read of the row and its write; return what each run returned."""
    ran: list[Any] = []
    running: list[bool] = []  # a move asks for the rule too: not then
    timer_rule = MatchChange.timer_rule

    def rule(change: MatchChange) -> Any:
        if len(ran) < times and not running:
            running.append(True)
            try:
                ran.append(happen())
            finally:
                running.clear()
        return timer_rule(change)

    monkeypatch.setattr(MatchChange, "timer_rule", rule)
    return ran


def _ms(moment: Any) -> Any:
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def test_a_move_committed_while_an_early_fire_looked_makes_it_read_again(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fire re-arms only if the row is still the one it read. A move made in between
    keeps the live timer (it fires before the move's deadline) but moves the version on:
    the fire reads the row again and re-arms for the move's deadline, still without the
    lock. Without the version check it would re-arm for the old deadline."""
    table = make_table()
    match = table.match
    token = _arm_live_timer(match, 2)  # fires before the deadline, so a move keeps it
    locks = _count_locks(monkeypatch)
    moves = _meanwhile(monkeypatch, 1, lambda: (_play_any_move(table), locks.clear()))
    assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert [version for version, _ in moves] == [after.version] == [match.version + 1]
    assert after.deadline is not None and after.deadline > match.deadline
    assert after.timer_due == _ms(after.deadline)
    assert locks == []


def test_a_timer_rearmed_while_an_early_fire_looked_is_left_alone(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another re-arm (recovery's, say) writes a new live timer between the fire's read and
    write, with no new version: the fire's write misses on the timer, and the fire, no
    longer the live timer, does nothing more."""
    match = make_table().match
    token = _arm_live_timer(match, -0.01)
    other = _ms(timezone.now() + timedelta(seconds=7))
    _meanwhile(monkeypatch, 1, lambda: Match.objects.filter(pk=match.pk).update(
        timer_due=other))
    locks = _count_locks(monkeypatch)
    assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert (after.version, after.timer_due) == (match.version, other)
    assert locks == []


def test_a_row_that_keeps_moving_sends_an_early_fire_down_the_locked_path(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A move between the read and the write, twice: the fire stops trying and re-arms
    under the row lock, for the latest deadline."""
    table = make_table()
    match = table.match
    token = _arm_live_timer(match, 2)
    locks = _count_locks(monkeypatch)
    moves = _meanwhile(monkeypatch, 2, lambda: (_play_any_move(table), locks.clear()))
    assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    after = Match.objects.get(pk=match.pk)
    assert len(moves) == 2 and after.version == match.version + 2
    assert after.deadline is not None and after.timer_due == _ms(after.deadline)
    assert locks == [match.pk]


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


def test_an_early_fire_during_a_dissolve_vote_rearms_for_the_votes_end(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A vote ends before the turn's deadline: the re-armed timer is due then, so that the
    vote fails on time; still from the row alone."""
    table = make_table()
    match = table.match
    services.match_act(match_id=match.pk, user_id=table.users[1].pk,
                       payload={"type": "dissolve_propose"})
    ends = timer_token(timezone.now() + timedelta(seconds=3))
    match = Match.objects.get(pk=match.pk)
    Match.objects.filter(pk=match.pk).update(
        dissolve_vote={**match.dissolve_vote, "deadline": ends})
    token = _arm_live_timer(match, -0.01)
    locks = _count_locks(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        assert services.match_timeout_fire(match_id=match.pk, token=token) is False
    assert len(queries.captured_queries) == 2, queries.captured_queries
    after = Match.objects.get(pk=match.pk)
    assert after.timer_due == timer_due_of(ends) and after.dissolve_vote is not None
    assert after.deadline is not None and after.timer_due < after.deadline
    assert locks == []
