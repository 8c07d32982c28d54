"""Authorisation: a player acts only for their own seat, in a room of their own club;
IDs in URLs and messages cannot reach another club's data; roles are checked in services."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from apps.clubs.errors import ActionForbidden, ClubNotFound
from apps.clubs.models import Membership
from apps.clubs.services import clubs as club_services
from apps.matches.models import MatchEvent
from tests.support.ws import connect_as

from .helpers import TIMEOUT, build_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _first_state(comm: Any) -> dict[str, Any]:
    frame = await comm.receive_json_from(TIMEOUT)
    while frame["type"] == "presence":
        frame = await comm.receive_json_from(TIMEOUT)
    return frame


@pytest.mark.asyncio
async def test_websocket_refuses_outsiders_and_other_clubs() -> None:
    table = await database_sync_to_async(build_table)()
    # An outsider, and the owner of another club, cannot open this room's table.
    for user in (table.outsider, table.other_owner):
        comm = connect_as(user, table.room.code)
        assert await _refused_with(comm) == 4403
    # A seated player of this club cannot open another club's room by its code.
    comm = connect_as(table.users[0], table.other_room.code)
    assert await _refused_with(comm) == 4403
    comm = connect_as(table.users[0], "nosuchroom")
    assert await _refused_with(comm) == 4404


async def _refused_with(comm: Any) -> int:
    """Accepted, then closed with a code: a refusal before the accept would reach the
    browser as HTTP 403, and the table page would retry forever (issue 30)."""
    connected, _ = await comm.connect(TIMEOUT)
    assert connected
    output = await comm.receive_output(TIMEOUT)
    assert output["type"] == "websocket.close"
    await comm.disconnect()  # the browser side closes too: the refused consumer ends now
    return int(output["code"])


@pytest.mark.asyncio
async def test_websocket_acts_only_for_own_seat_and_never_twice() -> None:
    table = await database_sync_to_async(build_table)()
    comms = [connect_as(u, table.room.code) for u in [*table.users, table.spectator]]
    for comm in comms:
        assert (await comm.connect(TIMEOUT))[0]
    frames = [await _first_state(c) for c in comms]
    dealer = frames[0]["observation"]["dealer"]
    move = frames[dealer]["observation"]["me"]["legal"][0]
    message = {k: v for k, v in move.items() if k != "seat"} | {"v": frames[dealer]["v"]}
    count = await database_sync_to_async(MatchEvent.objects.count)()
    # Another seat sends the dealer's move, naming the dealer's seat: refused.
    other = (dealer + 1) % 4
    await comms[other].send_json_to({**message, "seat": dealer})
    reply = await _first_state(comms[other])
    assert reply["type"] == "error", reply
    # The spectator too.
    await comms[4].send_json_to({**message, "seat": dealer})
    reply = await _first_state(comms[4])
    assert reply["type"] == "error" and reply["code"] == "not_seated"
    assert await database_sync_to_async(MatchEvent.objects.count)() == count
    # The dealer's own move is applied once; replaying the same message is refused.
    await comms[dealer].send_json_to(message)
    assert (await _first_state(comms[dealer]))["type"] == "update"
    await comms[dealer].send_json_to(message)
    reply = await _first_state(comms[dealer])
    assert reply["type"] == "error", reply
    assert await database_sync_to_async(MatchEvent.objects.count)() == count + 1
    for comm in comms:
        await comm.disconnect()


def _owner_pages(table: Any) -> list[str]:
    room, club = table.other_room, table.other_room.club_id
    return [
        f"/rooms/{room.code}/play/", f"/rooms/{room.code}/", f"/clubs/{club}/",
        f"/clubs/{club}/settings/", f"/ledgers/clubs/{club}/", f"/ledgers/clubs/{club}/export.csv",
        f"/api/clubs/{club}/", f"/api/clubs/{club}/members/", f"/api/clubs/{club}/rooms/",
        f"/api/clubs/{club}/templates/", f"/api/clubs/{club}/join-requests/",
        f"/api/clubs/{club}/invite-code/", f"/api/rooms/{room.code}/",
        f"/api/ledgers/clubs/{club}/entries/", f"/api/ledgers/clubs/{club}/summary/",
        f"/api/ledgers/clubs/{club}/export.csv",
    ]


def test_urls_with_another_clubs_ids_are_refused() -> None:
    """IDOR: every page and endpoint that takes a club ID or room code, called with the IDs
    of a club the caller does not belong to, is refused, and POSTs change nothing."""
    table = build_table(start=False)
    client = Client()
    client.force_login(table.users[0])  # owner of their own club, stranger to the other
    before = Membership.objects.count()
    # The club's page and its rooms' lobbies are share links: a stranger sees only the
    # club's name and 申请加入 (no members, seats, rules or invite code).
    join_pages = {f"/rooms/{table.other_room.code}/", f"/clubs/{table.other_room.club_id}/"}
    for url in _owner_pages(table):
        response = client.get(url)
        if url in join_pages:
            page = response.content.decode()
            assert response.status_code == 200, url
            assert "申请加入" in page, url
            assert table.other_room.club.invite_code not in page, url
            assert str(table.other_owner) not in page, url
            assert 'id="seats"' not in page, url
        else:
            assert response.status_code in (403, 404, 405), (url, response.status_code)
        response = client.post(url, {"name": "x", "role": "admin", "reason": "x"})
        assert response.status_code in (403, 404, 405), ("POST", url, response.status_code)
    for url in (f"/api/rooms/{table.other_room.code}/sit/",
                f"/rooms/{table.other_room.code}/sit/",
                f"/api/clubs/{table.other_room.club_id}/members/{table.other_owner.pk}/"):
        response = client.post(url, {"seat": 1})
        assert response.status_code in (403, 404, 405), (url, response.status_code)
        response = client.delete(url)
        assert response.status_code in (403, 404, 405), (url, response.status_code)
    assert Membership.objects.count() == before
    assert not table.other_room.seats.exists()


def test_owner_actions_check_the_role_in_the_service_layer() -> None:
    table = build_table(start=False)
    club = table.room.club
    member = table.users[1]
    with pytest.raises(ActionForbidden):
        club_services.club_invite_code_regenerate(club=club, actor=member)
    with pytest.raises(ClubNotFound):
        club_services.club_invite_code_regenerate(club=club, actor=table.outsider)
    with pytest.raises(ClubNotFound):
        club_services.club_invite_code_regenerate(
            club=table.other_room.club, actor=table.users[0]
        )
