"""One account, or one address, cannot hold any number of table sockets open (issue 48:
40 sockets of one account slowed every table of its process). Over the limit a new
connection is closed with 4429; the open ones, and everyone else, are untouched."""

from __future__ import annotations

import uuid
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from apps.matches import socket_limits
from apps.matches.pacing import PRESENCE_TTL_SECONDS, now
from tests.support.ws import connect_as

from .helpers import TIMEOUT, build_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _opened(comm: WebsocketCommunicator) -> bool:
    """Whether the table took the connection (a first frame) or closed it with 4429."""
    connected, _ = await comm.connect(TIMEOUT)
    assert connected, "accepted first, so that the browser sees the close code"
    output = await comm.receive_output(TIMEOUT)
    if output["type"] == "websocket.close":
        assert output["code"] == 4429
        return False
    return True


def _from(address: str, comm: WebsocketCommunicator) -> WebsocketCommunicator:
    comm.scope["client"] = (address, 50000)
    return comm


@pytest.mark.asyncio
async def test_one_account_holds_at_most_its_share_of_table_sockets() -> None:
    table = await database_sync_to_async(build_table)()
    watcher, player = table.spectator, table.users[0]
    with mock.patch.object(socket_limits, "SOCKETS_PER_USER", 3):
        tabs = [connect_as(watcher, table.room.code) for _ in range(3)]
        for tab in tabs:
            assert await _opened(tab)
        assert not await _opened(connect_as(watcher, table.room.code))
        # Someone else is not counted against it; the open tabs still get their frames.
        mine = connect_as(player, table.room.code)
        assert await _opened(mine)
        await tabs[0].send_json_to({"type": "hello"})
        while (frame := await tabs[0].receive_json_from(TIMEOUT))["type"] == "presence":
            pass
        assert frame["type"] == "snapshot"
        # A closed tab frees its place.
        await tabs[1].disconnect()
        again = connect_as(watcher, table.room.code)
        assert await _opened(again)
        for comm in (tabs[0], tabs[2], mine, again):
            await comm.disconnect()


@pytest.mark.asyncio
async def test_one_address_holds_at_most_its_share_and_others_are_not_counted() -> None:
    table = await database_sync_to_async(build_table)()
    with mock.patch.object(socket_limits, "SOCKETS_PER_ADDRESS", 2):
        home = [_from("203.0.113.9", connect_as(user, table.room.code))
                for user in table.users[:2]]
        for comm in home:
            assert await _opened(comm)
        third = _from("203.0.113.9", connect_as(table.users[2], table.room.code))
        assert not await _opened(third)
        elsewhere = _from("198.51.100.4", connect_as(table.users[2], table.room.code))
        assert await _opened(elsewhere)
        # This machine (a benchmark, a proxy not listed in TRUSTED_PROXIES) is not limited.
        local = [_from("127.0.0.1", connect_as(user, table.room.code)) for user in table.users]
        for comm in local:
            assert await _opened(comm)
        for comm in (*home, elsewhere, *local):
            await comm.disconnect()


def test_the_connections_of_a_killed_process_stop_counting() -> None:
    """A process killed without closing its sockets leaves their entries; they expire
    unless a heartbeat refreshes them."""
    start, user = now().timestamp(), uuid.uuid4().int  # an account nothing else counts
    with mock.patch.object(socket_limits, "SOCKETS_PER_USER", 2):
        for name in ("dead-1", "alive"):
            assert socket_limits.sockets_open(user_id=user, address=None, connection=name,
                                              now=start)
        assert not socket_limits.sockets_open(user_id=user, address=None, connection="new",
                                              now=start + 1)
        later = start + PRESENCE_TTL_SECONDS - 1
        socket_limits.sockets_refresh(user_id=user, address=None, connection="alive", now=later)
        assert socket_limits.sockets_open(user_id=user, address=None, connection="new",
                                          now=start + PRESENCE_TTL_SECONDS + 1)
        assert not socket_limits.sockets_open(user_id=user, address=None, connection="one-more",
                                              now=start + PRESENCE_TTL_SECONDS + 2)
