"""Publishing to a channel-layer group from synchronous code (``apps.core.group_publish``):
what it sends is what channels-redis's own layer delivers to its consumers, one match's
updates arrive in commit order, and an unreachable Redis costs a dropped message, not an
error or a wait per move."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import time
from typing import Any

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.test import override_settings

from apps.core import group_publish as publishing
from apps.core.embedded_redis import free_port
from apps.core.group_publish import group_publish
from apps.matches import broadcast

pytestmark = pytest.mark.usefixtures("redis_url")


async def _subscribe(group: str) -> tuple[Any, str]:
    layer = get_channel_layer()
    assert layer is not None
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return layer, channel


async def _first_delivery(group: str, message: dict[str, Any]) -> dict[str, Any]:
    """Publish ``message`` until the subscription (which Redis sets up asynchronously)
    receives it; return what the consumer's channel got."""
    layer, channel = await _subscribe(group)
    for _ in range(50):
        assert await asyncio.to_thread(group_publish, group, message)
        try:
            return await asyncio.wait_for(layer.receive(channel), 0.2)  # type: ignore[no-any-return]
        except TimeoutError:
            continue
    raise AssertionError("the subscribed channel received nothing")


@pytest.mark.asyncio
async def test_a_published_message_reaches_a_consumer_of_the_real_layer() -> None:
    message = {"type": "lobby.update", "state": {"seats": [None, "小明"], "n": 2}}
    assert await _first_delivery("lobby_41", message) == message


def frame(version: int) -> dict[str, Any]:
    return {"type": "update", "from": version - 1, "v": version, "events": [{"n": version}]}


def commit(*, match_id: int, version: int) -> int:
    """Stands for a move committed at ``version`` (runs in a move thread)."""
    broadcast.send_updates(match_id, {0: frame(version), 1: frame(version), None: frame(version)})
    return version


@pytest.mark.asyncio
@pytest.mark.django_db  # move threads clean up database connections around each call
async def test_one_matchs_updates_arrive_in_commit_order_each_audience_its_own_text() -> None:
    """Calls on one match queue in the order they came (``call_in_order``) and each
    publishes its update at commit, before the next call runs."""
    await _first_delivery(broadcast.match_group(7), {"type": "table.update", "v": 0})
    layer, channel = await _subscribe(broadcast.match_group(7))
    results = await asyncio.gather(*(broadcast.call_in_order(commit, match_id=7, version=v)
                                     for v in range(1, 21)))
    assert results == list(range(1, 21))
    received = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(20)]
    assert [m["v"] for m in received] == list(range(1, 21))
    assert all(m["from"] == m["v"] - 1 and m["type"] == broadcast.UPDATE_EVENT for m in received)
    assert sorted(received[0]["texts"]) == ["0", "1", "watch"]
    assert json.loads(received[0]["texts"]["0"]) == frame(1)


@pytest.fixture
def unreachable_redis() -> Any:
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"] = [{"address": f"redis://127.0.0.1:{free_port()}/0"}]
    with override_settings(CHANNEL_LAYERS=layers):
        yield


@pytest.mark.usefixtures("unreachable_redis")
def test_an_unreachable_redis_drops_the_message_then_waits_before_trying_again(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    attempts: list[str] = []
    real_publish = redis.Redis.publish

    def counted(self: redis.Redis, channel: str, message: bytes) -> Any:
        attempts.append(channel)
        return real_publish(self, channel, message)

    monkeypatch.setattr(redis.Redis, "publish", counted)
    monkeypatch.setattr(publishing, "RETRY_AFTER_SECONDS", 0.3)
    with caplog.at_level(logging.WARNING, logger="apps.core.group_publish"):
        assert group_publish("match_3", {"type": "table.update", "v": 1}) is False
        assert group_publish("match_3", {"type": "table.update", "v": 2}) is False
    assert len(attempts) == 1  # the second was dropped without trying
    assert "match_3: message table.update not published" in caplog.text
    time.sleep(0.35)
    assert group_publish("match_3", {"type": "table.update", "v": 3}) is False
    assert len(attempts) == 2
