"""Bad input that once broke things (issue 30, "Bad input"): each gets a clear answer."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.clubs.routing import websocket_urlpatterns as lobby_urls
from apps.matches.consumers import TableConsumer
from tests.support.ws import InjectUser, connect_as

from .helpers import TIMEOUT, build_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("seat", ["²", "9" * 5000, "一", "-1"])
def test_sit_with_a_bad_seat_number_gets_a_chinese_error(seat: str) -> None:
    table = build_table(start=False)
    client = Client()
    client.force_login(table.spectator)
    response = client.post(
        f"/rooms/{table.room.code}/sit/", {"seat": seat}, headers={"x-requested-with": "fetch"}
    )
    assert response.status_code == 400
    assert response.json() == {"error": "座位号必须是数字"}
    page = client.post(f"/rooms/{table.room.code}/sit/", {"seat": seat}, follow=True)
    assert page.status_code == 200
    assert "座位号必须是数字" in page.content.decode()


@pytest.mark.asyncio
async def test_lobby_answers_junk_with_an_error_frame_and_stays_open() -> None:
    table = await database_sync_to_async(build_table)(start=False)
    comm = WebsocketCommunicator(
        InjectUser(URLRouter(lobby_urls), table.spectator), f"/ws/rooms/{table.room.code}/lobby/"
    )
    connected, _ = await comm.connect(TIMEOUT)
    assert connected
    assert (await comm.receive_json_from(TIMEOUT))["type"] == "lobby"
    for junk in ({"text_data": "{not json"}, {"bytes_data": b"\x00\xff"},
                 {"text_data": "[" * 100_000}, {"text_data": "1" * 5000}):
        await comm.send_to(**junk)
        frame = await comm.receive_json_from(TIMEOUT)
        while frame["type"] == "lobby":  # who is online may change meanwhile: not an answer
            frame = await comm.receive_json_from(TIMEOUT)
        assert frame["type"] == "error" and frame["code"] == "malformed", junk
        assert any("\u4e00" <= ch <= "\u9fff" for ch in frame["message"])
    await comm.send_json_to({"type": "anything"})  # JSON is taken (and ignored)
    while not await comm.receive_nothing(0.3):  # lobby updates (who is online) may come
        assert (await comm.receive_json_from(TIMEOUT))["type"] == "lobby"
    await comm.disconnect()


async def _refusal_code(comm: WebsocketCommunicator) -> int:
    """The close code of a refused connection: accepted, then closed with the code."""
    connected, _ = await comm.connect(TIMEOUT)
    assert connected, "accepted first, so that the browser sees the close code"
    output = await comm.receive_output(TIMEOUT)
    assert output["type"] == "websocket.close"
    return int(output["code"])


@pytest.mark.asyncio
async def test_refused_handshakes_carry_4401_4403_4404() -> None:
    from django.contrib.auth.models import AnonymousUser

    table = await database_sync_to_async(build_table)()
    assert await _refusal_code(connect_as(AnonymousUser(), table.room.code)) == 4401
    assert await _refusal_code(connect_as(table.outsider, table.room.code)) == 4403
    assert await _refusal_code(connect_as(table.users[0], "nosuchroom")) == 4404
    lobby = WebsocketCommunicator(
        InjectUser(URLRouter(lobby_urls), table.outsider), f"/ws/rooms/{table.room.code}/lobby/"
    )
    assert await _refusal_code(lobby) == 4404


async def _first_state(comm: WebsocketCommunicator) -> dict[str, Any]:
    frame = await comm.receive_json_from(TIMEOUT)
    while frame["type"] == "presence":
        frame = await comm.receive_json_from(TIMEOUT)
    return dict(frame)


@pytest.mark.asyncio
async def test_a_processed_message_gets_its_reply_under_the_rate_limit() -> None:
    table = await database_sync_to_async(build_table)()
    with mock.patch.object(TableConsumer, "message_burst", 2.0), \
            mock.patch.object(TableConsumer, "messages_per_second", 0.01):
        comms = [connect_as(u, table.room.code) for u in table.users]
        for comm in comms:
            assert (await comm.connect(TIMEOUT))[0]
        frames = [await _first_state(c) for c in comms]
        dealer = frames[0]["observation"]["dealer"]
        other = (dealer + 1) % 4
        comm = comms[other]
        await comm.send_json_to({"type": "discard", "tile": "1m", "v": frames[other]["v"]})
        reply = await _first_state(comm)
        assert reply["type"] == "error" and reply["code"] == "not_your_turn"
        # The refusal's cost was charged: the next message is the one cut off.
        await comm.send_json_to({"type": "discard", "tile": "1m", "v": frames[other]["v"]})
        assert (await _first_state(comm))["code"] == "rate_limited"
        for c in comms:
            await c.disconnect()


@pytest.mark.asyncio
async def test_a_version_from_the_future_gets_a_snapshot() -> None:
    table = await database_sync_to_async(build_table)()
    version = (await database_sync_to_async(lambda: table.match.version)())
    comm = connect_as(table.users[1], table.room.code, f"v={version + 50}")
    assert (await comm.connect(TIMEOUT))[0]
    frame = await _first_state(comm)
    assert frame["type"] == "snapshot" and frame["v"] == version
    await comm.send_json_to({"type": "hello", "v": version + 7})
    frame = await _first_state(comm)
    assert frame["type"] == "snapshot" and frame["v"] == version
    await comm.disconnect()


@pytest.mark.asyncio
async def test_a_type_that_is_not_text_is_malformed_and_the_socket_stays_open() -> None:
    """``type`` as a list or an object (which no dispatch table can look up) is refused
    like any malformed message; the connection goes on answering."""
    table = await database_sync_to_async(build_table)()
    comm = connect_as(table.users[1], table.room.code)
    assert (await comm.connect(TIMEOUT))[0]
    state = await _first_state(comm)
    for kind in (["discard"], {"a": 1}, ["hello"], 7):
        await comm.send_json_to({"type": kind, "v": state["v"], "id": "x"})
        reply = await _first_state(comm)
        assert reply["type"] == "error" and reply["code"] == "malformed", kind
        assert reply["id"] == "x" and any("\u4e00" <= ch <= "\u9fff" for ch in reply["message"])
    await comm.send_json_to({"type": "hello", "v": state["v"]})
    assert (await _first_state(comm))["type"] in ("catchup", "snapshot")
    await comm.disconnect()
