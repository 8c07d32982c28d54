"""Match lifecycle: 解散 votes, between-hands readiness and its timer, a whole match, and
connecting before the match starts."""

from __future__ import annotations

import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from apps.clubs.models import Room
from apps.clubs.routing import websocket_urlpatterns as lobby_urlpatterns
from apps.clubs.services.rooms import room_ready_set
from apps.matches import pacing, services
from apps.matches.models import Match, MatchEvent
from apps.matches.protocol import MatchError
from apps.matches.selectors import table_snapshot
from majiang import get_variant
from majiang.match import Match as RulesMatch
from majiang.record import replay
from tests.support.clock import later
from tests.support.factories import Table
from tests.support.ws import InjectUser, connect_as

from .driving import choose

pytestmark = pytest.mark.django_db(transaction=True)


def act(table: Table, seat: int, **payload: Any) -> int:
    """Send one client message for ``seat`` through the service; return the new version."""
    return services.match_act(
        match_id=table.match.pk, user_id=table.users[seat].pk, payload=payload
    )


def play_hand(table: Table) -> None:
    """A fast bot: each seat takes the simple move (win, pass, rightmost discard) until the
    current hand ends."""
    match_id = table.match.pk
    for _ in range(400):
        if Match.objects.get(pk=match_id).stage != Match.Stage.HAND:
            return
        for seat in range(4):
            frame = table_snapshot(match_id, seat)
            move = choose(frame["observation"])
            if move is not None:
                act(table, seat, **move, v=frame["v"])
                break
    raise AssertionError("the hand did not end")


def last_events(table: Table) -> list[str]:
    entry = MatchEvent.objects.filter(match=table.match).order_by("-seq").first()
    assert entry is not None
    return [e["public"]["type"] for e in entry.payload["events"]]


def test_dissolve_passes_when_all_agree_keeping_completed_hands(make_table: Any) -> None:
    table = make_table()
    play_hand(table)
    for seat in range(4):
        act(table, seat, type="ready_next")
    assert table.match.hands.count() == 2
    act(table, 2, type="dissolve_propose")
    with pytest.raises(MatchError, match="already_voted"):
        act(table, 2, type="dissolve_vote", agree=True)
    for seat in (0, 1):
        act(table, seat, type="dissolve_vote", agree=True)
    assert table.match.status == Match.Status.PLAYING
    act(table, 3, type="dissolve_vote", agree=True)
    match = table.match
    assert match.status == Match.Status.DISSOLVED and match.stage == Match.Stage.OVER
    assert match.hands_played == 1
    assert match.totals == match.hands.get(number=1).settlement["totals"]
    assert last_events(table) == ["reveal", "match_end"]  # hand 2 is abandoned, seed shown
    passed = MatchEvent.objects.get(match=match, seq=match.version - 1).payload["events"]
    assert [e["public"]["type"] for e in passed] == ["dissolve_vote", "dissolve_passed"]
    assert Room.objects.get(pk=table.room.pk).status == Room.Status.CLOSED
    with pytest.raises(MatchError, match="match_over"):
        act(table, 0, type="dissolve_propose")


def test_one_refusal_fails_the_vote(make_table: Any) -> None:
    table = make_table()
    act(table, 0, type="dissolve_propose")
    with pytest.raises(MatchError, match="vote_in_progress"):
        act(table, 1, type="dissolve_propose")
    act(table, 1, type="dissolve_vote", agree=True)
    act(table, 2, type="dissolve_vote", agree=False)
    # The refusal names who refused; the clock the vote paused runs again.
    assert last_events(table) == ["dissolve_vote", "dissolve_failed", "clock_resumed"]
    match = table.match
    assert match.status == Match.Status.PLAYING and match.dissolve_vote is None
    with pytest.raises(MatchError, match="no_vote"):
        act(table, 3, type="dissolve_vote", agree=True)


def test_an_unanswered_vote_expires_by_timer(make_table: Any, clock: Any) -> None:
    table = make_table()
    act(table, 0, type="dissolve_propose")
    match = table.match
    later(clock, pacing.DISSOLVE_VOTE_SECONDS - 1)
    assert Match.objects.get(pk=match.pk).dissolve_vote is not None
    later(clock, 1)
    assert Match.objects.get(pk=match.pk).dissolve_vote is None
    failed = MatchEvent.objects.get(match=match, seq=match.version + 1).payload["events"]
    assert failed[0] == {"public": {"type": "dissolve_failed", "reason": "expired"}}
    assert failed[1]["public"]["type"] == "clock_resumed"
    assert table.match.status == Match.Status.PLAYING


