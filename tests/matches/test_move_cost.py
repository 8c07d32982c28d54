"""What one ordinary move costs the database: inside its transaction, the match row read
under its lock, then the row's update and the log row's append, on PostgreSQL as one
statement (two round trips in all); on SQLite, in process, as the ORM's two. A move's hand
comes from the process's cache, which the previous change of the match left there: no
other query."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from apps.matches import services, state
from apps.matches.frames import view_version
from apps.matches.models import Match
from tests.support import factories

from .driving import choose

pytestmark = pytest.mark.django_db(transaction=True)  # the cache is refilled on commit

TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.I)


def _next_move(match_id: int) -> tuple[int, dict[str, object], int]:
    """The acting user, a simple legal move of theirs, and the user's own version."""
    match = Match.objects.get(pk=match_id)
    rnd = state.round_rebuild(match, match.hands.order_by("-number").first())
    seat = next(s for s in range(4) if rnd.observation(s)["me"]["legal"])
    move = choose(rnd.observation(seat))
    assert move is not None
    return match.players.get(seat=seat).user_id, move, view_version(match.views, seat)


def _statements_in_its_transaction(user: int, move: dict[str, object], version: int,
                                   match_id: int) -> tuple[int, list[str]]:
    """Make the move; the match's version after it and the kinds of the statements sent
    inside its transaction (not those of the effects that run after the commit)."""
    statements: list[str] = []

    def record(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if connection.in_atomic_block and not TRANSACTION_CONTROL.match(sql):
            statements.append(sql.split()[0].upper())
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        after = services.match_act(match_id=match_id, user_id=user,
                                   payload={**move, "v": version})
    return after, statements


@pytest.mark.parametrize("variant", ["duyun", "zigong"])
def test_an_ordinary_discard_is_a_locked_read_and_one_write(variant: str) -> None:
    table = factories.table(variant)
    counted = []
    for _ in range(6):
        user, move, version = _next_move(table.match.pk)
        after, statements = _statements_in_its_transaction(user, move, version, table.match.pk)
        assert after > version, "the move was applied"
        if move["type"] == "discard":
            counted.append(statements)
    assert counted, "no discard in the first moves"
    expected = (["SELECT", "WITH"] if connection.vendor == "postgresql"
                else ["SELECT", "UPDATE", "INSERT"])
    assert all(statements == expected for statements in counted), counted
