"""The hand-written statements of every change (``apps.matches.rows``) read and write
exactly what the ORM does, on the backend under test (SQLite, or PostgreSQL in CI's second
pass)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.matches import rows, services
from apps.matches.models import Match, MatchEvent
from apps.matches.tail import TailEntry
from apps.matches.timers import TimerRule

pytestmark = pytest.mark.django_db(transaction=True)
row_locks_only = pytest.mark.skipif(
    not connection.features.has_select_for_update_nowait,
    reason="row locks are PostgreSQL's (CI's second pass); SQLite never waits",
)


def _columns(instance: Model) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_match_lock_reads_what_the_orm_reads(make_table: Any) -> None:
    match = make_table("duyun").match
    Match.objects.filter(pk=match.pk).update(
        deadline=timezone.now(), dissolve_vote={"votes": {"0": True}, "deadline": 1},
        ready_seats=[0, 2], totals=[3, -1, -2, 0],
    )
    expected = Match.objects.get(pk=match.pk)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = rows.match_lock(match.pk).match
    assert _columns(locked) == _columns(expected)
    assert locked._state.adding is False and locked._state.db == "default"
    if connection.features.has_select_for_update:
        assert queries.captured_queries[-1]["sql"].endswith("FOR UPDATE")
    with pytest.raises(Match.DoesNotExist), transaction.atomic():
        rows.match_lock(match.pk + 10_000)


def test_match_write_stores_every_mutable_column_and_nothing_else(make_table: Any) -> None:
    match = make_table("zigong").match
    created, settings = match.created_at, match.settings
    with transaction.atomic():
        locked = rows.match_lock(match.pk).match
        locked.version += 3
        locked.stage = Match.Stage.BETWEEN
        locked.totals = [5, -5, 0, 0]
        locked.ready_seats = [1]
        locked.dissolve_vote = {"proposer": 1, "votes": {"1": True}, "deadline": 123}
        locked.deadline = locked.timer_due = timezone.now() + timedelta(seconds=15)
        locked.settings = {"changed": True}  # frozen: never written by a change
        rows.match_write(locked)
    stored = Match.objects.get(pk=match.pk)
    for name in rows.MUTABLE_MATCH_FIELDS:
        assert getattr(stored, name) == getattr(locked, name), name
    assert stored.settings == settings and stored.created_at == created


def test_events_insert_stores_rows_the_orm_reads_back(make_table: Any) -> None:
    match = make_table("duyun").match
    hand = match.hands.get()
    before = MatchEvent.objects.filter(match=match).count()
    entries = [
        MatchEvent(match=match, seq=match.version + 1, hand=hand, kind=MatchEvent.Kind.ACTION,
                   seat=2, payload={"events": [{"type": "discard", "tile": "1s"}], "n": "幺鸡"}),
        MatchEvent(match=match, seq=match.version + 2, hand=None, kind=MatchEvent.Kind.TABLE,
                   seat=None, payload={"events": []}),
    ]
    with transaction.atomic():
        rows.events_insert(entries)
    stored = list(MatchEvent.objects.filter(match=match).order_by("seq"))[before:]
    assert [(e.seq, e.hand_id, e.kind, e.seat, e.payload) for e in stored] == [
        (e.seq, e.hand_id, e.kind, e.seat, e.payload) for e in entries
    ]
    assert all(e.created_at is not None for e in stored)


def test_change_write_stores_the_row_and_the_log_in_one_statement_on_postgresql(
    make_table: Any,
) -> None:
    """A change's update and log insert: what the ORM reads back equals what was written,
    in one statement on PostgreSQL (the insert in a ``WITH``) and two on SQLite."""
    match = make_table("duyun").match
    hand = match.hands.get()
    with transaction.atomic():
        locked = rows.match_lock(match.pk).match
        entries = [
            MatchEvent(match=locked, seq=locked.version + n, hand=hand, seat=n,
                       kind=MatchEvent.Kind.ACTION, payload={"events": [], "n": n})
            for n in (1, 2)
        ]
        locked.version += 2
        locked.totals = [1, -1, 2, -2]
        with CaptureQueriesContext(connection) as queries:
            rows.change_write(locked, entries)
    assert len(queries.captured_queries) == (1 if connection.vendor == "postgresql" else 2)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.version, stored.totals) == (match.version + 2, [1, -1, 2, -2])
    logged = MatchEvent.objects.filter(match=match, seq__gt=match.version).order_by("seq")
    assert [(e.seq, e.seat, e.payload) for e in logged] == [
        (match.version + n, n, {"events": [], "n": n}) for n in (1, 2)
    ]


def test_change_write_of_a_missing_row_fails_and_logs_nothing(make_table: Any) -> None:
    match = make_table("zigong").match
    with transaction.atomic():
        locked = rows.match_lock(match.pk).match
    entry = MatchEvent(match=locked, seq=locked.version + 1, kind=MatchEvent.Kind.TABLE,
                       payload={"events": []})
    Match.objects.filter(pk=match.pk).delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        rows.change_write(locked, [entry])
    assert not MatchEvent.objects.filter(seq=locked.version + 1, match_id=match.pk).exists()


def _keeping(match: Match) -> TimerRule:
    """A timer rule that keeps ``match``'s live timer (due by then, or nothing due)."""
    return TimerRule(timezone.now(), match.timer_due)


