"""Decision timers, run by a real Celery worker subprocess (not eager mode)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.matches import services, state
from apps.matches.change import timer_schedule
from apps.matches.models import Match, MatchEvent, MatchPlayer
from tests.support.processes import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)


def hurry(match_id: int, last_version: int | None = None, spare_seat: int | None = None) -> int:
    """Bring the current decision's deadline forward to 0.3 s from now (once per version).

    ``turn_seconds`` cannot go below 5, so the tests shorten each deadline instead and arm
    a fresh timer for it (:func:`services.match_timer_rearm`, as the recovery does).
    """
    match = Match.objects.get(pk=match_id)
    if match.version == last_version or match.deadline is None:
        return match.version
    hand = match.hands.order_by("-number").first()
    if spare_seat is not None and spare_seat in state.round_read(match, hand).pending():
        return match.version
    soon = timezone.now() + timedelta(seconds=0.3)
    if match.deadline > soon and Match.objects.filter(
        pk=match_id, version=match.version
    ).update(deadline=soon):
        services.match_timer_rearm(match_id=match_id)
    return match.version


def wait_until(
    check: Any, timeout: float = 15, hurry_match: int | None = None,
    spare_seat: int | None = None,
) -> Any:
    """Poll ``check()`` until it returns something truthy (hurrying a match's timers)."""
    end = time.monotonic() + timeout
    version = None
    while time.monotonic() < end:
        if hurry_match is not None:
            version = hurry(hurry_match, version, spare_seat)
        result = check()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def timeout_entries(match: Match) -> list[MatchEvent]:
    return [
        e for e in MatchEvent.objects.filter(match=match, kind="action").order_by("seq")
        if e.payload.get("timeout")
    ]


def test_a_timeout_discards_the_rightmost_tile(
    make_table: Any, celery_worker: ServerProcess
) -> None:
    table = make_table()
    match = table.match
    dealer = match.hands.get().dealer
    from apps.matches.selectors import table_snapshot

    me = table_snapshot(match.pk, dealer)["observation"]["me"]
    rightmost = me["drawn"] or me["hand"][-1]
    hurry(match.pk)
    entry = wait_until(lambda: timeout_entries(match))[0]
    assert entry.seat == dealer
    assert entry.payload["action"] == {"seat": dealer, "type": "discard", "tile": rightmost}
    assert MatchPlayer.objects.get(match=match, seat=dealer).consecutive_timeouts == 1


def _succeeded(worker: ServerProcess, task_id: str) -> bool:
    return any(f"[{task_id}] succeeded" in line for line in worker.lines)


def test_a_superseded_timer_does_nothing(make_table: Any, celery_worker: ServerProcess) -> None:
    table = make_table()
    match = table.match
    live = match.timer_due
    assert live is not None and live > timezone.now() + timedelta(seconds=5)
    task = timer_schedule(match.pk, timezone.now() + timedelta(seconds=0.3))  # not live
    wait_until(lambda: _succeeded(celery_worker, task), timeout=10)
    match.refresh_from_db()
    assert (match.version, match.timer_due) == (table.match.version, live)
    assert timeout_entries(match) == []


def test_a_live_timer_that_fires_after_the_player_acted_only_rearms(
    make_table: Any, celery_worker: ServerProcess
) -> None:
    table = make_table()
    match = table.match
    dealer = match.hands.get().dealer
    soon = timezone.now() + timedelta(seconds=0.5)
    soon = soon.replace(microsecond=soon.microsecond // 1000 * 1000)
    Match.objects.filter(pk=match.pk).update(timer_due=soon)  # the live timer, due early
    task = timer_schedule(match.pk, soon)
    from apps.matches.selectors import table_snapshot

    me = table_snapshot(match.pk, dealer)["observation"]["me"]
    after = services.match_act(
        match_id=match.pk, user_id=table.users[dealer].pk,
        payload={"type": "discard", "tile": me["hand"][0], "v": match.version},
    )
    match.refresh_from_db()
    assert match.timer_due == soon  # acting published nothing: the live timer fires first
    wait_until(lambda: _succeeded(celery_worker, task), timeout=10)
    match.refresh_from_db()
    assert match.version == after
    assert timeout_entries(match) == []
    assert match.deadline is not None and match.timer_due == match.deadline.replace(
        microsecond=match.deadline.microsecond // 1000 * 1000
    )


def test_two_timeouts_enter_auto_play_and_a_player_action_ends_it(
    make_table: Any, celery_worker: ServerProcess
) -> None:
    table = make_table(auto_play_after=2)
    match = table.match
    player = wait_until(
        lambda: MatchPlayer.objects.filter(match=match, auto_play=True).first(),
        timeout=20, hurry_match=match.pk,
    )
    entries = timeout_entries(match)
    own = [e for e in entries if e.seat == player.seat]
    assert len(own) >= 2
    assert any(
        ev["public"] == {"type": "auto_play", "seat": player.seat, "on": True}
        for ev in own[1].payload["events"]
    )
    # In 托管 the seat acts after the short delay, not the full 15 s timer.
    seen = len(entries)
    auto_move = wait_until(
        lambda: next((e for e in timeout_entries(match)[seen:] if e.seat == player.seat), None),
        timeout=30, hurry_match=match.pk, spare_seat=player.seat,
    )
    before = MatchEvent.objects.get(match=match, seq=auto_move.seq - 1)
    assert (auto_move.created_at - before.created_at).total_seconds() < 2.5
    services.match_act(match_id=match.pk, user_id=table.users[player.seat].pk,
                       payload={"type": "resume"})
    player.refresh_from_db()
    assert not player.auto_play and player.consecutive_timeouts == 0
