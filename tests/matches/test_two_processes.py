"""One room's players split over two daphne processes sharing Redis and the database."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.processes import start_celery_worker, start_daphne
from tests.support.ws import TableClient, session_cookie

from .conftest import TEST_QUEUE
from .live import assert_log_replays, assert_versions_once_in_order, play_moves

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_a_hand_across_two_processes(make_table: Any, live_env: dict[str, str]) -> None:
    """SQLite works here too: every write is ``BEGIN IMMEDIATE`` on one file (20 s busy
    timeout), so the two processes queue up exactly as ``select_for_update`` makes them."""
    table = make_table()
    cookies = [session_cookie(u) for u in table.users]
    match = table.match
    with (
        start_celery_worker(live_env, TEST_QUEUE),
        start_daphne(live_env) as first,
        start_daphne(live_env) as second,
    ):
        ports = [first.port, first.port, second.port, second.port]
        clients = asyncio.run(asyncio.wait_for(_play(table.room.code, ports, cookies), 120))
    assert_log_replays(match.pk, clients)
    for client in clients:
        assert_versions_once_in_order(client, match.version, clients[0].v)
        assert client.connected == dict.fromkeys(range(4), True)


async def _play(code: str, ports: list[int], cookies: list[str]) -> list[TableClient]:
    clients = [TableClient(p, code, c) for p, c in zip(ports, cookies, strict=True)]
    for client in clients:
        assert (await client.open())["type"] == "snapshot"
    await play_moves(clients)
    for client in clients:
        await client.close()
    return clients
