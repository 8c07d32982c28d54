"""Access (issue 30): API throttles, the table page's spectator rule, and live sockets
closed when a member's access ends."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.accounts.models import User
from apps.clubs.routing import websocket_urlpatterns as lobby_urls
from apps.clubs.services import members
from tests.support.api import client_error
from tests.support.ws import InjectUser, connect_as

from .helpers import TIMEOUT, build_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_21st_club_created_in_a_burst_gets_429_in_chinese() -> None:
    user = User.objects.create_user("burst", display_name="连点")
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)
    codes = [
        client.post("/api/clubs/", {"name": f"圈{i}"}, content_type="application/json").status_code
        for i in range(21)
    ]
    assert codes[:20] == [201] * 20
    assert codes[20] == 429
    response = client.post("/api/clubs/", {"name": "再来"}, content_type="application/json")
    assert response.status_code == 429
    code, detail = client_error(response.json())
    assert code == "throttled"
    assert detail.startswith("操作太频繁")
    assert int(response["Retry-After"]) > 0
    assert client.get("/api/clubs/").status_code == 200  # reads have their own limit


def test_the_table_page_honours_the_rooms_spectator_setting() -> None:
    closed = build_table(allow_spectators=False)
    client = Client()
    client.force_login(closed.spectator)
    response = client.get(f"/rooms/{closed.room.code}/play/")
    assert response.status_code == 403
    assert "本房间不允许旁观" in response.content.decode()
    client.force_login(closed.users[2])
    assert client.get(f"/rooms/{closed.room.code}/play/").status_code == 200
    client.force_login(closed.outsider)
    assert client.get(f"/rooms/{closed.room.code}/play/").status_code == 404
    open_ = build_table()
    client.force_login(open_.spectator)
    assert client.get(f"/rooms/{open_.room.code}/play/").status_code == 200


async def _close_code(comm: WebsocketCommunicator) -> int | None:
    """The close code, skipping frames that were on their way; None if still open."""
    while True:
        if await comm.receive_nothing(0.5):
            return None
        output = await comm.receive_output(TIMEOUT)
        if output["type"] == "websocket.close":
            return int(output["code"])


@pytest.mark.asyncio
async def test_a_removed_member_stops_receiving_live_frames() -> None:
    table = await database_sync_to_async(build_table)()
    watcher = connect_as(table.spectator, table.room.code)
    lobby = WebsocketCommunicator(
        InjectUser(URLRouter(lobby_urls), table.spectator), f"/ws/rooms/{table.room.code}/lobby/"
    )
    player = connect_as(table.users[1], table.room.code)
    for comm in (watcher, lobby, player):
        assert (await comm.connect(TIMEOUT))[0]
    # A role change re-checks access, and a member may still watch.
    await database_sync_to_async(members.membership_role_set)(
        club=table.room.club, actor=table.users[0], user=table.spectator, role="admin"
    )
    assert await _close_code(watcher) is None
    await database_sync_to_async(members.membership_remove)(
        club=table.room.club, actor=table.users[0], user=table.spectator
    )
    assert await _close_code(watcher) == 4403
    assert await _close_code(lobby) == 4403
    assert await _close_code(player) is None  # others at the table are not affected
    await player.disconnect()


@pytest.mark.asyncio
async def test_a_closed_rooms_lobby_sockets_are_closed() -> None:
    from apps.clubs.services import rooms

    table = await database_sync_to_async(build_table)(start=False)
    lobby = WebsocketCommunicator(
        InjectUser(URLRouter(lobby_urls), table.spectator), f"/ws/rooms/{table.room.code}/lobby/"
    )
    assert (await lobby.connect(TIMEOUT))[0]
    assert (await lobby.receive_json_from(TIMEOUT))["type"] == "lobby"
    assert await _close_code(lobby) is None
    await database_sync_to_async(rooms.room_close)(room=table.room, actor=table.users[0])
    update = await lobby.receive_json_from(TIMEOUT)
    assert update["type"] == "lobby" and update["state"]["status"] == "closed"
    assert await _close_code(lobby) == 4404  # the lobby page stops reconnecting on 4404
