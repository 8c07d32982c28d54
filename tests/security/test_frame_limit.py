"""A WebSocket message over 1 MiB gets a close frame with 1009, not a reset (issue 30),
from the real web process (``python -m apps.core.web``, daphne)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.processes import server_env, start_daphne
from tests.support.ws import session_cookie

from .helpers import TIMEOUT, build_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

MIB = 1024 * 1024


async def _send(port: int, code: str, cookie: str, size: int) -> tuple[int | None, str]:
    """Send one text message of ``size`` bytes; return the close code (None if the
    connection stays open) and the type of the reply frame, if any."""
    async with connect(
        f"ws://127.0.0.1:{port}/ws/rooms/{code}/", origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie}, open_timeout=TIMEOUT, proxy=None,
    ) as ws:
        await asyncio.wait_for(ws.recv(), TIMEOUT)  # the snapshot
        await ws.send("x" * size)
        try:
            async with asyncio.timeout(TIMEOUT):
                while True:
                    reply = await ws.recv()
                    if '"presence"' not in str(reply):
                        return None, str(reply)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "the server sent no close frame (a reset)"
            return closed.rcvd.code, ""


def test_a_message_over_1_mib_is_closed_with_1009(_live_services: str) -> None:
    table = build_table()
    cookie = session_cookie(table.users[1])
    with start_daphne(server_env(_live_services)) as web:
        code, _ = asyncio.run(_send(web.port, table.room.code, cookie, MIB + 1))
        assert code == 1009
        # Below the protocol limit, the table's own 4 KiB limit answers with an error.
        code, reply = asyncio.run(_send(web.port, table.room.code, cookie, 5000))
        assert code is None and '"too_large"' in reply

