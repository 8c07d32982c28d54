"""托管 between hands, the paused clock of a dissolve vote, and an abandoned table
(issue 32): service-level behaviour measured from the log and the frames players get.

Rulings: D5 / Z6 (timeouts and 托管); the offline pause and dissolution are room settings
of the platform (``offline_pause_seconds``, ``offline_dissolve_seconds``), not rulings.
"""

from __future__ import annotations

import io
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.ledgers.models import HandResult, MatchResult
from apps.matches import selectors, services, state
from apps.matches.frames import view_version
from apps.matches.models import Hand, Match, MatchEvent, MatchPlayer
from tests.matches.driving import choose
from tests.support.rounds import round_now

pytestmark = pytest.mark.django_db(transaction=True)


def all_in_tuoguan(match: Match) -> None:
    MatchPlayer.objects.filter(match=match).update(auto_play=True)
    state.state_forget_all()  # the cached seats still say otherwise


def fire_when_due(match: Match) -> bool:
    """Make the 托管 delay lie in the past, then sweep the match."""
    past = timezone.now() - timedelta(seconds=2)
    Match.objects.filter(pk=match.pk).update(changed_at=past, timer_due=past)
    return services.match_timeout_fire(match_id=match.pk)


def play_out_hand(match: Match) -> None:
    """Let 托管 play the current hand to its end."""
    for _ in range(600):
        fire_when_due(match)
        if Match.objects.get(pk=match.pk).hands_played > match.hands_played:
            return
    raise AssertionError("the hand did not end")


def table_events(match: Match, kind: str) -> list[dict[str, Any]]:
    return [e for entry in MatchEvent.objects.filter(match=match, kind="table").order_by("seq")
            for e in (x["public"] for x in entry.payload["events"]) if e["type"] == kind]


def test_seats_all_in_tuoguan_start_the_next_hand_at_once(make_table: Any) -> None:
    """D5: a seat in 托管 is ready between hands; when every seat is, the next hand is
    dealt by the change that settled the last one, not 15 s later."""
    table = make_table()
    match = table.match
    all_in_tuoguan(match)
    play_out_hand(match)
    match.refresh_from_db()
    assert match.hands_played == 1
    assert match.stage == Match.Stage.HAND
    assert list(Hand.objects.filter(match=match).values_list("number", flat=True)) == [1, 2]
    end = MatchEvent.objects.get(match=match, kind="hand_end")
    deal = MatchEvent.objects.get(match=match, kind="deal", hand__number=2)
    assert deal.seq == end.seq + 1


def test_a_seat_not_in_tuoguan_still_gets_the_settlement_delay(make_table: Any) -> None:
    table = make_table()
    match = table.match
    MatchPlayer.objects.filter(match=match).exclude(seat=0).update(auto_play=True)
    state.state_forget_all()
    for _ in range(600):
        current = Match.objects.get(pk=match.pk)
        if current.stage != "hand":
            break
        move = choose(round_now(current).observation(0))
        if move is None:
            fire_when_due(match)
        else:
            services.match_act(match_id=match.pk, user_id=table.users[0].pk,
                               payload={**move, "v": view_version(current.views, 0)})
    match.refresh_from_db()
    assert match.stage == Match.Stage.BETWEEN
    assert sorted(match.ready_seats) == [1, 2, 3]
    assert match.deadline is not None and match.deadline > timezone.now() + timedelta(seconds=10)


