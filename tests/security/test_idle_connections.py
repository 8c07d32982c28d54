"""An idle table connection stays open (no dropped connections for quiet players).

Regression: with the list-based channel layer, redis-py 8's default 5 s ``socket_timeout``
equalled the layer's 5 s blocking read, so a connection that received nothing for 5 s died
with a Redis ``TimeoutError``. The pub/sub layer reads in short polls, and the layer's
``socket_timeout`` in ``config.settings`` stays above 5 s; quiet periods must stay harmless.
"""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from tests.support.ws import connect_as

from .helpers import TIMEOUT, build_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_idle_connection_survives_quiet_periods() -> None:
    table = await database_sync_to_async(build_table)()
    comm = connect_as(table.spectator, table.room.code)
    assert (await comm.connect(TIMEOUT))[0]
    await comm.receive_json_from(TIMEOUT)
    await asyncio.sleep(7)  # longer than the layer's 5 s blocking receive
    await comm.send_json_to({"type": "hello"})
    frame = await comm.receive_json_from(TIMEOUT)
    while frame["type"] == "presence":
        frame = await comm.receive_json_from(TIMEOUT)
    assert frame["type"] == "snapshot"
    await comm.disconnect()
