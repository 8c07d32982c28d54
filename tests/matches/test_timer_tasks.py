"""A match's timer (:mod:`apps.matches.timers`) through a real Celery worker: the moment a
change sets is kept without waiting for the sweep."""

from __future__ import annotations

import time
from typing import Any

import pytest

from apps.matches import services
from apps.matches.frames import view_version
from apps.matches.models import Match
from tests.support.processes import start_celery_worker
from tests.support.rounds import round_now

from .conftest import TEST_QUEUE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_a_claim_pause_ends_on_its_timer_with_no_sweep(
    make_table: Any, live_env: dict[str, str],
) -> None:
    """With the sweep an hour apart, the pause a discard holds its window for
    (``claim_pause_ms``, H4) still ends: the discard's commit sent the match's timer, and
    the worker acted on it."""
    table = make_table("duyun", claim_pause_ms=300)
    match = table.match
    quiet_sweep = {**live_env, "MATCH_SWEEP_SECONDS": "3600"}
    with start_celery_worker(quiet_sweep, TEST_QUEUE):
        dealer = round_now(match).turn
        tile = round_now(match).observation(dealer)["me"]["hand"][0]
        services.match_act(match_id=match.pk, user_id=table.users[dealer].pk, payload={
            "type": "discard", "tile": tile, "v": view_version(match.views, dealer)})
        match.refresh_from_db()
        held = round_now(match)
        assert held.held, "the discard holds its window for the pause"
        deadline = time.monotonic() + 20  # a real worker, not a timer of the test
        while (now := Match.objects.get(pk=match.pk)).version == match.version:
            assert time.monotonic() < deadline, "the timer did not end the pause"
            time.sleep(0.05)
    # The pause is over: the window closed (the next seat drew) or, when a seat may still
    # claim, it stays open on that seat's own clock (H4: the pause never shortens it).
    assert not round_now(now).held