def _change_of(match: Match, hand: Any, count: int) -> list[MatchEvent]:
    """``count`` log rows after the match's version (the version bumped to the last)."""
    entries = [
        MatchEvent(match=match, seq=match.version + n, hand=hand, seat=n,
                   kind=MatchEvent.Kind.ACTION, payload={"events": [], "n": n})
        for n in range(1, count + 1)
    ]
    match.version += count
    return entries


def test_a_conditional_write_of_an_unchanged_row_stores_it_in_one_statement_on_postgresql(
    make_table: Any,
) -> None:
    """A change made from the cache, outside a transaction: what the ORM reads back equals
    what was written, in one statement on PostgreSQL and two (and a transaction) on
    SQLite."""
    match = make_table("duyun").match
    hand = match.hands.get()
    cached = Match.objects.get(pk=match.pk)
    expected = rows.Expected.of(cached)
    entries = _change_of(cached, hand, 2)
    cached.totals = [1, -1, 2, -2]
    with CaptureQueriesContext(connection) as queries:
        written = rows.change_write_if(cached, entries, expected, _keeping(cached))
    assert written == rows.Written(cached.timer_due, cached.timer_due)
    statements = [q["sql"] for q in queries.captured_queries
                  if not q["sql"].startswith(("BEGIN", "COMMIT"))]
    # SQLite: read the timer, update, insert.
    assert len(statements) == (1 if connection.vendor == "postgresql" else 3)
    stored = Match.objects.get(pk=match.pk)
    assert _columns(stored) == _columns(cached)
    logged = MatchEvent.objects.filter(match=match, seq__gt=match.version).order_by("seq")
    assert [(e.seq, e.hand_id, e.seat, e.kind, e.payload) for e in logged] == [
        (match.version + n, hand.pk, n, "action", {"events": [], "n": n}) for n in (1, 2)
    ]
    assert all(e.created_at is not None for e in logged)


@pytest.mark.parametrize("moved", ["version", "status", "totals", "deadline"])
def test_a_conditional_write_of_a_row_that_moved_on_writes_nothing(
    make_table: Any, moved: str,
) -> None:
    """The row changed since the cache (another writer's version, a match dissolved
    outright, a total or a deadline fixed by hand): neither the row nor the log is
    written."""
    match = make_table("zigong").match
    hand = match.hands.get()
    cached = Match.objects.get(pk=match.pk)
    expected = rows.Expected.of(cached)
    changed = {"version": match.version + 5, "status": Match.Status.DISSOLVED,
               "totals": [10, -10, 0, 0],
               "deadline": timezone.now() + timedelta(seconds=30)}[moved]
    Match.objects.filter(pk=match.pk).update(**{moved: changed})
    before = _columns(Match.objects.get(pk=match.pk))
    entries = _change_of(cached, hand, 1)
    cached.totals = [5, -5, 0, 0]
    assert rows.change_write_if(cached, entries, expected, _keeping(cached)) is None
    assert _columns(Match.objects.get(pk=match.pk)) == before
    assert not MatchEvent.objects.filter(match=match, seq__gt=match.version).exists()


_S = timedelta(seconds=1)


