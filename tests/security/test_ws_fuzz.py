"""Fuzzing the table protocol: generated frames get a typed error (or are a legal move),
never a crash, a closed connection, a change of state, or a frame to another player.
Oversized frames, binary frames and floods are bounded."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.matches.models import Match
from tests.support.ws import connect_as

from . import cases
from .helpers import TIMEOUT, build_table

pytestmark = pytest.mark.django_db(transaction=True)

TYPES = ["discard", "pung", "kong", "win", "pass", "declare", "hello", "ready_next", "resume",
         "dissolve_vote", "fly", "", "DISCARD"]  # not dissolve_propose: it is legal
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=12,
)
messages = st.one_of(
    st.fixed_dictionaries(
        {"type": st.one_of(st.sampled_from(TYPES), json_values.filter(
            lambda value: not isinstance(value, str)))},
        optional={"v": st.one_of(st.integers(-5, 10**20), st.text(max_size=3), st.booleans(),
                                 st.none()),
                  "tile": st.one_of(st.text(max_size=4), st.sampled_from(["5m", "0m", "9z"]),
                                    st.integers()),
                  "seat": st.integers(-2, 9), "agree": json_values, "declare": json_values,
                  "ticks": json_values},
    ),
    json_values,
).map(json.dumps) | st.text(min_size=1, max_size=60)

async def _state(comm: Any) -> dict[str, Any]:
    frame = await comm.receive_json_from(TIMEOUT)
    while frame["type"] == "presence":
        frame = await comm.receive_json_from(TIMEOUT)
    return frame


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages, min_size=1, max_size=8))
def test_generated_frames_get_typed_errors(table: Any, batch: list[str]) -> None:
    async def run() -> None:
        sender = connect_as(table.users[1], table.room.code)  # not the dealer's turn
        other = connect_as(table.users[2], table.room.code)
        for comm in (sender, other):
            assert (await comm.connect(TIMEOUT))[0]
            await _state(comm)
        version = await database_sync_to_async(
            lambda: Match.objects.get(room=table.room).version)()
        for text in batch:
            await sender.send_to(text_data=text)
            reply = await _state(sender)
            assert reply["type"] in ("error", "snapshot", "catchup"), reply
            if reply["type"] == "error":
                assert isinstance(reply["code"], str) and reply["code"] and reply["message"]
        while not await other.receive_nothing(0.05):
            stray = await other.receive_json_from(TIMEOUT)
            assert stray["type"] == "presence", f"another player got {stray}"
        after = await database_sync_to_async(
            lambda: Match.objects.get(room=table.room).version)()
        assert after == version, "a generated frame changed the match"
        for comm in (sender, other):
            await comm.disconnect()

    asyncio.run(run())
    cases.record("test_ws_fuzz::test_generated_frames_get_typed_errors (frames)", len(batch))


@pytest.fixture
def table() -> Any:
    return build_table()


@pytest.mark.asyncio
async def test_oversized_binary_and_flood_are_bounded(table: Any) -> None:
    flooder = connect_as(table.users[1], table.room.code)
    bystander = connect_as(table.users[0], table.room.code)
    for comm in (flooder, bystander):
        assert (await comm.connect(TIMEOUT))[0]
        await _state(comm)
    await flooder.send_to(text_data="x" * 1_000_000)
    assert (await _state(flooder))["code"] == "too_large"
    await flooder.send_to(bytes_data=b"\x00" * 100)
    assert (await _state(flooder))["code"] == "malformed"
    for _ in range(500):
        await flooder.send_to(text_data='{"type":"pass","v":0}')
    # Refusals until the bucket is empty, then one rate_limited notice; the rest dropped.
    # Each reply is awaited, not guessed from a silence: a loaded machine pauses.
    replies = [await flooder.receive_json_from(TIMEOUT)]
    while replies[-1].get("code") != "rate_limited":
        assert len(replies) < 60, replies
        replies.append(await flooder.receive_json_from(TIMEOUT))
    while not await flooder.receive_nothing(0.3):
        replies.append(await flooder.receive_json_from(TIMEOUT))
    assert len(replies) < 60, len(replies)
    cases.record("test_ws_fuzz::test_oversized_binary_and_flood_are_bounded (frames)", 502)
    # The other player is unaffected: it still plays.
    await bystander.send_json_to({"type": "hello"})
    frame = await _state(bystander)
    assert frame["type"] == "snapshot"
    move = frame["observation"]["me"]["legal"][0]
    await bystander.send_json_to({**{k: v for k, v in move.items() if k != "seat"},
                                  "v": frame["v"]})
    assert (await _state(bystander))["type"] == "update"
    for comm in (flooder, bystander):
        await comm.disconnect()
