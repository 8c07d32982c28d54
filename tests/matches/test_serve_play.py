"""Live play through ``manage.py serve`` (embedded Redis, its own daphne + Celery worker)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from apps.core.embedded_redis import free_port
from tests.support.processes import ROOT, database_url, port_open
from tests.support.ws import TableClient, session_cookie

from .live import assert_log_replays, play_moves

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_play_a_hand_through_serve_then_sigint(make_table: Any, tmp_path: Path) -> None:
    table = make_table()
    cookies = [session_cookie(u) for u in table.users]
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # embedded Redis
    env.update(DATABASE_URL=database_url(), PYTHONUNBUFFERED="1")
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port),
         "--redis-dir", str(tmp_path / "redis")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 60
        while not port_open(port):
            assert serve.poll() is None and time.monotonic() < end, "serve did not start"
            time.sleep(0.2)
        clients = asyncio.run(asyncio.wait_for(_play(port, table.room.code, cookies), 120))
        children = psutil.Process(serve.pid).children(recursive=True)
        assert len(children) >= 2  # daphne, celery and its pool
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=30) == 0
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, alive
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert_log_replays(table.match.pk, clients)


async def _play(port: int, code: str, cookies: list[str]) -> list[TableClient]:
    clients = [TableClient(port, code, c) for c in cookies]
    for client in clients:
        assert (await client.open())["type"] == "snapshot"
    await play_moves(clients)
    for client in clients:
        await client.close()
    return clients
