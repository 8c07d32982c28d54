"""The writer's verified state cache (``apps/matches/state.py``): statements per move.

A move by the process that made the previous change is made from its cached entry without
the row lock and costs :data:`MOVE` statements: the write, which checks that the row is
still the cached one (one statement on PostgreSQL, three on SQLite:
``rows.change_write_if``). A change made on the locked path costs :data:`LOCKED`: lock and
read the row, then write it (``rows.change_write``).

A move after changes made by another process is simulated here by putting back this
process's older cache entry. Made from that entry, the move finds that the row moved on:
nothing is written, the entry (which the move altered) is dropped, and the move is made on
the locked path, which loads the rows and rebuilds the round. The match is then marked as
changed elsewhere: its locks read the log tail too and catch the entry up, until
``state.SETTLED_AFTER`` locks in a row found the entry current. Whatever the entry, the
writer's state is exactly the log's.
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.matches import rows, services, state
from apps.matches.change import timer_token
from apps.matches.models import Match, MatchPlayer

pytestmark = pytest.mark.django_db(transaction=True)
MOVE = 1 if connection.vendor == "postgresql" else 3
"""Statements of an ordinary move by the writer that made the previous change (SQLite: read
the live timer, update, insert)."""
LOCKED = 2 if connection.vendor == "postgresql" else 3
"""Statements of an ordinary move on the locked path: the lock, then the write (SQLite:
update, then insert)."""
_rebuild = state.round_rebuild
"""Picks the moves, apart from the cache (and from tests that forbid the writer to rebuild)."""


def _move(table: Any) -> int:
    """One legal move (a win only if nothing else is legal) of the first seat that can act;
    return the statements it took."""
    match = Match.objects.get(pk=table.match.pk)
    rnd = _rebuild(match, match.hands.order_by("-number").first())
    seat = _next_seat(table)
    # Not a win, which would end the hand: these tests count an ordinary move's statements.
    legal = sorted(rnd.legal_actions(seat), key=lambda a: a.type.value == "win")
    payload = {**legal[0].to_json(), "v": match.version}
    payload.pop("seat")
    with CaptureQueriesContext(connection) as queries:
        services.match_act(match_id=match.pk, user_id=table.users[seat].pk, payload=payload)
    return sum(not q["sql"].upper().startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))
               for q in queries.captured_queries)


def _next_seat(table: Any) -> int:
    """The first seat that can act now (the one :func:`_move` moves)."""
    match = Match.objects.get(pk=table.match.pk)
    rnd = _rebuild(match, match.hands.order_by("-number").first())
    return next(s for s in range(4) if rnd.legal_actions(s))


def _step(table: Any) -> None:
    """One move in a hand; between hands, every seat's ``ready_next`` (the next deal)."""
    match = Match.objects.get(pk=table.match.pk)
    if match.stage == Match.Stage.HAND:
        _move(table)
        return
    for user in table.users:
        services.match_act(match_id=match.pk, user_id=user.pk, payload={"type": "ready_next"})


def _forget_last_change(match_id: int, older: bytes) -> None:
    """Make this process's cache look as if the last change had been made elsewhere."""
    with state._cache_lock:
        state._cache[match_id] = pickle.loads(older)


def _behind(match_id: int, older: bytes) -> None:
    """As :func:`_forget_last_change`, in a process that knows the match is changed
    elsewhere (its moves take the lock, which reads the tail)."""
    _forget_last_change(match_id, older)
    with state._cache_lock:
        state._changed_elsewhere[match_id] = 0


def test_moves_of_one_process_are_written_from_the_cache_without_a_lock(
    make_table: Any,
) -> None:
    table = make_table()
    with CaptureQueriesContext(connection) as queries:
        assert [_move(table) for _ in range(3)] == [MOVE] * 3
    assert not any("FOR UPDATE" in q["sql"] or "json_agg" in q["sql"]
                   or "json_group_array" in q["sql"] for q in queries.captured_queries)
    _assert_cache_is_the_log(table.match.pk)


def _changed_elsewhere(table: Any) -> None:
    """A move made "elsewhere": the next one is made on the locked path (the older entry
    refuses it, or writing from it finds the row moved on) and marks the match, whose locks
    then read the tail."""
    match_id = table.match.pk
    older = pickle.dumps(state._cache[match_id])
    version = Match.objects.get(pk=match_id).version
    assert _move(table) == MOVE
    _forget_last_change(match_id, older)
    assert _move(table) > LOCKED
    assert Match.objects.get(pk=match_id).version == version + 2
    assert match_id in state._changed_elsewhere
    _assert_cache_is_the_log(match_id)


