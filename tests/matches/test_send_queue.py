"""A match's updates are published by its own send queue, in commit order, while its next
move already runs (``apps.matches.broadcast``)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from apps.matches import broadcast

# The move threads clean up database connections around each call, as in production.
pytestmark = pytest.mark.django_db

MATCH = 7


class HeldLayer:
    """A channel layer whose publish of the versions in ``hold`` waits for ``release``."""

    def __init__(self, *, hold: frozenset[int] = frozenset(), fail: frozenset[int] = frozenset()):
        self.hold, self.fail = hold, fail
        self.release = asyncio.Event()
        self.sent: list[int] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert group == broadcast.match_group(MATCH)
        if message["v"] in self.hold:
            await self.release.wait()
        if message["v"] in self.fail:
            raise RuntimeError("publish failed")
        self.sent.append(message["v"])


def commit(*, match_id: int, version: int) -> int:
    """Stands for a move committed at ``version`` (runs in a move thread)."""
    frame = {"type": "update", "from": version - 1, "v": version, "events": []}
    broadcast.send_updates(match_id, {0: frame, None: frame})
    return version


async def drained(layer: HeldLayer, count: int) -> list[int]:
    for _ in range(200):
        if len(layer.sent) >= count and not broadcast._drainers:
            break
        await asyncio.sleep(0.01)
    return layer.sent


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> HeldLayer:
    held = HeldLayer(**getattr(request, "param", {}))
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: held)
    return held


@pytest.mark.asyncio
@pytest.mark.parametrize("layer", [{"hold": frozenset({1})}], indirect=True)
async def test_the_next_move_runs_while_the_previous_update_is_still_publishing(
    layer: HeldLayer,
) -> None:
    assert await broadcast.call_then_send(commit, match_id=MATCH, version=1) == 1
    # The second move of the same match completes although version 1 has not left yet.
    assert await asyncio.wait_for(
        broadcast.call_then_send(commit, match_id=MATCH, version=2), 5
    ) == 2
    assert layer.sent == []
    layer.release.set()
    assert await drained(layer, 2) == [1, 2]


@pytest.mark.asyncio
@pytest.mark.parametrize("layer", [{"fail": frozenset({1})}], indirect=True)
async def test_a_failed_publish_does_not_stop_the_later_ones(
    layer: HeldLayer, caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger=broadcast.__name__):
        for version in (1, 2, 3):
            await broadcast.call_then_send(commit, match_id=MATCH, version=version)
        assert await drained(layer, 2) == [2, 3]
    assert "update v1 not sent" in caplog.text


@pytest.mark.asyncio
@pytest.mark.parametrize("layer", [{"hold": frozenset({1})}], indirect=True)
async def test_a_full_send_queue_drops_updates_for_the_version_check_to_deliver(
    layer: HeldLayer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(broadcast, "MAX_QUEUED_SENDS", 2)
    with caplog.at_level(logging.WARNING, logger=broadcast.__name__):
        for version in (1, 2, 3, 4):
            await broadcast.call_then_send(commit, match_id=MATCH, version=version)
    assert "send queue full, update v3 not sent" in caplog.text
    assert "update v4 not sent" in caplog.text
    layer.release.set()
    assert await drained(layer, 2) == [1, 2]
