"""Per-seat presence: counted per connection across processes (Redis), expiring when a
process dies, broadcast as ``presence`` frames and shown in every frame's players list."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from apps.matches import frames, presence
from apps.matches.pacing import PRESENCE_TTL_SECONDS
from tests.support import factories
from tests.support.ws import connect_as

from .driving import choose

pytestmark = [pytest.mark.django_db(transaction=True)]

TIMEOUT = 10


def connected_of(frame: dict[str, Any]) -> list[bool | None]:
    """The ``connected`` flags by seat from a snapshot/update (``table``) or presence frame."""
    players = frame["table"]["players"] if "table" in frame else frame["players"]
    return [p["connected"] for p in sorted(players, key=lambda p: p["seat"])]


async def open_seat(user: Any, code: str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    comm = connect_as(user, code)
    assert (await comm.connect())[0]
    return comm, await comm.receive_json_from(TIMEOUT)


async def next_presence(comm: WebsocketCommunicator) -> dict[str, Any]:
    frame = await comm.receive_json_from(TIMEOUT)
    assert frame["type"] == "presence", frame
    return frame


@pytest.mark.asyncio
async def test_a_seat_stays_online_until_its_last_connection_closes(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    code = table.room.code
    watcher, snap = await open_seat(table.spectator, code)
    assert connected_of(snap) == [False] * 4
    first, snap = await open_seat(table.users[1], code)
    assert connected_of(snap) == [False, True, False, False]
    presence_frame = await next_presence(watcher)
    assert connected_of(presence_frame) == [False, True, False, False]
    assert presence_frame["v"] == snap["v"]
    assert (await next_presence(first))["players"] == presence_frame["players"]

    second, snap = await open_seat(table.users[1], code)  # a second tab on another process
    assert connected_of(snap) == [False, True, False, False]
    assert await watcher.receive_nothing(0.3), "no change, so no presence frame"

    await first.disconnect()
    assert await watcher.receive_nothing(0.3)
    await watcher.send_json_to({"type": "hello"})
    assert connected_of(await watcher.receive_json_from(TIMEOUT)) == [False, True, False, False]

    await second.disconnect()
    assert connected_of(await next_presence(watcher)) == [False] * 4
    await watcher.disconnect()


@pytest.mark.asyncio
async def test_update_frames_leave_presence_to_snapshots_and_presence_frames(
    make_table: Any,
) -> None:
    table = await database_sync_to_async(make_table)()
    comms, latest = [], []
    for user in table.users[:3]:
        comm, snap = await open_seat(user, table.room.code)
        comms.append(comm)
        latest.append(snap)
    seat, move = next((s, m) for s in range(3) if (m := choose(latest[s]["observation"])))
    await comms[seat].send_json_to({**move, "v": latest[seat]["v"]})
    frame = await comms[0].receive_json_from(TIMEOUT)
    while frame["type"] == "presence":
        frame = await comms[0].receive_json_from(TIMEOUT)
    assert frame["type"] == "update"
    assert connected_of(frame) == [None] * 4  # not versioned: not part of a change
    assert connected_of(latest[2]) == [True, True, True, False]  # the last snapshot knew
    for comm in comms:
        await comm.disconnect()


def test_a_dead_process_connection_expires() -> None:
    """A connection that stops refreshing (its daphne was killed) counts as gone after the
    TTL; the next heartbeat of any other connection prunes it and reports the change."""
    match_id, start = 10_000_000 + int(time.time()) % 1_000_000, time.time()
    try:
        assert presence.presence_join(match_id, 0, "dead", now=start)
        assert presence.presence_join(match_id, 1, "alive", now=start)
        assert not presence.presence_join(match_id, 1, "alive-2", now=start)
        later = start + PRESENCE_TTL_SECONDS - 1
        assert not presence.presence_heartbeat(match_id, 1, "alive", [0, 1], now=later)
        assert not presence.presence_heartbeat(match_id, 1, "alive-2", [0, 1], now=later)
        assert presence.seats_connected(match_id, [0, 1], now=later) == {0: True, 1: True}
        expired = start + PRESENCE_TTL_SECONDS + 1
        assert presence.seats_connected(match_id, [0, 1], now=expired) == {0: False, 1: True}
        assert presence.presence_heartbeat(match_id, 1, "alive", [0, 1], now=expired)
        assert not presence.presence_heartbeat(match_id, 1, "alive", [0, 1], now=expired)
        assert presence.seats_connected(match_id, [0, 1], now=expired) == {0: False, 1: True}
        assert not presence.presence_leave(match_id, 1, "alive", now=expired)
        assert presence.presence_leave(match_id, 1, "alive-2", now=expired)
        assert not presence.presence_leave(match_id, 0, "dead", now=expired), "already gone"
    finally:
        for seat in (0, 1):
            presence._redis().delete(presence.presence_key(match_id, seat))


def _heartbeats() -> set[asyncio.Task[Any]]:
    """Table connections' heartbeat tasks still running in this process."""
    return {task for task in asyncio.all_tasks() if not task.done()
            and getattr(task.get_coro(), "__qualname__", "") == "TableConsumer._heartbeat"}


@pytest.mark.asyncio
async def test_a_connection_that_dies_in_a_handler_stops_its_heartbeat() -> None:
    """A handler that raises ends the consumer without ``disconnect``: its heartbeat must
    not go on polling the database and Redis for the dead connection."""
    table = await database_sync_to_async(factories.table)("duyun")
    before = _heartbeats()
    comm, _ = await open_seat(table.users[0], table.room.code)
    mine = _heartbeats() - before
    assert len(mine) == 1
    # A message no handler takes, to this connection alone (its room's group).
    await get_channel_layer().group_send(frames.room_group(table.room.pk),
                                         {"type": "no.such.message"})
    with pytest.raises(AttributeError, match="no_such_message"):
        await comm.wait(TIMEOUT)
    # Cancelled, the task ends at its next step; a running one would not end at all.
    await asyncio.wait(mine, timeout=TIMEOUT)
    assert all(task.cancelled() for task in mine)