def _assert_cache_is_the_log(match_id: int) -> None:
    """The cached entry is the round rebuilt from the log and the rows as stored."""
    match = Match.objects.get(pk=match_id)
    hand = match.hands.order_by("-number").first()
    version, entry = state._cache[match_id]
    assert version == match.version
    assert entry.rnd is not None and hand is not None
    assert entry.rnd.snapshot() == _rebuild(match, hand).snapshot()
    assert entry.hand is not None and entry.hand.pk == hand.pk
    assert (entry.hand.settlement, entry.hand.record, entry.hand.ended_at) == (
        hand.settlement, hand.record, hand.ended_at)
    stored = {p.seat: (p.consecutive_timeouts, p.auto_play) for p in match.players.all()}
    assert {p.seat: (p.consecutive_timeouts, p.auto_play) for p in entry.players} == stored
    if entry.match is not None:  # a writer's entry: the row as written, every column
        assert rows.Expected.of(entry.match).differs(match) == []


def test_after_changes_elsewhere_the_lock_reads_the_tail_and_catches_up(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = make_table()
    match_id = table.match.pk

    def no_rebuild(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the writer rebuilt the round instead of catching up")

    _changed_elsewhere(table)
    monkeypatch.setattr(state, "round_rebuild", no_rebuild)
    older = pickle.dumps(state._cache[match_id])
    assert [_move(table) for _ in range(3)] == [LOCKED] * 3
    _behind(match_id, older)  # three moves behind
    assert _move(table) == LOCKED
    monkeypatch.undo()
    _assert_cache_is_the_log(match_id)


@pytest.mark.parametrize("seen", [1, 0])
def test_a_tail_read_before_the_lock_was_granted_is_read_again(
    make_table: Any, monkeypatch: pytest.MonkeyPatch, seen: int,
) -> None:
    """Under read committed, a lock that waited for another writer reads the tail in the
    snapshot from before that writer committed (here it saw ``seen`` of the two entries,
    and seats that are not the stored ones): the tail is read again, in one more
    statement, instead of trusting a round or seats that lack the last change."""
    table = make_table()
    match_id = table.match.pk
    _changed_elsewhere(table)
    older = pickle.dumps(state._cache[match_id])
    assert [_move(table) for _ in range(2)] == [LOCKED] * 2
    _behind(match_id, older)
    real_lock = rows.match_lock

    def lock_with_a_stale_tail(match_id: int, *, since: int | None = None) -> rows.LockedMatch:
        locked = real_lock(match_id, since=since)
        assert locked.tail is not None and len(locked.tail.entries) == 2
        stale = replace(locked.tail, entries=locked.tail.entries[:seen],
                        seats=dict.fromkeys(locked.tail.seats, (7, True)))
        return replace(locked, tail=stale)

    monkeypatch.setattr(rows, "match_lock", lock_with_a_stale_tail)
    assert _move(table) == LOCKED + 1
    monkeypatch.undo()
    _assert_cache_is_the_log(match_id)


def test_an_entry_tagged_later_than_the_row_is_loaded_again(make_table: Any) -> None:
    """Versions never go back in play, but after a restored database or a truncated log an
    entry may claim a version the row does not have yet: it is not used."""
    table = make_table()
    match_id = table.match.pk
    version, entry = state._cache[match_id]
    assert entry.match is not None
    entry.match.version = version + 2
    with state._cache_lock:
        state._cache[match_id] = (version + 2, entry)
    assert _move(table) > LOCKED
    assert Match.objects.get(pk=match_id).version == version + 1
    _assert_cache_is_the_log(match_id)


def test_a_hand_ended_and_dealt_elsewhere_loads_everything(make_table: Any) -> None:
    """An entry from the previous hand: its tail holds the hand's end and the next deal
    (the Hand row changed), so the writer loads the new hand instead of catching up."""
    table = make_table()
    match_id = table.match.pk
    older = None
    for _ in range(400):
        if Match.objects.get(pk=match_id).stage != Match.Stage.HAND:
            break
        older = pickle.dumps(state._cache[match_id])
        _move(table)
    assert Match.objects.get(pk=match_id).stage == Match.Stage.BETWEEN
    _step(table)  # every seat ready: hand 2 is dealt
    assert older is not None and pickle.loads(older)[1].hand.number == 1
    _forget_last_change(match_id, older)
    assert _move(table) > LOCKED
    _assert_cache_is_the_log(match_id)
    assert state._cache[match_id][1].hand.number == 2


def test_a_table_event_elsewhere_is_followed_with_the_seats_columns(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table event (here a seat leaving 托管) changes no round, only the match row (read
    with the lock) and the seats' columns (read with the tail): the entry behind it is
    caught up, not rebuilt, and is exactly the log."""
    table = make_table()
    match_id = table.match.pk
    MatchPlayer.objects.filter(match_id=match_id, seat=2).update(auto_play=True)
    state.round_forget(match_id)  # the row changed outside a MatchChange
    assert _move(table) > LOCKED
    older = pickle.dumps(state._cache[match_id])
    services.match_act(match_id=match_id, user_id=table.users[2].pk, payload={"type": "resume"})
    _move(table)
    _behind(match_id, older)
    monkeypatch.setattr(state, "round_rebuild", _no_rebuild)
    assert _move(table) == LOCKED
    monkeypatch.undo()
    _assert_cache_is_the_log(match_id)
    assert not any(p.auto_play for p in state._cache[match_id][1].players)


def test_a_hand_ended_elsewhere_is_followed_through_every_ready(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hand's last action, its end (the Hand row's settlement and record) and the 准备
    of each seat, each made by "another process": the entry is caught up every time, with
    the Hand row read again after the end, and the hand is not rebuilt once."""
    table = make_table()
    match_id = table.match.pk
    _changed_elsewhere(table)
    older = None
    while Match.objects.get(pk=match_id).stage == Match.Stage.HAND:
        older = pickle.dumps(state._cache[match_id])
        _move(table)
    assert older is not None
    monkeypatch.setattr(state, "round_rebuild", _no_rebuild)
    _forget_last_change(match_id, older)  # this process last saw the hand before its end
    users = list(table.users)
    for user in users[:-1]:
        older = pickle.dumps(state._cache[match_id])
        services.match_act(match_id=match_id, user_id=user.pk, payload={"type": "ready_next"})
        _assert_cache_is_the_log(match_id)
        _forget_last_change(match_id, older)
    monkeypatch.undo()
    # The last 准备 deals hand 2 from an entry that had not seen the three others.
    services.match_act(match_id=match_id, user_id=users[-1].pk, payload={"type": "ready_next"})
    _assert_cache_is_the_log(match_id)
    assert state._cache[match_id][1].hand.number == 2  # type: ignore[union-attr]


def _no_rebuild(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the writer rebuilt the round instead of catching up")


def test_a_timeout_made_elsewhere_is_caught_up_with_the_seats_columns(make_table: Any) -> None:
    """A Celery worker's timeout changes the seat's timeout count with the action; the
    daphne process behind it catches up both from the lock's read."""
    table = make_table()
    match_id = table.match.pk
    _changed_elsewhere(table)
    older = pickle.dumps(state._cache[match_id])
    # The match row is read with every lock: changing it here needs no round_forget.
    Match.objects.filter(pk=match_id).update(deadline=timezone.now() - timedelta(seconds=1))
    due = timezone.now() - timedelta(seconds=0.01)
    due = due.replace(microsecond=due.microsecond // 1000 * 1000)
    Match.objects.filter(pk=match_id).update(timer_due=due)
    assert services.match_timeout_fire(match_id=match_id, token=timer_token(due)) is True
    timed_out = MatchPlayer.objects.filter(match_id=match_id, consecutive_timeouts=1)
    assert timed_out.count() == 1
    _behind(match_id, older)
    # The lock and the writes; when the seat that timed out moves next, its own move
    # also clears its timeout count (one more UPDATE), but never a read to catch up.
    clears_its_count = _next_seat(table) == timed_out.get().seat
    assert _move(table) == LOCKED + clears_its_count
    _assert_cache_is_the_log(match_id)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.booleans(), min_size=4, max_size=30))
def test_whatever_entry_a_writer_holds_its_state_is_the_log(
    make_table: Any, plan: list[bool],
) -> None:
    """Moves made by two processes in any order (each process's entry is the one it left at
    its own last move, or none): after every move, the writer's state is the log's. A plan
    seldom reaches a hand's end; crossing a deal has its own test above."""
    table = make_table()
    match_id = table.match.pk
    # Each process's own entry and its own record of the match being changed elsewhere
    # (which decides between a move from the cache and the locked path).
    entries: dict[bool, bytes | None] = {False: pickle.dumps(state._cache[match_id]), True: None}
    marks: dict[bool, int | None] = {False: None, True: None}
    for elsewhere in plan:
        with state._cache_lock:
            state._cache.pop(match_id, None)
            state._changed_elsewhere.pop(match_id, None)
            held, mark = entries[elsewhere], marks[elsewhere]
            if held is not None:
                state._cache[match_id] = pickle.loads(held)
            if mark is not None:
                state._changed_elsewhere[match_id] = mark
        if Match.objects.get(pk=match_id).status != Match.Status.PLAYING:
            break
        _step(table)
        marks[elsewhere] = state._changed_elsewhere.get(match_id)
        entries[elsewhere] = None
        if match_id in state._cache:
            _assert_cache_is_the_log(match_id)
            entries[elsewhere] = pickle.dumps(state._cache[match_id])


def test_a_timer_locks_without_a_tail_and_reads_it_only_to_act(make_table: Any) -> None:
    """A timer's fire takes a plain lock (most fires only re-arm, and a worker's entry is
    usually far behind); when it acts, it reads the tail it needs then."""
    table = make_table()
    match_id = table.match.pk
    older = pickle.dumps(state._cache[match_id])
    _move(table)
    _forget_last_change(match_id, older)
    Match.objects.filter(pk=match_id).update(deadline=timezone.now() - timedelta(seconds=1))
    due = timezone.now() - timedelta(seconds=0.01)
    due = due.replace(microsecond=due.microsecond // 1000 * 1000)
    Match.objects.filter(pk=match_id).update(timer_due=due)
    with CaptureQueriesContext(connection) as queries:
        assert services.match_timeout_fire(match_id=match_id, token=timer_token(due)) is True
    tails = [q["sql"] for q in queries.captured_queries
             if "json_agg" in q["sql"] or "json_group_array" in q["sql"]]
    # One read of the tail, on its own (rows.log_tail), not with the lock.
    assert len(tails) == 1 and tails[0].startswith("SELECT (SELECT"), tails
    _assert_cache_is_the_log(match_id)


def test_snapshots_rebuild_a_round_once_and_the_next_move_uses_it(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four seats connecting to a process that has not seen the match (a match started
    elsewhere, a restarted daphne): one rebuild for their four snapshots, none for the
    move that follows, which costs its usual statements."""
    from apps.matches import selectors

    table = make_table()
    match_id = table.match.pk
    state.round_forget(match_id)
    rebuilds: list[int] = []
    real_rebuild = state.round_rebuild

    def counted(*args: Any, **kwargs: Any) -> Any:
        rebuilds.append(1)
        return real_rebuild(*args, **kwargs)

    monkeypatch.setattr(state, "round_rebuild", counted)
    frames = [selectors.table_snapshot(match_id, seat) for seat in range(4)]
    assert len(rebuilds) == 1
    assert len({frame["v"] for frame in frames}) == 1
    # A read's entry holds no match row: this move takes the lock, and leaves one that does.
    assert _move(table) == LOCKED
    assert _move(table) == MOVE
    assert len(rebuilds) == 1


def test_a_snapshot_at_the_cached_version_reads_only_the_match_row(make_table: Any) -> None:
    """After this process's own move, a snapshot (a reconnect, a catch-up) takes its
    players, hand and round from the cached entry: one statement, and the same frames as
    when everything is loaded from the database."""
    from apps.matches import selectors

    table = make_table()
    _move(table)
    match_id = table.match.pk
    with CaptureQueriesContext(connection) as queries:
        cached = [selectors.table_snapshot(match_id, viewer) for viewer in (0, 1, 2, 3, None)]
    assert len(queries.captured_queries) == 5
    state.round_forget(match_id)
    loaded = [selectors.table_snapshot(match_id, viewer) for viewer in (0, 1, 2, 3, None)]
    assert cached == loaded
