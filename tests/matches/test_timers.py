"""Decision timers: a match's timer and the sweep act on what is due, on a clock the tests
move."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from apps.matches import pacing, services, timers
from apps.matches.frames import view_version
from apps.matches.models import Match, MatchEvent, MatchPlayer
from tests.support.clock import when_due
from tests.support.rounds import round_now

pytestmark = pytest.mark.django_db(transaction=True)


def timeout_entries(match: Match) -> list[MatchEvent]:
    return [
        e for e in MatchEvent.objects.filter(match=match, kind="action").order_by("seq")
        if e.payload.get("timeout")
    ]


def test_a_timeout_discards_the_rightmost_tile(make_table: Any, clock: Any) -> None:
    table = make_table()
    match = table.match
    dealer = match.hands.get().dealer
    from apps.matches.selectors import table_snapshot

    me = table_snapshot(match.pk, dealer)["observation"]["me"]
    rightmost = me["drawn"] or me["hand"][-1]
    when_due(clock, match)  # the turn's deadline passes: the sweep plays the timeout action
    entry = timeout_entries(match)[0]
    assert entry.seat == dealer
    assert entry.payload["action"] == {"seat": dealer, "type": "discard", "tile": rightmost}
    assert MatchPlayer.objects.get(match=match, seat=dealer).consecutive_timeouts == 1


def test_a_sweep_before_anything_is_due_changes_nothing(make_table: Any) -> None:
    table = make_table()
    match = table.match
    assert match.timer_due == match.deadline and match.deadline > timezone.now()
    assert services.match_timers_fire() == 0
    match.refresh_from_db()
    assert match.version == table.match.version
    assert timeout_entries(match) == []


def test_a_deadline_the_player_beat_does_not_time_them_out(make_table: Any) -> None:
    """The due moment moves with every decision: a sweep after the first deadline finds
    the next one, not the old one, and does nothing."""
    table = make_table()
    match = table.match
    dealer = match.hands.get().dealer
    tile = round_now(match).observation(dealer)["me"]["hand"][0]
    after = services.match_act(
        match_id=match.pk, user_id=table.users[dealer].pk,
        payload={"type": "discard", "tile": tile, "v": view_version(match.views, dealer)},
    )
    match.refresh_from_db()
    assert match.timer_due is not None and match.timer_due > timezone.now()
    assert services.match_timers_fire() == 0
    match.refresh_from_db()
    assert view_version(match.views, dealer) == after
    assert timeout_entries(match) == []


def test_a_match_whose_row_a_move_holds_is_left_to_that_move(make_table: Any) -> None:
    """Several sweepers (or a move) at once: the sweep skips a locked row instead of
    waiting for it (``skip_locked``); the move sets the next due moment itself."""
    from django.db import connection

    table = make_table()
    match = table.match
    Match.objects.filter(pk=match.pk).update(timer_due=timezone.now() - timedelta(seconds=1),
                                             deadline=timezone.now() - timedelta(seconds=1))
    if connection.vendor == "postgresql":
        import threading

        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            from django.db import transaction

            with transaction.atomic():
                Match.objects.select_for_update().get(pk=match.pk)
                held.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(10)
        try:
            assert services.match_timers_fire() == 0
        finally:
            release.set()
            holder.join()
    assert services.match_timers_fire() == 1
    assert len(timeout_entries(match)) == 1


def test_two_timeouts_enter_auto_play_and_a_player_action_ends_it(
    make_table: Any, clock: Any
) -> None:
    table = make_table(auto_play_after=2)
    match = table.match
    player = None
    for _ in range(40):  # nobody moves: every deadline passes
        when_due(clock, match)
        player = MatchPlayer.objects.filter(match=match, auto_play=True).first()
        if player is not None:
            break
    assert player is not None, "two timeouts did not put a seat in 托管"
    entries = timeout_entries(match)
    own = [e for e in entries if e.seat == player.seat]
    switched = [
        i for i, e in enumerate(own)
        if {"type": "auto_play", "seat": player.seat, "on": True}
        in [ev["public"] for ev in e.payload["events"]]
    ]
    # The second timeout switches 托管 on, unless one fell inside a claim window: those are
    # the seat's own business and switch nothing (H1), so its next timeout on its own turn
    # does. Never the first.
    assert switched and switched[0] >= 1, own
    # In 托管 the seat acts after the short delay, not the full 15 s timer.
    seen = len(entries)
    auto_move = None
    for _ in range(40):
        when_due(clock, match)
        auto_move = next((e for e in timeout_entries(match)[seen:] if e.seat == player.seat),
                         None)
        if auto_move is not None:
            break
    assert auto_move is not None
    before = MatchEvent.objects.get(match=match, seq=auto_move.seq - 1)
    # The sweep runs a millisecond past the due moment (tests.support.clock.when_due).
    assert auto_move.created_at - before.created_at <= pacing.AUTO_PLAY_DELAY + timedelta(
        milliseconds=1)
    services.match_act(match_id=match.pk, user_id=table.users[player.seat].pk,
                       payload={"type": "resume"})
    player.refresh_from_db()
    assert not player.auto_play and player.consecutive_timeouts == 0


def test_a_matchs_timer_acts_at_its_moment_and_a_stale_one_does_nothing(
    make_table: Any, clock: Any,
) -> None:
    """The timer a change sends (``apps.matches.timers``) for the turn's deadline: run
    early, it is only sent again for its moment; run at it, the timeout is played once; a
    second copy of it afterwards (the match has moved on) changes nothing."""
    table = make_table()
    match = table.match
    due = match.timer_due
    assert due is not None
    sent: list[tuple[int, Any]] = []
    with mock.patch.object(timers, "timer_set", lambda *args: sent.append(args)):
        services.match_timer_fire(match_id=match.pk, due=due)
        assert sent == [(match.pk, due)] and timeout_entries(match) == []
        clock.move_to(due)
        services.match_timer_fire(match_id=match.pk, due=due)
        assert len(timeout_entries(match)) == 1
        after = Match.objects.get(pk=match.pk)
        assert after.timer_due != due
        services.match_timer_fire(match_id=match.pk, due=due)
    assert len(timeout_entries(match)) == 1
    assert Match.objects.get(pk=match.pk).version == after.version
    # The next decision's deadline is far: the timeout's change sent no timer for it; the
    # sweep sends it once it is near.
    assert after.timer_due is not None and all(moment != after.timer_due for _, moment in sent)
    with mock.patch.object(timers, "timer_set", lambda *args: sent.append(args)):
        clock.move_to(after.timer_due - pacing.timer_lead() - timedelta(milliseconds=1))
        assert services.match_timers_send() == 0
        clock.move_to(after.timer_due - pacing.timer_lead())
        assert services.match_timers_send() == 1
        # One sweep later the moment is sent already: no second timer.
        clock.move_to(after.timer_due - pacing.sweep_interval())
        assert services.match_timers_send() == 0
    assert sent[-1] == (match.pk, after.timer_due)


def test_a_claim_pause_gets_its_timer_from_the_discard_that_holds_it(
    make_table: Any, clock: Any,
) -> None:
    """A near moment (the end of a held window's pause, H4) is sent by the commit of the
    change that set it, not left to the sweep, which may come too late for it."""
    table = make_table("duyun", claim_pause_ms=300)
    match = table.match
    dealer = round_now(match).turn
    tile = round_now(match).observation(dealer)["me"]["hand"][0]
    sent: list[tuple[int, Any]] = []
    with mock.patch.object(timers, "timer_set", lambda *args: sent.append(args)):
        services.match_act(match_id=match.pk, user_id=table.users[dealer].pk, payload={
            "type": "discard", "tile": tile, "v": view_version(match.views, dealer)})
    match.refresh_from_db()
    assert round_now(match).held
    assert sent == [(match.pk, match.timer_due)]
    assert match.timer_due == pacing.hold_until(match, round_now(match))
