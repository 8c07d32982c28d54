"""Moves made from the cache without the row lock (``MatchChange.from_cache``): what happens
when the row is not the cached one, when the change needs more than its write, and that a
player is always answered from the row itself."""

from __future__ import annotations

import logging
import pickle
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.matches import lifecycle, services, state
from apps.matches.models import Match, MatchEvent, MatchPlayer
from apps.matches.protocol import MatchError

from .test_writer_state import (
    LOCKED,
    MOVE,
    _assert_cache_is_the_log,
    _forget_last_change,
    _move,
    _next_seat,
    _rebuild,
)

pytestmark = pytest.mark.django_db(transaction=True)
TIMER_MOVED = 2 if connection.vendor == "postgresql" else MOVE
"""Statements of a move from the cache whose row's live timer alone moved on: the write
that finds it, then the write by the timer rule (SQLite reads the timer first anyway)."""


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries
            if not q["sql"].upper().startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))]


def _is_write_from_cache(sql: str) -> bool:
    """The conditional write of ``rows.change_write_if`` (its update, on SQLite)."""
    return "updated AS" in sql or (sql.startswith("UPDATE") and '"version" IS ' in
                                   sql.rpartition("WHERE")[2])


def _is_lock(sql: str) -> bool:
    """The lock of ``rows.match_lock`` (the ORM's reads of the row have a ``LIMIT``)."""
    return (sql.startswith('SELECT "matches_match"."id"') and "LIMIT" not in sql
            and 'WHERE "matches_match"."id" =' in sql)


def _log_after(match_id: int, version: int) -> list[tuple[int, str]]:
    return list(MatchEvent.objects.filter(match_id=match_id, seq__gt=version)
                .order_by("seq").values_list("seq", "kind"))


def test_a_move_from_an_entry_the_row_moved_past_is_written_once_on_the_locked_path(
    make_table: Any,
) -> None:
    """Another process logged a table event (a dissolve proposal) while a player sent a
    move for the decision before it (still valid: the decision did not change): the cached
    round accepts the move, but its write finds a newer version and writes nothing. The
    move is made again under the lock, logged once, and the match is marked as changed
    elsewhere."""
    table = make_table()
    match_id = table.match.pk
    seen = Match.objects.get(pk=match_id)
    older = pickle.dumps(state._cache[match_id])
    services.match_act(match_id=match_id, user_id=table.users[3].pk,
                       payload={"type": "dissolve_propose"})
    _forget_last_change(match_id, older)
    version = Match.objects.get(pk=match_id).version
    seat = _next_seat(table)
    action = _rebuild(seen, seen.hands.get()).legal_actions(seat)[0]
    payload = {**action.to_json(), "v": seen.version}
    payload.pop("seat")
    with CaptureQueriesContext(connection) as queries:
        assert services.match_act(match_id=match_id, user_id=table.users[seat].pk,
                                  payload=payload) == version + 1
    assert _log_after(match_id, version) == [(version + 1, "action")]
    assert Match.objects.get(pk=match_id).dissolve_vote is not None  # not overwritten
    assert match_id in state._changed_elsewhere
    statements = _statements(queries)
    tried = [i for i, sql in enumerate(statements) if _is_write_from_cache(sql)]
    locks = [i for i, sql in enumerate(statements) if _is_lock(sql)]
    assert len(tried) == 1 and locks and tried[0] < locks[-1]  # tried, then locked
    _assert_cache_is_the_log(match_id)


def test_a_move_the_stale_entry_refuses_is_decided_from_the_row(make_table: Any) -> None:
    """The cached round is a move behind, so the seat whose turn it now is would be told
    "not your turn" by it: the refusal is not sent; the locked path accepts the move."""
    table = make_table()
    match_id = table.match.pk
    older = pickle.dumps(state._cache[match_id])
    _move(table)
    _forget_last_change(match_id, older)
    seat = _next_seat(table)
    match = Match.objects.get(pk=match_id)
    action = _rebuild(match, match.hands.order_by("-number").first()).legal_actions(seat)[0]
    stale_round = pickle.loads(older)[1].rnd
    assert action not in stale_round.legal_actions(seat)
    payload = {**action.to_json(), "v": match.version}
    payload.pop("seat")
    assert services.match_act(match_id=match_id, user_id=table.users[seat].pk,
                              payload=payload) == match.version + 1
    _assert_cache_is_the_log(match_id)


def _cached_timer_fired(match_id: int) -> None:
    """Make the cached live timer one whose due moment has passed, the row's too: the
    timer fired (and may now re-arm)."""
    fired = (timezone.now() - timedelta(seconds=1)).replace(microsecond=0)
    with state._cache_lock:
        entry = state._cache[match_id][1]
        assert entry.match is not None
        entry.match.timer_due = fired
    Match.objects.filter(pk=match_id).update(timer_due=fired)


def test_a_timer_rearmed_since_the_cache_is_kept_and_the_move_written(make_table: Any) -> None:
    """The cached live timer fired and re-armed without a new version (``timer_due``
    only). The write from the cache, refused by that column alone, is made again applying
    the timer rule to the row's timer, which still fires by the new deadline: it stays the
    live one instead of the cached (used) one, no new timer is published, and the move
    takes no lock."""
    table = make_table()
    match_id = table.match.pk
    _move(table)
    _cached_timer_fired(match_id)
    rearmed = (timezone.now() + timedelta(seconds=5)).replace(microsecond=0)
    Match.objects.filter(pk=match_id).update(timer_due=rearmed)
    version = Match.objects.get(pk=match_id).version
    with mock.patch("apps.matches.change.timer_schedule") as schedule:
        assert _move(table) == TIMER_MOVED
    schedule.assert_not_called()
    stored = Match.objects.get(pk=match_id)
    assert (stored.version, stored.timer_due) == (version + 1, rearmed)
    assert match_id not in state._changed_elsewhere
    _assert_cache_is_the_log(match_id)
    assert _move(table) == MOVE


