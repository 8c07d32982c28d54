"""What ``docs/protocol.md`` promises, through the table consumer: the points where the
guide and the server once disagreed (issue 35)."""

from __future__ import annotations

import secrets
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from apps.matches import services
from apps.matches.consumers import TableConsumer
from apps.matches.models import Match, MatchEvent
from apps.matches.selectors import table_snapshot
from tests.support.factories import Table
from tests.support.ws import connect_as

from .driving import choose

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 10


async def state(comm: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame that is not a ``presence`` notice."""
    while True:
        frame = await comm.receive_json_from(TIMEOUT)
        if frame["type"] != "presence":
            return frame


async def quiet(comm: WebsocketCommunicator, seconds: float = 0.2) -> bool:
    while not await comm.receive_nothing(seconds):
        if (await comm.receive_json_from(TIMEOUT))["type"] != "presence":
            return False
    return True


async def open_seats(table: Table) -> tuple[list[WebsocketCommunicator], list[dict[str, Any]]]:
    comms = [connect_as(u, table.room.code) for u in table.users]
    for comm in comms:
        assert (await comm.connect(TIMEOUT))[0]
    return comms, [await state(comm) for comm in comms]


async def close(comms: list[WebsocketCommunicator]) -> None:
    for comm in comms:
        await comm.disconnect()


def plain(message: str) -> bool:
    """Chinese for the player: no Latin letters or digits (but the word JSON)."""
    return not any(ch.isascii() and ch.isalnum() for ch in message.replace("JSON", ""))


async def test_waiting_has_no_version_and_hello_before_a_match_gets_it_again(
    make_table: Any,
) -> None:
    table = await database_sync_to_async(make_table)(start=False)
    comm = connect_as(table.users[2], table.room.code)
    assert (await comm.connect(TIMEOUT))[0]
    assert await state(comm) == {"type": "waiting", "seat": 2}
    await comm.send_json_to({"type": "hello", "v": 5})
    assert await state(comm) == {"type": "waiting", "seat": 2}
    await comm.send_json_to({"type": "ready_next"})
    refused = await state(comm)
    assert refused["code"] == "no_match" and refused["v"] == -1  # no frame of a match yet
    await comm.disconnect()


async def test_the_first_frame_is_a_snapshot_and_hand_one_waits_for_every_contribution(
    make_table: Any,
) -> None:
    """The match's start (``match_start``, hand 1's ``commitment``) is logged before any
    connection can follow it, so its facts come in the snapshot (``table.next``, stage
    ``between``). Hand 1 is dealt in an ``update`` once every seat has contributed, its
    wall from all four values (issue 30: no hand is the server's seed alone)."""
    table = await database_sync_to_async(make_table)(start=False)
    comm = connect_as(table.users[0], table.room.code)
    assert (await comm.connect(TIMEOUT))[0]
    assert (await state(comm))["type"] == "waiting"
    match = await database_sync_to_async(services.match_start)(room=table.room)
    snapshot = await state(comm)
    assert snapshot["type"] == "snapshot" and "events" not in snapshot
    assert snapshot["table"]["stage"] == "between" and snapshot["table"]["hand"] is None
    assert snapshot["observation"] is None and snapshot["table"]["ready"] == []
    upcoming = snapshot["table"]["next"]
    assert upcoming["hand"] == 1 and upcoming["contributions"] == []
    values = [secrets.token_hex(32) for _ in table.users]
    for seat in (1, 2, 3):
        await database_sync_to_async(services.match_act)(
            match_id=match.pk, user_id=table.users[seat].pk,
            payload={"type": "contribute", "hand": 1, "value": values[seat]})
        update = await state(comm)
        assert [e["type"] for e in update["events"]] == ["contributed"]
        assert update["table"]["stage"] == "between" and seat in update["table"]["ready"]
    await comm.send_json_to({"type": "contribute", "hand": 1, "value": values[0]})
    dealt = await state(comm)
    kinds = [e["type"] for e in dealt["events"]]
    assert kinds[:3] == ["contributed", "hand_start", "deal"]
    start = dealt["events"][1]
    assert start["hand"] == 1 and start["commitment"] == upcoming["commitment"]
    assert start["contributions"] == [{"seat": s, "value": v} for s, v in enumerate(values)]
    assert dealt["table"]["stage"] == "hand" and dealt["table"]["next"] is None
    assert len(dealt["observation"]["me"]["hand"]) >= 13
    await comm.send_json_to({"type": "hello", "v": 0})
    catchup = await state(comm)
    assert catchup["type"] == "catchup" and catchup["from"] == 0
    assert [e["type"] for e in catchup["events"]][:2] == ["match_start", "commitment"]
    await comm.disconnect()


async def test_legal_entries_carry_the_seat_which_the_server_ignores(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    comms, frames = await open_seats(table)
    dealer = frames[0]["observation"]["dealer"]
    legal = frames[dealer]["observation"]["me"]["legal"]
    assert legal and all(entry["seat"] == dealer for entry in legal)
    # Sent back as it is, with another seat's number even: the seat is the connection's.
    move = {**legal[0], "seat": (dealer + 1) % 4, "v": frames[dealer]["v"]}
    await comms[dealer].send_json_to(move)
    update = await state(comms[dealer])
    assert update["type"] == "update"
    discard = next(e for e in update["events"] if e["type"] == "discard")
    assert discard["seat"] == dealer and discard["tile"] == legal[0]["tile"]
    await close(comms)


@pytest.mark.parametrize(("message", "code"), [
    ({"type": "discard", "tile": None}, "malformed"),
    ({"type": "discard"}, "malformed"),
    ({"type": "kong"}, "malformed"),
    ({"type": "pass", "tile": "5m"}, "malformed"),
    ({"type": "win", "tile": None}, "malformed"),
    ({"type": "pung", "tile": "5m", "declare": True}, "malformed"),
    ({"type": "discard", "tile": "HAND", "declare": "yes"}, "malformed"),
])
async def test_tile_and_fields_of_the_wrong_shape_are_malformed(
    make_table: Any, message: dict[str, Any], code: str,
) -> None:
    table = await database_sync_to_async(make_table)()
    comms, frames = await open_seats(table)
    dealer = frames[0]["observation"]["dealer"]
    await comms[dealer].send_json_to({**message, "v": frames[dealer]["v"]})
    reply = await state(comms[dealer])
    assert reply["type"] == "error" and reply["code"] == code, reply
    await close(comms)


async def test_a_version_beyond_64_bits_is_malformed_and_a_future_one_stale(
    make_table: Any,
) -> None:
    table = await database_sync_to_async(make_table)()
    comms, frames = await open_seats(table)
    dealer = frames[0]["observation"]["dealer"]
    tile = frames[dealer]["observation"]["me"]["legal"][0]["tile"]
    await comms[dealer].send_to(
        text_data=f'{{"type": "discard", "tile": "{tile}", "v": {2**64}}}')
    assert (await state(comms[dealer]))["code"] == "malformed"
    await comms[dealer].send_json_to(
        {"type": "discard", "tile": tile, "v": 2**63 - 1})
    assert (await state(comms[dealer]))["code"] == "stale_version"
    await close(comms)


async def test_refusals_are_chinese_and_never_quote_the_input(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)("zigong")
    comms, frames = await open_seats(table)
    obs = frames[0]["observation"]
    seat = next(s for s in range(4) if frames[s]["observation"]["me"]["legal"])
    v = frames[seat]["v"]
    held = frames[seat]["observation"]["me"]["hand"][0]
    marker = "QQ"
    junk: list[Any] = [
        {"type": "fly" * 40 + marker, "v": v},
        {"type": "discard", "tile": "z" * 60 + marker, "v": v},
        {"type": "discard", "tile": held, "v": v, "ticks": ["5m"] * 500},
        {"type": "discard", "tile": held, "v": v, "ticks": [marker]},
        {"type": "discard", "tile": held, "v": v, "declare": marker},
        {"type": "declare", "v": v, "ticks": ["1m"] * 4},
        {"type": "discard", "tile": held, "v": v, "ticks": ["1m"]},
        {"type": "win", "v": v},
        {"type": "pass", "v": marker},
        f'{{"type": "pass", "v": {v}, {marker}',
        "x" * 5000,
    ]
    for message in junk:
        if isinstance(message, str):
            await comms[seat].send_to(text_data=message)
        else:
            await comms[seat].send_json_to(message)
        reply = await state(comms[seat])
        assert reply["type"] == "error", (message, reply)
        text = reply["message"]
        assert plain(text), (message, reply)
        assert marker not in text and "5m" not in text and len(text) < 40, (message, reply)
    assert obs["variant"] == "zigong"
    await close(comms)


async def test_the_rate_limit_charges_three_for_a_refusal_one_for_the_rest(
    make_table: Any,
) -> None:
    """Each message takes a token; a refusal two more after its answer; with fewer than
    one left a message is dropped (costing nothing) and ``rate_limited`` said once a
    second. ``unavailable`` costs no more than the message."""
    table = await database_sync_to_async(make_table)()
    with mock.patch.object(TableConsumer, "message_burst", 5.0), \
            mock.patch.object(TableConsumer, "messages_per_second", 0.001):
        comms, frames = await open_seats(table)
    dealer = frames[0]["observation"]["dealer"]
    other = (dealer + 1) % 4
    comm, v = comms[other], frames[other]["v"]
    await comm.send_json_to({"type": "hello", "v": v})  # 5 → 4
    assert (await state(comm))["type"] == "catchup"
    with mock.patch.object(services, "match_act", side_effect=OperationalError):
        await comm.send_json_to({"type": "resume"})  # unavailable: 4 → 3
        assert (await state(comm))["code"] == "unavailable"
    await comm.send_json_to({"type": "resume"})  # not_auto_play: 3 → 0
    assert (await state(comm))["code"] == "not_auto_play"
    await comm.send_json_to({"type": "hello", "v": v})  # dropped
    assert (await state(comm))["code"] == "rate_limited"
    await comm.send_json_to({"type": "hello", "v": v})  # dropped, notice already sent
    assert await quiet(comm)
    await close(comms)


def _play_hand(match_id: int, users: list[Any]) -> None:
    """Play simple legal moves through the service until the hand is over."""
    for _ in range(400):
        match = Match.objects.get(pk=match_id)
        if match.stage != Match.Stage.HAND:
            return
        for seat, user in enumerate(users):
            frame = table_snapshot(match_id=match_id, viewer=seat)
            move = choose(frame["observation"])
            if move is not None:
                services.match_act(match_id=match_id, user_id=user.pk,
                                   payload={**move, "v": frame["v"]})
                break
    raise AssertionError("the hand did not end")


async def test_ready_next_twice_is_answered(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    match_id = (await database_sync_to_async(lambda: table.match.pk)())
    await database_sync_to_async(_play_hand)(match_id, table.users)
    comms, frames = await open_seats(table)
    assert frames[1]["table"]["stage"] == "between"
    await comms[1].send_json_to({"type": "ready_next"})
    assert (await state(comms[1]))["type"] == "update"
    for seat in (0, 2, 3):  # each viewer's own count (a seat's private events differ)
        assert (await state(comms[seat]))["events"][0] == {
            "type": "ready_next", "seat": 1, "v": frames[seat]["v"] + 1}
    count = await database_sync_to_async(MatchEvent.objects.count)()
    await comms[1].send_json_to({"type": "ready_next"})
    reply = await state(comms[1])
    assert reply["type"] == "error" and reply["code"] == "already_ready", reply
    for comm in (comms[0], comms[2], comms[3]):
        assert await quiet(comm)
    assert await database_sync_to_async(MatchEvent.objects.count)() == count
    await close(comms)
