"""The protocol documents and the server agree (issue 49, "the doc and the server
disagree", items 1–8): each input is judged the same by the AsyncAPI schema and by the
server; request ids come back to the asking connection alone; a read-only token cannot move.
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from apps.accounts.services import token_create
from apps.clubs.services.rooms import room_ready_set
from apps.matches import services
from apps.matches.models import Match
from apps.matches.protocol import MatchError, parse_client_message, parse_hello, parse_phrase
from apps.matches.routing import websocket_urlpatterns
from apps.matches.selectors import table_snapshot
from tests.matches.test_computers import _club_room
from tests.matches.test_protocol_schema import Checker, _doc

pytestmark = pytest.mark.django_db(transaction=True)
HEX = "ab" * 32


def _server_accepts(message: dict[str, Any]) -> bool:
    try:
        if message["type"] == "hello":
            parse_hello(message)
        elif message["type"] == "phrase":
            parse_phrase(message)
        else:
            parse_client_message(message)
    except MatchError as refused:
        assert refused.code in {"malformed", "unknown_phrase"}
        return False
    return True


@pytest.mark.parametrize("message", [
    # 1: an unknown field in an action (or any message) is malformed.
    {"type": "pass", "v": 3, "foo": 1},
    {"type": "ready_next", "foo": 1},
    {"type": "contribute", "hand": 2, "value": HEX, "extra": True},
    {"type": "phrase", "phrase": "nice", "text": "hi"},
    {"type": "hello", "since": 3},
    # 2: hello's v is an integer or null.
    {"type": "hello", "v": "3"},
    {"type": "hello", "v": True},
    {"type": "hello", "v": None},
    {"type": "hello", "v": 3},
    # 4: 3.0 is the integer 3 for JSON Schema, and so for the server; 3.5 is not.
    {"type": "pass", "v": 3.0},
    {"type": "hello", "v": 3.0},
    {"type": "pass", "v": 3.5},
    {"type": "pass", "v": 2.0**64},
    {"type": "pass", "v": 2**63},
    {"type": "contribute", "hand": 0, "value": HEX},
    {"type": "contribute", "hand": 2.0, "value": HEX},
    # Request ids: a string of 1–64 characters or an integer, on any message.
    {"type": "discard", "tile": "5m", "v": 3, "id": "m-17"},
    {"type": "hello", "id": 7},
    {"type": "phrase", "phrase": "nice", "id": "p1"},
    {"type": "ready_next", "id": None},
    {"type": "ready_next", "id": ""},
    {"type": "ready_next", "id": "x" * 65},
    {"type": "ready_next", "id": [1]},
    {"type": "ready_next", "id": True},
])
def test_the_schema_and_the_server_judge_each_message_alike(message: dict[str, Any]) -> None:
    schema_accepts = not Checker(_doc()).errors("TableClientMessage", message)
    assert schema_accepts == _server_accepts(message), message


def _practice_match() -> tuple[Any, Any, int]:
    room, owner, _ = _club_room(practice=True)
    room_ready_set(room=room, user=owner, ready=True)
    return room, owner, Match.objects.get(room=room).pk


def test_auto_deadline_is_set_in_a_running_hand_as_the_schema_says() -> None:
    """Item 6: set in every frame of a running hand, nobody in 托管 or not (H1)."""
    _, owner, match_id = _practice_match()
    services.match_act(match_id=match_id, user_id=owner.pk,  # the last contribution: dealt
                       payload={"type": "contribute", "hand": 1, "value": HEX})
    frame = table_snapshot(match_id=match_id, viewer=0)
    table = frame["table"]
    assert table["stage"] == "hand" and not any(p["auto_play"] for p in table["players"][:1])
    checker = Checker(_doc())
    assert not checker.errors("TableFrame", frame)
    assert checker.errors("TableFrame", {**frame, "table": {**table, "auto_deadline": None}})


def _connect(headers: list[tuple[bytes, bytes]], code: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/rooms/{code}/",
                                 headers=headers)


async def _frame(comm: WebsocketCommunicator) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(10)
        if frame["type"] != "presence":
            return frame


@pytest.mark.asyncio
async def test_a_token_connects_ids_come_back_to_the_asker_alone_and_read_only_cannot_move(
) -> None:
    room, owner, _ = await database_sync_to_async(_practice_match)()

    def tokens() -> tuple[str, str]:
        return (token_create(actor=owner, name="看", play=False)[1],
                token_create(actor=owner, name="下", play=True)[1])

    read, play = await database_sync_to_async(tokens)()
    watcher = _connect([(b"authorization", f"Bearer {read}".encode())], room.code)
    player = _connect([(b"authorization", f"Bearer {play}".encode())], room.code)
    assert (await watcher.connect())[0] and (await player.connect())[0]
    first = await _frame(watcher)
    assert first["type"] == "snapshot" and first["seat"] == 0
    await _frame(player)

    await watcher.send_json_to({"type": "hello", "id": "h1"})
    again = await _frame(watcher)
    assert again["type"] == "snapshot" and again["id"] == "h1"
    await watcher.send_json_to({"type": "contribute", "hand": 1, "value": HEX, "id": 5})
    refused = await _frame(watcher)
    assert (refused["type"], refused["code"], refused["id"]) == ("error", "read_only", 5)

    await player.send_json_to({"type": "contribute", "hand": 1, "value": HEX, "id": "c1"})
    applied = await _frame(player)
    assert applied["type"] == "update" and applied["id"] == "c1"
    assert applied["events"][0]["type"] == "contributed"
    seen = await _frame(watcher)  # the same update, without the other connection's id
    assert seen["v"] == applied["v"] and "id" not in seen
    await player.send_json_to({"type": "contribute", "hand": 1, "value": HEX, "id": "c2"})
    again_refused = await _frame(player)
    # Its contribution completed the seats' and dealt hand 1: this one comes too late.
    assert (again_refused["code"], again_refused["id"]) == ("contribution_late", "c2")
    assert again_refused["v"] == applied["v"]  # item 5: its last state frame's
    await watcher.disconnect()
    await player.disconnect()


@pytest.mark.asyncio
async def test_a_socket_without_a_valid_token_or_session_is_refused() -> None:
    room, _, _ = await database_sync_to_async(_practice_match)()
    comm = _connect([(b"authorization", b"Bearer mj_not_a_token")], room.code)
    await comm.connect()
    assert (await comm.receive_output(5))["code"] == 4401


@pytest.mark.asyncio
async def test_presence_carries_the_version_of_the_last_state_frame_not_an_unseen_one(
) -> None:
    """Item 5: a change this viewer may not see (H2: no frame for it, its own version does
    not move) leaves the next ``presence`` frame at the ``v`` of the last frame it was sent."""
    from channels.layers import get_channel_layer

    from apps.matches import frames

    room, owner, match_id = await database_sync_to_async(_practice_match)()
    _, play = await database_sync_to_async(token_create)(actor=owner, name="下", play=True)
    comm = _connect([(b"authorization", f"Bearer {play}".encode())], room.code)
    assert (await comm.connect())[0]
    shown = (await _frame(comm))["v"]
    layer = get_channel_layer()
    await layer.group_send(frames.match_group(match_id), {  # another seat's private change
        "type": frames.UPDATE_EVENT, "spans": {"0": [shown, shown], "1": [4, 5]},
        "texts": {"1": '{"type":"update"}'},
    })
    await layer.group_send(frames.room_group(room.pk), {
        "type": frames.PRESENCE_EVENT, "players": [{"seat": 0, "connected": True}],
    })
    while (frame := await comm.receive_json_from(10))["type"] != "presence" or \
            frame["players"] != [{"seat": 0, "connected": True}]:
        pass
    assert frame["v"] == shown
    await comm.disconnect()
