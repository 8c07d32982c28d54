"""Moves update the match row in place (PostgreSQL's HOT updates): no index names a column
that an ordinary move changes, and the table keeps room on each page for the row's new
version (migration ``0012_hot_updates``). Counted from PostgreSQL's own statistics while
several tables play in turns through the real services."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection

from apps.matches import pacing, services
from apps.matches.models import Match
from apps.matches.selectors import table_snapshot
from tests.support import factories

from .driving import choose

pytestmark = pytest.mark.django_db(transaction=True)  # each move commits, as in play

TABLES = 6
MOVES = 30
"""Moves per table, played in turns across the tables."""
HOT_SHARE = 0.9


def _pg_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("HOT updates are PostgreSQL's (set DATABASE_URL)")


def _match_updates() -> tuple[int, int]:
    """(updates, HOT updates) of ``matches_match`` so far, from ``pg_stat_user_tables``,
    with this connection's pending statistics flushed first (PostgreSQL 15+; older
    servers send them within a second, which :func:`_updates_after` waits for)."""
    with connection.cursor() as cursor:
        if connection.pg_version >= 150000:  # type: ignore[attr-defined]
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                       "WHERE relname = 'matches_match'")
        row = cursor.fetchone()
    return int(row[0]), int(row[1])


def _updates_after(before: tuple[int, int], written: int) -> tuple[int, int]:
    """The (updates, HOT updates) since ``before``, once at least ``written`` show."""
    deadline = time.monotonic() + 10
    while True:
        now = _match_updates()
        delta = now[0] - before[0], now[1] - before[1]
        if delta[0] >= written or time.monotonic() > deadline:
            return delta
        time.sleep(0.2)


def _count_match_row_updates(counted: list[int]) -> Callable[..., Any]:
    """An execute wrapper adding the rows each ``UPDATE "matches_match"`` changed (a move's
    own is in the ``WITH`` of the statement that also appends its log rows, and updates
    the one row the move locked)."""

    def wrapper(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        result = execute(sql, params, many, context)
        statement = sql.lstrip().upper()
        if statement.startswith('UPDATE "MATCHES_MATCH"'):
            counted.append(max(context["cursor"].rowcount, 0))
        elif statement.startswith("WITH") and 'UPDATE "MATCHES_MATCH"' in statement:
            counted.append(1)
        return result

    return wrapper


def _move(match_id: int, users: list[Any]) -> bool:
    """One simple legal move of whichever seat must act; whether one was made."""
    for seat in range(4):
        frame = table_snapshot(match_id, seat)
        move = choose(frame["observation"])
        if move is not None:
            services.match_act(match_id=match_id, user_id=users[seat].pk,
                               payload={**move, "v": frame["v"]})
            return True
    return False


def _page(match_id: int) -> int:
    """The heap page that holds the match row's current version."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT (ctid::text::point)[0]::int FROM matches_match WHERE id = %s",
                       [match_id])
        return int(cursor.fetchone()[0])


def _pruning_held_back() -> bool:
    """Whether another transaction on the server (in any database: it lowers the oldest
    transaction every new snapshot must see) has been open for over a second: PostgreSQL
    keeps the old row versions it might still see, so a page fills up with them and the
    next version of a row must go to another page, which no HOT update can."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid <> "
                       "pg_backend_pid() AND (backend_xid IS NOT NULL OR backend_xmin IS NOT "
                       "NULL) AND xact_start < now() - interval '1 second')")
        return bool(cursor.fetchone()[0])


def test_moves_update_the_match_row_in_place() -> None:
    """Every update that finds room on its row's page is HOT (no index names a column it
    changes; with ``match_due_sweep`` on ``timer_due`` none was), and at least 90% of
    them are, unless a long transaction elsewhere on the server kept the pages from being
    pruned (other test workers' may: then only the first holds)."""
    _pg_only()
    tables = [factories.table("duyun" if i % 2 else "zigong") for i in range(TABLES)]
    matches = [(t.match.pk, t.users) for t in tables]
    pages = {pk: _page(pk) for pk, _ in matches}
    counted: list[int] = []
    moved, held_back = 0, False
    before = _match_updates()
    for _ in range(MOVES):
        for match_id, users in matches:
            if not Match.objects.filter(pk=match_id, stage=Match.Stage.HAND).exists():
                continue
            done = len(counted)
            with connection.execute_wrapper(_count_match_row_updates(counted)):
                _move(match_id, users)
            assert sum(counted[done:]) <= 1, "a move updates the match row once"
            page = _page(match_id)
            moved += page != pages[match_id]  # a row version on another page: not HOT
            pages[match_id] = page
        held_back = held_back or _pruning_held_back()
    written = sum(counted)
    assert written >= TABLES * MOVES // 2, "the tables did not play"
    updates, hot = _updates_after(before, written)
    # The counters are the table's, on every connection: a server of the test before this
    # one may flush a late update of its own into them as it exits (seen once in CI:
    # 163 after 162). This connection's own are all counted by the wrapper; any other's is
    # taken as HOT, so it cannot hide one of ours that was not.
    others = updates - written
    assert 0 <= others <= 2
    assert hot - others >= written - moved, (
        f"{written - moved - hot + others} updates kept their page and were not HOT: an "
        "index names a column they change")
    if not held_back:
        assert hot / updates >= HOT_SHARE, (
            f"{hot} of {updates} match-row updates were HOT ({hot / updates:.0%})")


def test_the_sweep_reads_the_matches_in_play_through_their_partial_index() -> None:
    """The sweep's query uses the partial index on the matches in play once the table is
    large (many finished matches), not a scan of every match ever played."""
    _pg_only()
    playing = factories.table().match
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO matches_match (room_id, club_id, variant, settings, status, stage, "
            "hands_total, hands_played, dealer, streak, totals, version, views, "
            "decision_views, changed_at, created_at, ready_seats, has_computers, has_bots, "
            "bots_allowed, practice, hints) "
            "SELECT room_id, club_id, variant, settings, 'finished', 'over', hands_total, "
            "hands_total, 0, 1, totals, version, views, decision_views, changed_at, "
            "created_at, ready_seats, false, false, false, false, true "
            "FROM matches_match, generate_series(1, 5000) WHERE id = %s", [playing.pk])
        cursor.execute("ANALYZE matches_match")
    sweep = services.matches_due(at=pacing.now() + timedelta(days=1), limit=500)
    plan = sweep.explain()
    assert "match_playing" in plan, plan
    assert list(sweep) == [playing.pk]
