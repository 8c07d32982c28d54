"""The one hand-written statement of live play: :func:`apps.matches.change.match_write`
sends the ORM's own UPDATE of the match row and INSERT of its log rows as one statement on
PostgreSQL. It must write exactly what the ORM's two statements write."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection

from apps.matches import pacing
from apps.matches.change import _MATCH_FIELDS, match_write
from apps.matches.models import Match, MatchEvent
from tests.support import factories

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="elsewhere match_write is the ORM's two statements"),
]


def _changed(match: Match, now: datetime) -> list[MatchEvent]:
    """Change every live field of ``match`` as a deal and a move would, and the two log
    entries such a change appends (private tiles, JSON, a seat and none)."""
    match.version += 2
    match.views = [v + 2 for v in match.views] if match.views else [2, 1, 1, 1, 2]
    match.decision_views = list(match.views)
    match.changed_at = now
    match.deadline = now + timedelta(seconds=15)
    match.timer_due = now + timedelta(seconds=1)
    match.ready_seats = [0, 2]
    match.dissolve_vote = {"proposer": 1, "votes": {"1": True}, "deadline": 123}
    match.offline_since = None
    match.paused_left_ms = 2500
    match.totals = [3, -1, -1, -1]
    hand = match.hands.order_by("-number").first()
    return [
        MatchEvent(match=match, seq=match.version - 1, hand=hand, kind=MatchEvent.Kind.ACTION,
                   seat=2, payload={"action": {"type": "discard", "tile": "5m"},
                                    "events": [{"type": "draw", "seat": 3, "tile": "7p"}]},
                   views=[1, 0, 1, 1, 1]),
        MatchEvent(match=match, seq=match.version, hand=None, kind=MatchEvent.Kind.TABLE,
                   seat=None, payload={"events": [{"type": "ready_next", "seat": 0}]},
                   views=list(match.views)),
    ]


def _stored(match_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    row = Match.objects.values(*_MATCH_FIELDS).get(pk=match_id)
    events = list(MatchEvent.objects.filter(match_id=match_id).order_by("seq").values(
        "seq", "kind", "seat", "payload", "views"))
    hands = list(MatchEvent.objects.filter(match_id=match_id).order_by("seq")
                 .values_list("hand__number", flat=True))
    return row, [{**event, "hand": hand} for event, hand in zip(events, hands, strict=True)]


def test_one_statement_writes_what_the_orms_two_write() -> None:
    one, two = factories.table("duyun").match, factories.table("duyun").match
    before = {m.pk: MatchEvent.objects.filter(match=m).count() for m in (one, two)}

    now = pacing.now()
    match_write(one, _changed(one, now))
    entries = _changed(two, now)
    Match.objects.filter(pk=two.pk).update(**{name: getattr(two, name) for name in _MATCH_FIELDS})
    MatchEvent.objects.bulk_create(entries)

    (row_one, log_one), (row_two, log_two) = _stored(one.pk), _stored(two.pk)
    assert row_one == row_two == {name: getattr(one, name) for name in _MATCH_FIELDS}
    assert log_one[before[one.pk]:] == log_two[before[two.pk]:]
    assert len(log_one) == before[one.pk] + 2
    written = MatchEvent.objects.filter(match=one).order_by("-seq")[0]
    assert written.created_at is not None, "auto_now_add is filled in, as bulk_create does"
