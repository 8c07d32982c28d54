"""A small run of the load benchmark: 2 tables, 2 daphne processes, 2 Celery workers, real
Redis and PostgreSQL (``benchmarks/load``).

Seat ``i`` of each room connects (and logs in over HTTP) through daphne ``i % 2``, so every
table is split over both processes. Asserted: every table played to completion; every
client saw every version exactly once and in order (no gap, duplicate or re-snapshot) up
to the match's final version; the log's sequence numbers are contiguous; the ledger is
zero-sum per hand and per match, and so are the stored settlements. No timing is asserted.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from apps.ledgers.models import HandResult, MatchResult
from apps.matches.frames import view_version
from apps.matches.models import Hand, Match, MatchEvent
from benchmarks.load import scenario, tables
from benchmarks.load.processes import Servers, database_url, server_env

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]

PROCESSES = 2
TABLES = 2


@pytest.fixture
def servers(
    transactional_db: None, redis_url: str, settings: object, tmp_path: Path
) -> Iterator[Servers]:
    """Two daphne processes and two Celery workers on the test database and Redis."""
    if connection.vendor != "postgresql":
        pytest.skip("the load test runs against PostgreSQL (set DATABASE_URL)")
    # The servers run benchmarks.load.settings (MD5 passwords, for fast logins): the
    # players this process creates must be hashed the same way.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    env = server_env(
        database=database_url(connection.settings_dict), redis=redis_url,
        queue=f"load-test-{uuid.uuid4().hex[:8]}", unlimited_rate=True,
    )
    started = Servers.start(PROCESSES, env, tmp_path / "logs")
    yield started
    started.stop()


def test_two_tables_over_two_processes_play_to_completion(servers: Servers) -> None:
    """Every table finishes; no client misses an event it may see (versions it skips hold
    none, H2) or gets one twice, and every message it sends is answered; points are
    zero-sum."""
    result, bench, players = scenario.game(
        servers, TABLES, think=0.0, warmup=0.0, duration=400.0, hands_per_match=4
    )
    matches = tables.matches_of(bench)
    assert len(matches) == TABLES
    final = {m.room_id: m for m in matches}
    for m in matches:
        assert m.status == Match.Status.FINISHED, m
        assert m.hands_played == m.hands_total
        seqs = list(MatchEvent.objects.filter(match=m).order_by("seq")
                    .values_list("seq", flat=True))
        assert seqs == list(range(1, m.version + 1))
    for i, bot in enumerate(players):
        log, match = bot.log, final[bench[i // 4].room_id]
        assert log.first_version is not None, f"bot {i} never got a snapshot"
        assert (log.duplicates, log.resnapshots) == (0, 0), (i, log)
        assert log.late == 0, f"bot {i}: a message was neither confirmed nor refused in 5 s"
        assert log.version == view_version(match.views, i % 4), (i, log.version, match.views)
        assert log.status == Match.Status.FINISHED
    assert result.problems["gaps"] == result.problems["duplicates"] == 0
    assert result.problems["unanswered"] == 0

    hand_sums: dict[int, int] = defaultdict(int)
    for hand_id, points in HandResult.objects.filter(match__in=matches).values_list(
        "hand_id", "points"
    ):
        hand_sums[hand_id] += points
    hands = list(Hand.objects.filter(match__in=matches))
    assert len(hand_sums) == len(hands) == sum(m.hands_total for m in matches)
    assert all(total == 0 for total in hand_sums.values()), hand_sums
    for hand in hands:
        assert hand.settlement is not None
        assert sum(hand.settlement["totals"]) == 0
    for m in matches:
        rows = list(MatchResult.objects.filter(match=m).values_list("seat", "points"))
        assert len(rows) == 4
        assert sum(points for _, points in rows) == 0
        assert sorted(rows) == list(enumerate(m.totals))
