"""A socket that answers no WebSocket ping (a phone that lost its signal) is closed by the
real web process (``python -m apps.core.web``, daphne), and its table sees the seat 离线."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.support.processes import server_env, start_daphne
from tests.support.ws import session_cookie

from .helpers import TIMEOUT, build_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


async def _offline_seen(port: int, code: str, cookies: list[str]) -> float:
    """Seat 1 goes silent (reads nothing, so answers no ping, as a phone without signal);
    return how long seat 0 waited for the presence frame that shows seat 1 offline."""
    url, origin = f"ws://127.0.0.1:{port}/ws/rooms/{code}/", f"http://127.0.0.1:{port}"
    async with connect(url, origin=origin, additional_headers={"Cookie": cookies[0]},  # type: ignore[arg-type]
                       open_timeout=TIMEOUT, proxy=None) as seat0, \
            connect(url, origin=origin, additional_headers={"Cookie": cookies[1]},  # type: ignore[arg-type]
                    open_timeout=TIMEOUT, proxy=None, ping_interval=None) as seat1:
        await asyncio.wait_for(seat1.recv(), TIMEOUT)  # the snapshot

        async def seat1_shown(connected: bool) -> None:
            while True:
                frame = json.loads(await seat0.recv())
                if frame["type"] == "presence" and frame["players"][1]["connected"] is connected:
                    return

        await asyncio.wait_for(seat1_shown(True), TIMEOUT)
        seat1.transport.pause_reading()
        started = asyncio.get_running_loop().time()
        await asyncio.wait_for(seat1_shown(False), TIMEOUT)
        return asyncio.get_running_loop().time() - started


def test_a_seat_that_answers_no_ping_is_shown_offline(_live_services: str) -> None:
    """The web process pings a quiet socket and closes one that does not answer, so the
    table sees a player whose phone lost its signal as 离线 (here with 1 s pings)."""
    table = build_table()
    cookies = [session_cookie(user) for user in table.users[:2]]
    with start_daphne(server_env(_live_services, WEBSOCKET_PING_SECONDS="1")) as web:
        waited = asyncio.run(_offline_seen(web.port, table.room.code, cookies))
    # A ping after 1 s of quiet, 1 s for its answer, daphne's 2 s check: not the defaults'
    # 50 s, nor the presence record's 30 s expiry.
    assert waited < 8
