"""The live lobby over WebSockets: members get seat changes as they commit."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Membership, Room
from apps.clubs.services import clubs, members, rooms
from config.asgi import application

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def _setup() -> tuple[Room, User, User, User]:
    owner = User.objects.create_user("owner", display_name="圈主")
    member = User.objects.create_user("member", display_name="王五")
    outsider = User.objects.create_user("outsider")
    club = clubs.club_create(owner=owner, name="圈")
    Membership.objects.create(club=club, user=member)
    room = rooms.room_create(club=club, actor=owner, variant="basic", settings={})
    return room, owner, member, outsider


def _session_headers(user: User | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", b"http://localhost")]
    if user is not None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return headers


async def _connect(code: str, user: User | None) -> tuple[WebsocketCommunicator, bool]:
    headers = await sync_to_async(_session_headers)(user)
    communicator = WebsocketCommunicator(application, f"/ws/rooms/{code}/lobby/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def test_member_sees_seats_change_live() -> None:
    room, owner, member, _ = await sync_to_async(_setup)()
    watcher, connected = await _connect(room.code, owner)
    assert connected
    first: dict[str, Any] = await watcher.receive_json_from()
    assert first["type"] == "lobby"
    assert first["state"]["seats"] == [None] * room.seat_count
    # Opening the lobby puts the owner online, and the lobby is told.
    online = await watcher.receive_json_from(timeout=5)
    assert online["state"]["online"] == ["圈主"]

    await sync_to_async(rooms.room_sit)(room=room, user=member, seat=1)
    update = await watcher.receive_json_from(timeout=5)
    assert update["state"]["seats"][1]["display_name"] == "王五"
    assert update["state"]["seats"][1]["ready"] is False

    await sync_to_async(rooms.room_ready_set)(room=room, user=member, ready=True)
    update = await watcher.receive_json_from(timeout=5)
    assert update["state"]["seats"][1]["ready"] is True

    await sync_to_async(rooms.room_stand)(room=room, user=member)
    update = await watcher.receive_json_from(timeout=5)
    assert update["state"]["seats"][1] is None
    await watcher.disconnect()


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
async def test_non_members_are_refused(
    who: str) -> None:
    room, _, _, outsider = await sync_to_async(_setup)()
    communicator, connected = await _connect(room.code, None if who == "anonymous" else outsider)
    assert connected  # accepted, then closed with the code (a bare refusal is HTTP 403)
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}
    await communicator.disconnect()


async def test_unknown_room_is_refused() -> None:
    _, owner, _, _ = await sync_to_async(_setup)()
    communicator, connected = await _connect("999999", owner)
    assert connected
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}
    await communicator.disconnect()


async def _connect_club(
    club_id: int | str, user: User | None
) -> tuple[WebsocketCommunicator, bool]:
    headers = await sync_to_async(_session_headers)(user)
    communicator = WebsocketCommunicator(
        application, f"/ws/clubs/{club_id}/lobby/", headers=headers
    )
    connected, _ = await communicator.connect(timeout=5)
    return communicator, connected


async def test_club_lobby_shows_tables_live() -> None:
    room, owner, member, _ = await sync_to_async(_setup)()
    watcher, connected = await _connect_club(room.club_id, owner)
    assert connected
    first: dict[str, Any] = await watcher.receive_json_from()
    assert first["type"] == "club"
    assert f'data-room="{room.code}"' in first["state"]["tables_html"]
    assert first["state"]["online"] == 1  # the owner, who has the page open
    await sync_to_async(rooms.room_sit)(room=room, user=member, seat=1)
    update = await watcher.receive_json_from(timeout=5)
    assert update == {"type": "club", "state": {"changed": True}}
    # The page then fetches the tables: the new player is at 南.
    tables = await sync_to_async(_tables_as)(owner, room.club_id)
    assert "王五" in tables["tables_html"]
    await watcher.disconnect()


def _tables_as(user: User, club_id: int) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    response = client.get(f"/clubs/{club_id}/tables/")
    assert response.status_code == 200
    return dict(response.json())


async def test_club_lobby_follows_match_progress() -> None:
    """A hand's end (live play calls ``room_hand_ended``) sends the club's tables again once
    the hand's transaction commits."""
    from django.db import transaction

    from apps.clubs.services.tables import room_hand_ended

    room, owner, _, _ = await sync_to_async(_setup)()
    watcher, _ = await _connect_club(room.club_id, owner)
    await watcher.receive_json_from()

    def settle() -> None:
        with transaction.atomic():
            room_hand_ended(club_id=room.club_id)

    await sync_to_async(settle)()
    update = await watcher.receive_json_from(timeout=5)
    assert update == {"type": "club", "state": {"changed": True}}
    await watcher.disconnect()


@pytest.mark.parametrize(("who", "club"), [("outsider", None), ("owner", "99999"), ("owner", "x")])
async def test_club_lobby_refuses_non_members_and_unknown_clubs(
    who: str, club: str | None
) -> None:
    room, owner, _, outsider = await sync_to_async(_setup)()
    user = owner if who == "owner" else outsider
    communicator, connected = await _connect_club(club or room.club_id, user)
    assert connected  # accepted, then closed with the code (a bare refusal is HTTP 403)
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}
    await communicator.disconnect()


async def _changed(watcher: WebsocketCommunicator) -> None:
    changed = {"type": "club", "state": {"changed": True}}
    assert await watcher.receive_json_from(timeout=5) == changed


async def test_managers_see_join_requests_come_and_go_live(redis_url: str) -> None:
    """Issue 47, item 1: a join request reaches the owner's open lobby at once, as a count
    only owners and admins are given."""
    room, owner, member, outsider = await sync_to_async(_setup)()
    club = room.club
    watcher, connected = await _connect_club(club.pk, owner)
    assert connected
    first: dict[str, Any] = await watcher.receive_json_from()
    assert first["state"]["requests"] == 0
    request = await sync_to_async(members.join_request_create)(club=club, user=outsider)
    await _changed(watcher)
    assert (await sync_to_async(_tables_as)(owner, club.pk))["requests"] == 1
    assert (await sync_to_async(_tables_as)(member, club.pk))["requests"] is None
    await sync_to_async(members.join_request_approve)(join_request=request, actor=owner)
    await _changed(watcher)
    assert (await sync_to_async(_tables_as)(owner, club.pk))["requests"] == 0
    await watcher.disconnect()
