"""``manage.py ledger_verify``: passes on random-bot matches played through the real
services (12, four of each game; ``VERIFY_MATCHES`` sets another count); reports a row
edited by raw SQL, and a missing one.
"""

from __future__ import annotations

import os
import random
import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from apps.clubs.models import Club
from apps.ledgers.models import HandResult, LedgerEntry, MatchResult
from apps.matches.models import Hand, Match
from tests.support import factories
from tests.support.play import play, random_policy

pytestmark = pytest.mark.django_db
VARIANTS = ("duyun", "zigong", "basic")
MATCHES = int(os.environ.get("VERIFY_MATCHES", "12"))


def drop_update_trigger(table: str) -> None:
    """What someone editing the database by hand would do first (rolled back after)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"DROP TRIGGER {table}_no_update")
        else:
            cursor.execute(f"DROP TRIGGER {table}_append_only ON {table}")


def verify() -> tuple[bool, str]:
    out = StringIO()
    try:
        call_command("ledger_verify", stdout=out)
    except CommandError as exc:
        return False, out.getvalue() + str(exc)
    return True, out.getvalue()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_ledger_verify_passes_on_random_matches_then_finds_an_edit() -> None:
    rng = random.Random(20240607)
    started = time.monotonic()
    club, players = factories.players_club()
    for n in range(MATCHES):
        room = factories.started_room(club, players, VARIANTS[n % len(VARIANTS)],
                                      base_stake=rng.randint(1, 5))
        play(Match.objects.get(room=room), random_policy(rng))
    played = time.monotonic() - started
    assert Match.objects.filter(status="finished").count() == MATCHES
    hands = Hand.objects.filter(settlement__isnull=False).count()
    assert HandResult.objects.count() == 4 * hands
    assert MatchResult.objects.count() == 4 * MATCHES
    ok, report = verify()
    assert ok, report
    print(f"{MATCHES} matches, {hands} hands, {LedgerEntry.objects.count()} lines in {played:.1f}s")

    entry = LedgerEntry.objects.filter(kind="settlement").order_by("?").first()
    assert entry is not None
    drop_update_trigger("ledgers_ledgerentry")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledgers_ledgerentry SET points = points + 1, amount = amount + base_stake"
            " WHERE id = %s",
            [entry.pk],
        )
    ok, report = verify()
    assert not ok
    assert f"ledgerentry #{entry.pk}: 签名不符" in report
    assert f"ledgerentry #{entry.pk}: 与重算不符" in report
    assert Club.objects.filter(pk=club.pk).exists()


def test_ledger_verify_reports_a_missing_hand_result(finished_table: object) -> None:
    ok, report = verify()
    assert ok, report
    result = HandResult.objects.first()
    assert result is not None
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("DROP TRIGGER ledgers_handresult_append_only ON ledgers_handresult")
        else:
            cursor.execute("DROP TRIGGER ledgers_handresult_no_delete")
        cursor.execute("DELETE FROM ledgers_handresult WHERE id = %s", [result.pk])
    ok, report = verify()
    assert not ok
    assert f"hand #{result.hand_id}" in report and f"缺少座位{result.seat}的成绩" in report
    assert f"第{result.seq}条缺失" in report or "末尾缺失" in report
