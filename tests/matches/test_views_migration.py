"""The upgrade to per-viewer versions (matches 0011) counts them from an existing log
exactly as live play counts them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from apps.matches.models import Match, MatchEvent
from tests.support import factories
from tests.support.clock import later
from tests.support.play import move, random_policy
from tests.support.rounds import round_now


def migrate(target: str) -> None:
    MigrationExecutor(connection).migrate([("matches", target)])


@pytest.mark.django_db(transaction=True)
def test_the_upgrade_counts_each_viewers_versions_from_the_log(clock: Any) -> None:
    # With claim_pause_ms every discard holds its window (H4): a seat's pass in it is
    # its own (a private entry) until the pause ends.
    table = factories.table("duyun", claim_pause_ms=1000)
    match, policy = table.match, random_policy(random.Random(5))
    for _ in range(2000):
        if round_now(match).pending():
            move(match, policy)
        else:
            later(clock, 1.0)
        match.refresh_from_db()
        if match.stage != Match.Stage.HAND:
            break
    live = dict(MatchEvent.objects.filter(match=match).values_list("seq", "views"))
    # Some seat saw fewer entries than the log holds (a private pass), or the test is void.
    assert min(match.views) < match.version
    decided_at = sorted(live)[len(live) // 2]
    migrate("0010_redundant_fk_indexes")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE matches_match SET decision_version = %s WHERE id = %s",
                       [decided_at, match.pk])
    migrate("0011_per_viewer_versions")
    upgraded = Match.objects.get(pk=match.pk)
    assert dict(MatchEvent.objects.filter(match=match).values_list("seq", "views")) == live
    assert upgraded.views == match.views
    assert upgraded.decision_views == live[decided_at]