def test_a_timer_used_up_since_the_cache_is_replaced_and_published(make_table: Any) -> None:
    """The cached live timer fired, and none is live now: the write from the cache arms
    one for the next deadline and publishes exactly that one."""
    table = make_table()
    match_id = table.match.pk
    _move(table)
    _cached_timer_fired(match_id)
    Match.objects.filter(pk=match_id).update(timer_due=None)
    with mock.patch("apps.matches.change.timer_schedule") as schedule:
        assert _move(table) == TIMER_MOVED
    stored = Match.objects.get(pk=match_id)
    assert stored.deadline is not None and stored.timer_due == stored.deadline.replace(
        microsecond=stored.deadline.microsecond // 1000 * 1000)
    schedule.assert_called_once_with(match_id, stored.timer_due)
    _assert_cache_is_the_log(match_id)


def test_a_match_dissolved_outright_is_not_written_back(make_table: Any) -> None:
    """A match marked dissolved by a plain update (no new version, as the load benchmark
    abandons its tables): a move from the cache writes nothing and the player is told the
    match is over."""
    table = make_table()
    match_id = table.match.pk
    _move(table)
    Match.objects.filter(pk=match_id).update(status=Match.Status.DISSOLVED)
    version = Match.objects.get(pk=match_id).version
    with pytest.raises(MatchError) as refused:
        _move(table)
    assert refused.value.code == "match_over"
    assert Match.objects.get(pk=match_id).status == Match.Status.DISSOLVED
    assert _log_after(match_id, version) == []


def test_a_hand_end_from_the_cache_locks_the_row_before_its_first_write(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The move that ends a hand also writes the Hand row, the ledger and more: it takes the
    row lock first, then writes everything in one transaction. Every move of the hand, its
    end included, is made from the cache (the locked path is never opened)."""
    table = make_table()
    match_id = table.match.pk

    def no_locked_path(match_id: int) -> None:
        raise AssertionError("a move of a table served by one process took the locked path")

    monkeypatch.setattr(services.MatchChange, "open", no_locked_path)
    for _ in range(400):
        match = Match.objects.get(pk=match_id)
        if match.stage != Match.Stage.HAND:
            break
        version = match.version
        seat = _next_seat(table)
        rnd = _rebuild(match, match.hands.order_by("-number").first())
        legal = sorted(rnd.legal_actions(seat), key=lambda a: a.type.value != "win")
        payload = {**legal[0].to_json(), "v": match.version}
        payload.pop("seat")
        with CaptureQueriesContext(connection) as queries:
            services.match_act(match_id=match_id, user_id=table.users[seat].pk,
                               payload=payload)
        if Match.objects.get(pk=match_id).stage == Match.Stage.HAND:
            # Written from the cache at the first try (a failed try would add the lock).
            assert len(_statements(queries)) == MOVE
    statements = _statements(queries)
    assert Match.objects.get(pk=match_id).stage != Match.Stage.HAND
    assert _is_lock(statements[0])
    if connection.vendor == "postgresql":
        assert statements[0].endswith("FOR UPDATE")
    assert not any(_is_write_from_cache(sql) for sql in statements)
    hand = Match.objects.get(pk=match_id).hands.get(number=1)
    assert hand.settlement is not None and hand.ended_at is not None
    assert [kind for _, kind in _log_after(match_id, version)][-1] == "hand_end"


def test_a_statement_before_the_lock_sends_the_move_to_the_locked_path(
    make_table: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A change made from the cache must not read or write before it holds the lock (what
    it read could be older than the row): such a statement is refused, logged, and the move
    is made on the locked path instead, once."""
    table = make_table()
    match_id = table.match.pk
    real_apply = lifecycle.action_apply

    def apply_after_a_query(*args: Any, **kwargs: Any) -> None:
        MatchPlayer.objects.filter(match_id=match_id).count()
        real_apply(*args, **kwargs)

    monkeypatch.setattr(lifecycle, "action_apply", apply_after_a_query)
    version = Match.objects.get(pk=match_id).version
    with caplog.at_level(logging.WARNING, logger="apps.matches.change"):
        assert _move(table) > LOCKED
    assert "a statement before the lock" in caplog.text
    assert _log_after(match_id, version) == [(version + 1, "action")]
    monkeypatch.undo()
    _assert_cache_is_the_log(match_id)


def test_a_row_fixed_by_hand_is_not_written_back_over(make_table: Any) -> None:
    """An operator corrects a running match's totals with a plain update (no new version).
    The next move from the cache finds the row changed, and the move is made on the locked
    path from the corrected row: the correction stays."""
    table = make_table()
    match_id = table.match.pk
    _move(table)
    Match.objects.filter(pk=match_id).update(totals=[7, -7, 0, 0])
    version = Match.objects.get(pk=match_id).version
    _move(table)
    stored = Match.objects.get(pk=match_id)
    assert (stored.version, stored.totals) == (version + 1, [7, -7, 0, 0])
    _assert_cache_is_the_log(match_id)