@pytest.mark.parametrize(("row_live", "due", "after", "armed"), [
    (3 * _S, 15 * _S, 3 * _S, False),  # fires by the next due moment: kept
    (15 * _S, 15 * _S, 15 * _S, False),  # fires exactly then: kept
    (-1 * _S, 15 * _S, 15 * _S, True),  # already due (used, or late): a new one
    (30 * _S, 15 * _S, 15 * _S, True),  # too late for the next due moment: a new one
    (None, 15 * _S, 15 * _S, True),  # none live: a new one
    (3 * _S, None, 3 * _S, False),  # nothing due: the live one stays
    (None, None, None, False),
])
def test_a_conditional_write_applies_the_timer_rule_to_the_rows_own_timer(
    make_table: Any, row_live: timedelta | None, due: timedelta | None,
    after: timedelta | None, armed: bool,
) -> None:
    """The cached live timer has fired, and the row's moved on since without a new version
    (a timer that re-armed, or none live): the write applies the rule to the row's timer,
    not the cache's. It keeps the row's if it fires after now and by the next due moment,
    else writes that moment, and says which, so that only a new timer is published."""
    match = make_table("duyun").match
    hand = match.hands.get()
    now = timezone.now().replace(microsecond=0)
    cached = Match.objects.get(pk=match.pk)
    cached.timer_due = now - 2 * _S  # fired; never the row's here
    expected = rows.Expected.of(cached)
    moment = {None: None} | {d: now + d for d in (3 * _S, 15 * _S, -1 * _S, 30 * _S)}
    Match.objects.filter(pk=match.pk).update(timer_due=moment[row_live])
    written = rows.change_write_if(cached, _change_of(cached, hand, 1), expected,
                                   TimerRule(now, moment[due]))
    assert written == rows.Written(moment[row_live], moment[after])
    assert written.armed is armed
    assert Match.objects.get(pk=match.pk).timer_due == moment[after]
    assert Match.objects.get(pk=match.pk).version == cached.version


def test_a_conditional_write_refuses_a_timer_moved_before_the_cached_one_fired(
    make_table: Any,
) -> None:
    """Only a timer that fired re-arms: a row whose live timer changed while the cached one
    is still to fire was changed some other way (by hand), and is not written."""
    match = make_table("duyun").match
    hand = match.hands.get()
    now = timezone.now().replace(microsecond=0)
    cached = Match.objects.get(pk=match.pk)
    expected = rows.Expected.of(cached)
    assert cached.timer_due is not None and cached.timer_due > now
    Match.objects.filter(pk=match.pk).update(timer_due=now + 3 * _S)
    assert rows.change_write_if(cached, _change_of(cached, hand, 1), expected,
                                TimerRule(now, now + 15 * _S)) is None
    assert Match.objects.get(pk=match.pk).version == match.version


@row_locks_only
@pytest.mark.parametrize("rearmed_in", [3, 30])
def test_a_conditional_write_that_waited_for_a_rearm_applies_the_rule_to_the_new_timer(
    make_table: Any, rearmed_in: int,
) -> None:
    """A timer re-arms (another transaction, holding the row) while a move's write waits
    for the row: the write reads the timer that transaction committed, not the one before
    it, and keeps it or replaces it by the rule."""
    match = make_table().match
    hand = match.hands.get()
    now = timezone.now().replace(microsecond=0)
    rearmed = now + timedelta(seconds=rearmed_in)
    held, writing = threading.Event(), threading.Event()

    def rearm() -> None:
        try:
            with transaction.atomic():
                rows.match_lock(match.pk)
                held.set()
                writing.wait(10)
                Match.objects.filter(pk=match.pk).update(timer_due=rearmed)
                time.sleep(0.3)  # the write below is waiting for the row by now
        finally:
            connection.close()

    Match.objects.filter(pk=match.pk).update(timer_due=now - 2 * _S)  # the one that fired
    cached = Match.objects.get(pk=match.pk)
    expected = rows.Expected.of(cached)
    holder = threading.Thread(target=rearm)
    holder.start()
    try:
        assert held.wait(10)
        writing.set()
        written = rows.change_write_if(cached, _change_of(cached, hand, 1), expected,
                                       TimerRule(now, now + 15 * _S))
    finally:
        holder.join(10)
    assert written is not None and written.was == rearmed
    assert written.due == (rearmed if rearmed_in <= 15 else now + 15 * _S)
    assert Match.objects.get(pk=match.pk).timer_due == written.due


