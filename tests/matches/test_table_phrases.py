"""Quick phrases (快捷语, issue 32) and the table's presence reaching the match row, over
the real table socket."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async

from apps.matches.models import Match
from tests.support.factories import Table
from tests.support.ws import connect_as

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 10


async def next_of(comm: Any, kind: str) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(TIMEOUT)
        if frame["type"] in (kind, "error"):
            return frame


async def test_a_quick_phrase_reaches_the_table_and_bad_or_fast_ones_are_refused(
    make_table: Any,
) -> None:
    table: Table = await database_sync_to_async(make_table)()
    sender = connect_as(table.users[1], table.room.code)
    viewer = connect_as(table.spectator, table.room.code)
    for comm in (sender, viewer):
        assert (await comm.connect())[0]
        await next_of(comm, "snapshot")
    await sender.send_json_to({"type": "phrase", "phrase": "lag"})
    for comm in (sender, viewer):
        frame = await next_of(comm, "phrase")
        assert (frame["seat"], frame["phrase"], frame["text"]) == (1, "lag", "不好意思，网卡了")
    await sender.send_json_to({"type": "phrase", "phrase": "你好"})
    refused = await next_of(sender, "phrase")
    assert (refused["type"], refused["code"], refused["message"]) == (
        "error", "unknown_phrase", "没有这条快捷语")
    await sender.send_json_to({"type": "phrase", "phrase": "nice"})
    assert (await next_of(sender, "phrase"))["phrase"] == "nice"
    assert (await next_of(viewer, "phrase"))["phrase"] == "nice"
    await sender.send_json_to({"type": "phrase", "phrase": "nice"})
    assert (await next_of(sender, "phrase"))["code"] == "phrase_too_fast"
    await viewer.send_json_to({"type": "phrase", "phrase": "nice"})
    assert (await next_of(viewer, "phrase"))["code"] == "not_seated"
    for comm in (sender, viewer):
        await comm.disconnect()


async def test_the_last_seat_leaving_and_the_first_returning_reach_the_match(
    make_table: Any,
) -> None:
    table: Table = await database_sync_to_async(make_table)()
    match_id = await database_sync_to_async(lambda: table.match.pk)()

    async def offline_since() -> Any:
        return await database_sync_to_async(
            lambda: Match.objects.get(pk=match_id).offline_since)()

    comms = [connect_as(user, table.room.code) for user in table.users]
    for comm in comms:
        assert (await comm.connect())[0]
        await next_of(comm, "snapshot")
    for comm in comms[:3]:
        await comm.disconnect()
    await asyncio.sleep(0.3)
    assert await offline_since() is None, "a seat is still online"
    await comms[3].disconnect()
    for _ in range(50):
        if await offline_since() is not None:
            break
        await asyncio.sleep(0.1)
    assert await offline_since() is not None
    back = connect_as(table.users[2], table.room.code)
    assert (await back.connect())[0]
    await next_of(back, "snapshot")
    for _ in range(50):
        if await offline_since() is None:
            break
        await asyncio.sleep(0.1)
    assert await offline_since() is None
    await back.disconnect()