def test_an_offline_table_pauses_resumes_and_is_dissolved_keeping_its_hands(
    make_table: Any,
) -> None:
    table = make_table()
    match = table.match
    all_in_tuoguan(match)
    play_out_hand(match)
    booked = HandResult.objects.filter(match_id=match.pk).count()
    assert booked == 4

    # No seat has a connection and all are in 托管: the sweep noticed on its own.
    assert Match.objects.get(pk=match.pk).offline_since is not None
    # The consumers report a seat coming back and the last one leaving.
    assert services.match_presence_note(match_id=match.pk, offline=False)
    assert Match.objects.get(pk=match.pk).offline_since is None
    assert services.match_presence_note(match_id=match.pk, offline=True)
    assert not services.match_presence_note(match_id=match.pk, offline=True)
    match.refresh_from_db()
    assert match.offline_since is not None
    # Within the grace the table still plays.
    before = match.version
    fire_when_due(match)
    assert Match.objects.get(pk=match.pk).version > before

    Match.objects.filter(pk=match.pk).update(
        offline_since=timezone.now() - timedelta(seconds=61))
    fire_when_due(match)
    match.refresh_from_db()
    assert match.deadline is None and match.paused_left_ms is not None
    assert table_events(match, "clock_paused")[-1]["reason"] == "offline"
    frame = selectors.table_snapshot(match.pk, 0)
    assert frame["table"]["deadline"] is None
    assert frame["table"]["paused_left"] == match.paused_left_ms
    paused_at = match.version
    for _ in range(3):
        fire_when_due(match)
    assert Match.objects.get(pk=match.pk).version == paused_at, "a paused table played on"

    left = match.paused_left_ms
    assert services.match_presence_note(match_id=match.pk, offline=False)
    match.refresh_from_db()
    assert match.offline_since is None and match.paused_left_ms is None
    assert match.deadline is not None
    remaining = (match.deadline - timezone.now()) / timedelta(milliseconds=1)
    assert left - 1000 < remaining <= left

    services.match_presence_note(match_id=match.pk, offline=True)
    Match.objects.filter(pk=match.pk).update(
        offline_since=timezone.now() - timedelta(seconds=601))
    fire_when_due(match)
    match.refresh_from_db()
    assert match.status == Match.Status.DISSOLVED
    assert match.hands_played == 1
    assert table_events(match, "dissolve_forced")[-1]["reason"] == "offline"
    assert HandResult.objects.filter(match_id=match.pk).count() == booked
    results = MatchResult.objects.filter(match_id=match.pk).order_by("seat")
    assert [r.hands_played for r in results] == [1, 1, 1, 1]
    assert Hand.objects.get(match=match, number=1).settlement is not None
    out = io.StringIO()
    call_command("ledger_verify", stdout=out)
    assert "没有差异" in out.getvalue()
    assert table.room.__class__.objects.get(pk=table.room.pk).status == "closed"


def test_a_vote_during_a_turn_keeps_the_time_that_was_left(make_table: Any, clock: Any) -> None:
    table = make_table()
    match = table.match
    dealer = match.hands.get().dealer
    proposer, refuser = (dealer + 1) % 4, (dealer + 2) % 4
    deadline = selectors.table_snapshot(match.pk, dealer)["table"]["deadline"]
    proposed_at = time.time() * 1000
    services.match_act(match_id=match.pk, user_id=table.users[proposer].pk,
                       payload={"type": "dissolve_propose"})
    during = selectors.table_snapshot(match.pk, dealer)["table"]
    assert during["deadline"] is None
    assert during["paused_left"] == deadline - proposed_at

    # The old deadline passes during the vote: nothing times out.
    Match.objects.filter(pk=match.pk).update(timer_due=timezone.now())
    services.match_timeout_fire(match_id=match.pk)
    assert not MatchEvent.objects.filter(match=match, kind="action").exists()
    clock.shift(1.2)  # the vote lasts a while

    version = Match.objects.get(pk=match.pk).version
    refused_at = time.time() * 1000
    services.match_act(match_id=match.pk, user_id=table.users[refuser].pk,
                       payload={"type": "dissolve_vote", "agree": False})
    after = selectors.table_snapshot(match.pk, dealer)["table"]
    assert after["dissolve"] is None and after["paused_left"] is None
    assert after["deadline"] - refused_at == during["paused_left"]
    assert after["deadline"] - deadline > 1000

    frame = selectors.table_catchup(match.pk, version, proposer)
    failed = [e for e in frame["events"] if e["type"] == "dissolve_failed"]
    assert failed == [{"type": "dissolve_failed", "seat": refuser, "reason": "refused",
                       "v": failed[0]["v"]}]
