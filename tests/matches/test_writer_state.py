"""The writer's verified state cache (``apps/matches/state.py``): statements per move.

A move by the process that made the previous change costs three statements (lock and read
the match row, update it, insert the log row). A move after a change made by another
process is simulated here by putting back this process's older cache entry: the first such
move rebuilds from the log and marks the match shared; from then on each process publishes
its entry to the shared cache and the next move after a foreign change is three statements
again. Nothing is used unless its version equals the locked row's.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.matches import services, state
from apps.matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def _move(table: Any) -> int:
    """One legal move of the first seat that can act; return the statements it took."""
    match = Match.objects.get(pk=table.match.pk)
    hand = match.hands.order_by("-number").first()
    rnd = state.round_read(match, hand)
    seat = next(s for s in range(4) if rnd.legal_actions(s))
    payload = {**rnd.legal_actions(seat)[0].to_json(), "v": match.version}
    payload.pop("seat")
    with CaptureQueriesContext(connection) as queries:
        services.match_act(match_id=match.pk, user=table.users[seat], payload=payload)
    return sum(not q["sql"].upper().startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))
               for q in queries.captured_queries)


def _forget_last_change(match_id: int, older: bytes) -> None:
    """Make this process's cache look as if the last change had been made elsewhere."""
    with state._cache_lock:
        state._cache[match_id] = pickle.loads(older)


def test_moves_of_one_process_take_three_statements(make_table: Any) -> None:
    table = make_table()
    assert [_move(table) for _ in range(3)] == [3, 3, 3]


def test_after_a_change_elsewhere_the_shared_copy_spares_the_rebuild(make_table: Any) -> None:
    table = make_table()
    match_id = table.match.pk
    state._shared.discard(match_id)
    older = pickle.dumps(state._cache[match_id])
    assert _move(table) == 3
    _forget_last_change(match_id, older)
    # Stale entry: the match is marked shared, nothing is published yet, so rebuild.
    assert _move(table) > 3
    assert match_id in state._shared
    older = pickle.dumps(state._cache[match_id])
    assert _move(table) == 3  # ours again: the local entry, and it is published
    _forget_last_change(match_id, older)
    assert _move(table) == 3  # a change "elsewhere", read back from the shared cache
    # What it read matches the log exactly.
    match = Match.objects.get(pk=match_id)
    hand = match.hands.order_by("-number").first()
    assert state._cache[match_id][1].rnd.snapshot() == state.round_rebuild(match, hand).snapshot()


def test_snapshots_rebuild_a_round_once_and_the_next_move_uses_it(
    make_table: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four seats connecting to a process that has not seen the match (a match started
    elsewhere, a restarted daphne): one rebuild for their four snapshots, none for the
    move that follows, which costs its usual three statements."""
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
    assert _move(table) == 3
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
