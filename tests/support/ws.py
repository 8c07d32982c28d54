"""Clients of the table endpoint: :class:`TableClient` on a real server (daphne), using
``websockets`` (logs in by creating a session in the test database and sending its cookie
with an allowed ``Origin``; keeps every versioned frame it receives so tests can check
ordering), and :func:`connect_as`, Channels' in-process communicator."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from websockets.asyncio.client import ClientConnection, connect

from apps.matches.routing import websocket_urlpatterns

TIMEOUT = 15.0


def session_cookie(user: Any) -> str:
    """A logged-in session for ``user`` (written to the database), as a Cookie header value."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


class TableClient:
    """One browser tab at a room's table on ``127.0.0.1:port``.

    :meth:`recv` returns versioned frames (``snapshot``/``update``/``catchup``/``error``)
    and records them; ``presence`` frames update :attr:`connected` and are not returned.
    """

    def __init__(self, port: int, code: str, cookie: str) -> None:
        self.port, self.code, self.cookie = port, code, cookie
        self.ws: ClientConnection | None = None
        self.frames: list[dict[str, Any]] = []
        self.latest: dict[str, Any] = {}
        self.connected: dict[int, bool] = {}

    @property
    def v(self) -> int:
        """The last version this client has seen."""
        return int(self.latest["v"])

    async def open(self, *, port: int | None = None, since: int | None = None) -> dict[str, Any]:
        """Connect (optionally to another port, optionally resuming from ``since``); return
        the first frame (``snapshot``, ``catchup`` or ``waiting``)."""
        self.port = port or self.port
        query = f"?v={since}" if since is not None else ""
        self.ws = await connect(
            f"ws://127.0.0.1:{self.port}/ws/rooms/{self.code}/{query}",
            origin=f"http://127.0.0.1:{self.port}",  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie},
            open_timeout=TIMEOUT, proxy=None,
        )
        return await self.recv()

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message."""
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next frame other than ``presence`` (those are folded into :attr:`connected`)."""
        assert self.ws is not None
        async with asyncio.timeout(timeout):
            while True:
                frame = json.loads(await self.ws.recv())
                if frame["type"] == "presence":
                    self.connected.update((p["seat"], p["connected"]) for p in frame["players"])
                    continue
                if frame["type"] in ("snapshot", "update", "catchup"):
                    self.frames.append(frame)
                    self.latest = frame
                    self.connected.update(  # null in updates: presence frames tell
                        (p["seat"], p["connected"]) for p in frame["table"]["players"]
                        if p["connected"] is not None
                    )
                return frame

    async def close(self) -> None:
        """Close the connection (if open)."""
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


class InjectUser:
    """ASGI wrapper standing in for AuthMiddlewareStack: puts a given user in the scope."""

    def __init__(self, inner: Any, user: Any) -> None:
        self.inner, self.user = inner, user

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.inner({**scope, "user": self.user}, receive, send)


def connect_as(user: Any, code: str, query: str = "") -> WebsocketCommunicator:
    """An in-process communicator for the table endpoint, authenticated as ``user``."""
    path = f"/ws/rooms/{code}/" + (f"?{query}" if query else "")
    return WebsocketCommunicator(InjectUser(URLRouter(websocket_urlpatterns), user), path)
