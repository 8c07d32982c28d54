"""A server crash mid-hand loses nothing: SIGKILL daphne, restart it, resume, finish.

Real processes (daphne + a Celery worker from ``tests.support.processes``) on the test
database and Redis; the players are ``websockets`` clients logged in by session cookie.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from tests.support.processes import start_celery_worker, start_daphne
from tests.support.ws import TableClient, session_cookie

from .conftest import TEST_QUEUE
from .driving import choose
from .live import assert_log_replays, play_moves

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_killing_daphne_mid_hand_loses_nothing(make_table: Any, live_env: dict[str, str]) -> None:
    table = make_table()
    cookies = [session_cookie(u) for u in table.users]
    match_id = table.match.pk
    with start_celery_worker(live_env, TEST_QUEUE), start_daphne(live_env) as web:
        clients = asyncio.run(
            asyncio.wait_for(_crash_and_resume(web, table.room.code, cookies), 120)
        )
    assert_log_replays(match_id, clients)


async def _crash_and_resume(web: Any, code: str, cookies: list[str]) -> list[TableClient]:
    """Play 12 moves, crash daphne while a 13th is in flight, reconnect, finish the hand."""
    clients = [TableClient(web.port, code, c) for c in cookies]
    for client in clients:
        assert (await client.open())["type"] == "snapshot"
    assert await play_moves(clients, 12) == 12

    # Send a move and crash at once: it may or may not have been committed.
    seat, move = next(
        (s, m) for s, c in enumerate(clients) if (m := choose(c.latest["observation"]))
    )
    await clients[seat].send({**move, "v": clients[seat].v})
    await sync_to_async(web.kill)()
    for client in clients:
        await client.close()
    await sync_to_async(web.restart)()

    for client in clients:
        before = client.v
        frame = await client.open(since=before)
        assert frame["type"] == "catchup" and frame["from"] == before, frame
    await play_moves(clients)
    for client in clients:
        await client.close()
    return clients