def test_ready_next_deals_when_everyone_is_ready(make_table: Any) -> None:
    table = make_table()
    with pytest.raises(MatchError, match="not_between_hands"):
        act(table, 0, type="ready_next")
    play_hand(table)
    for seat in range(3):
        act(table, seat, type="ready_next")
        with pytest.raises(MatchError, match="already_ready"):  # twice: told, nothing changes
            act(table, seat, type="ready_next")
    assert table.match.stage == Match.Stage.BETWEEN and table.match.ready_seats == [0, 1, 2]
    act(table, 3, type="ready_next")
    match = table.match
    assert match.stage == Match.Stage.HAND and match.ready_seats == []
    assert match.hands.count() == 2


def test_the_next_hand_is_dealt_anyway_after_the_delay(make_table: Any, clock: Any) -> None:
    table = make_table()
    play_hand(table)
    act(table, 1, type="ready_next")
    later(clock, pacing.NEXT_HAND_SECONDS - 1)
    assert Match.objects.get(pk=table.match.pk).stage == Match.Stage.BETWEEN
    later(clock, 1)
    assert Match.objects.get(pk=table.match.pk).stage == Match.Stage.HAND
    assert table.match.hands.count() == 2


@pytest.mark.parametrize("variant", ["duyun", "zigong"])
def test_a_whole_match_to_the_end(make_table: Any, variant: str) -> None:
    table = make_table(variant, hands_per_match=4)
    for _ in range(4):
        play_hand(table)
        if table.match.status != Match.Status.PLAYING:
            break
        for seat in range(4):
            act(table, seat, type="ready_next")
    match = table.match
    assert match.status == Match.Status.FINISHED and match.hands_played == match.hands_total
    hands = list(match.hands.order_by("number"))
    sums = [sum(h.settlement["totals"][s] for h in hands) for s in range(4)]
    assert match.totals == sums
    # Dealer and streak of each hand follow the variant's rules from the previous hand.
    rules = RulesMatch(get_variant(variant), match.settings, hands[0].dealer, hands[0].streak)
    rules.totals = [0] * 4
    for hand in hands:
        assert (hand.dealer, hand.streak) == (rules.dealer, rules.streak)
        rules.finish(replay(hand.record))
    assert rules.over and rules.totals == match.totals
    assert last_events(table)[-1] == "match_end"


@pytest.mark.asyncio
async def test_connecting_before_the_match_starts(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)(start=False)
    player = connect_as(table.users[2], table.room.code)
    assert (await player.connect())[0]
    assert await player.receive_json_from(5) == {"type": "waiting", "seat": 2}
    watcher = connect_as(table.spectator, table.room.code)
    assert (await watcher.connect())[0]
    assert await watcher.receive_json_from(5) == {"type": "waiting", "seat": None}
    await player.send_json_to({"type": "discard", "tile": "1m", "v": 0})
    assert (await player.receive_json_from(5))["code"] == "no_match"
    lobby = WebsocketCommunicator(
        InjectUser(URLRouter(lobby_urlpatterns), table.users[0]),
        f"/ws/rooms/{table.room.code}/lobby/",
    )
    assert (await lobby.connect())[0]
    assert (await lobby.receive_json_from(5))["state"]["status"] == "waiting"

    for user in table.users:
        await database_sync_to_async(room_ready_set)(room=table.room, user=user, ready=True)
    state = (await lobby.receive_json_from(5))["state"]
    while state["status"] != "playing":  # one lobby update per ready
        state = (await lobby.receive_json_from(5))["state"]
    snapshot = await _next_versioned(player)
    assert snapshot["type"] == "snapshot" and snapshot["seat"] == 2
    assert snapshot["table"]["stage"] == "between" and snapshot["table"]["next"]["hand"] == 1
    assert (await _next_versioned(watcher))["seat"] is None
    for comm in (player, watcher, lobby):
        await comm.disconnect()


async def _next_versioned(comm: WebsocketCommunicator) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        frame = await comm.receive_json_from(10)
        if frame["type"] != "presence":
            return frame
    raise AssertionError("no frame")
