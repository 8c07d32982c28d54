"""A closed socket leaves nothing behind in the channel layer: no Redis subscription (nor
the queue beside it in the process), even when a message reached its channel as it
closed, as a seat's own presence broadcast does. channels_redis forgets a channel only when
the wait on it is cancelled (django/channels_redis#276); the consumers forget theirs when
they end (:mod:`apps.core.channel_layer`)."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from redis import Redis

from tests.support import factories
from tests.support.ws import connect_as

TIMEOUT = 10


def _left(redis: Redis, before: set[bytes]) -> set[bytes]:
    """The connections' channel subscriptions in Redis that were not there ``before``."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    return set(redis.pubsub_channels(f"{prefix}specific.*")) - before


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_hundred_closed_table_sockets_leave_no_subscription(redis_url: str) -> None:
    table = await database_sync_to_async(factories.table)("duyun")
    redis = Redis.from_url(redis_url)
    before = _left(redis, set())
    for _ in range(25):
        seats = [connect_as(user, table.room.code) for user in table.users]
        for seat in seats:
            assert (await seat.connect(TIMEOUT))[0]
            await seat.receive_json_from(TIMEOUT)
        assert len(_left(redis, before)) >= 4  # each open socket is subscribed
        for seat in seats:  # each leaves its seat offline: a presence broadcast as it closes
            await seat.disconnect()
    deadline = time.monotonic() + 5
    while _left(redis, before) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # an unsubscribe is sent, not waited for
    assert not _left(redis, before)