def test_the_lock_with_a_tail_reads_the_log_after_a_version_and_the_seats(
    make_table: Any,
) -> None:
    """The tail a behind writer catches up from: the same row as the plain lock, every
    entry after ``since`` in order (an action entry's action, nothing for the others), and
    each seat's 托管 columns; on the backend under test."""
    match = make_table("zigong").match
    hand = match.hands.get()
    action = {"type": "discard", "seat": 0, "tile": "1s"}
    MatchEvent.objects.bulk_create([
        MatchEvent(match=match, seq=match.version + 2, hand=None, kind=MatchEvent.Kind.TABLE,
                   payload={"events": [{"type": "ready_next", "seat": 1}]}),
        MatchEvent(match=match, seq=match.version + 1, hand=hand, kind=MatchEvent.Kind.ACTION,
                   seat=0, payload={"events": [], "action": action, "timeout": False}),
    ])
    Match.objects.filter(pk=match.pk).update(version=match.version + 2)
    match.players.filter(seat=2).update(consecutive_timeouts=1, auto_play=True)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        plain = rows.match_lock(match.pk).match
        locked = rows.match_lock(match.pk, since=match.version)
    assert len(queries.captured_queries) == 2
    assert _columns(locked.match) == _columns(plain)
    tail = locked.tail
    assert tail is not None and tail.since == match.version
    assert tail.entries == [
        TailEntry(match.version + 1, "action", hand.pk, action),
        TailEntry(match.version + 2, "table", None, None),
    ]
    assert tail.seats == {0: (0, False), 1: (0, False), 2: (1, True), 3: (0, False)}
    assert tail.reaches(match.version + 2) and not tail.reaches(match.version + 3)
    with transaction.atomic():
        assert rows.match_lock(match.pk, since=match.version + 2).tail.entries == []  # type: ignore[union-attr]
        assert rows.log_tail(match.pk, match.version + 1).entries == tail.entries[1:]


def test_the_lock_statement_is_prepared_on_postgresql(make_table: Any) -> None:
    """The server plans a move's lock once per connection, not on every move
    (``DATABASE_PREPARE_THRESHOLD``, default 5)."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (CI's second pass)")
    match = make_table().match
    for _ in range(7):
        with transaction.atomic():
            rows.match_lock(match.pk)
            rows.match_lock(match.pk, since=0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall() if "FOR UPDATE" in row[0]]
    assert len(prepared) == 2, prepared  # the plain lock and the lock with a tail
    assert sum("json_agg" in sql for sql in prepared) == 1, prepared


@row_locks_only
def test_a_lock_without_waiting_finds_a_held_match_busy_and_changes_nothing(
    make_table: Any,
) -> None:
    """A move process does not wait for a row another process's change holds: the lock
    raises ``MatchBusyError``, and once the holder commits the row locks as usual."""
    table = make_table()
    match_id = table.match.pk
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                rows.match_lock(match_id)
                held.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        before = Match.objects.get(pk=match_id).version
        seat = next(p for p in table.match.players.all())
        with rows.lock_without_waiting():
            with pytest.raises(rows.MatchBusyError), transaction.atomic():
                rows.match_lock(match_id, since=before)
            with pytest.raises(rows.MatchBusyError):
                services.match_act(match_id=match_id, user_id=seat.user_id,
                                   payload={"type": "pass", "v": before})
        assert Match.objects.get(pk=match_id).version == before
    finally:
        release.set()
        holder.join(10)
    with rows.lock_without_waiting(), transaction.atomic():
        assert rows.match_lock(match_id).match.version == before


@row_locks_only
def test_a_conditional_write_without_waiting_finds_a_held_match_busy(make_table: Any) -> None:
    """A move from the cache in a move process does not wait for a row that another
    transaction holds (a timer re-arming) either: ``MatchBusyError``, nothing written; and
    once the holder commits, the same write goes through."""
    match = make_table().match
    hand = match.hands.get()
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                rows.match_lock(match.pk)
                held.set()
                release.wait(10)
        finally:
            connection.close()

    cached = Match.objects.get(pk=match.pk)
    expected = rows.Expected.of(cached)
    entries = _change_of(cached, hand, 1)
    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        with rows.lock_without_waiting(), pytest.raises(rows.MatchBusyError):
            rows.change_write_if(cached, entries, expected, _keeping(cached))
        assert Match.objects.get(pk=match.pk).version == match.version
        assert not MatchEvent.objects.filter(match=match, seq__gt=match.version).exists()
    finally:
        release.set()
        holder.join(10)
    with rows.lock_without_waiting():
        assert rows.change_write_if(cached, entries, expected, _keeping(cached)) is not None
    assert Match.objects.get(pk=match.pk).version == match.version + 1
