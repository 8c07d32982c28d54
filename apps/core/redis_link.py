"""A lean asyncio connection to Redis for the hot pub/sub path of match owners.

A forwarded move (:mod:`apps.matches.owners`) costs two ``PUBLISH`` commands and two
received messages. Through redis-py's asyncio client that was about 0.6 ms of CPU per
forwarded move (connection-pool checkout, retry and timeout wrappers, the pub/sub reader's
health checks around every message), as much as the row lock it saves. Here hiredis (the
C parser redis-py itself uses) packs each command and parses each reply; what is left is
an :class:`asyncio.Protocol` that writes each command at once and answers the oldest
waiting one with each reply, or, on a subscribed link, hands each message to a callback.
A forwarded move then costs 0.4–0.5 ms, most of it the socket calls
(``benchmarks/owners_forward.py``).

It speaks only what owners need (``AUTH``, ``PUBLISH``, ``SUBSCRIBE``) over TCP, TLS
(``rediss://``, checked against the system's CA certificates; the URL's ``ssl_*`` options
are not read) or a Unix socket, to a single Redis server. Everything else uses redis-py.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
from collections.abc import Callable
from typing import Any

import hiredis
from redis.connection import SSLConnection, UnixDomainSocketConnection, parse_url

OnMessage = Callable[[bytes, bytes], None]
"""Called with ``(channel, data)`` for each message a subscribed link receives."""
logger = logging.getLogger(__name__)


class LinkError(ConnectionError):
    """The link to Redis is closed (or could not be opened): a command sent on it may or
    may not have reached Redis."""


class RedisLink(asyncio.Protocol):
    """One connection: commands answered in the order they were sent, and, once
    subscribed, pushed messages handed to ``on_message``."""

    def __init__(self, on_message: OnMessage | None = None) -> None:
        self.on_message = on_message
        self.reader = hiredis.Reader()
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, url: str, *, timeout: float,
                   on_message: OnMessage | None = None) -> RedisLink:
        """Connect to the Redis server of ``url`` (and authenticate) within ``timeout``
        seconds. Raises :class:`LinkError` or :class:`OSError`."""
        loop = asyncio.get_running_loop()
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        connection_class = options.get("connection_class")
        link = cls(on_message)
        async with asyncio.timeout(timeout):
            if connection_class is UnixDomainSocketConnection:
                await loop.create_unix_connection(lambda: link, options["path"])
            else:
                context = ssl.create_default_context() if connection_class is SSLConnection \
                    else None
                await loop.create_connection(lambda: link, options.get("host", "localhost"),
                                             options.get("port", 6379), ssl=context)
            password = options.get("password")
            if password is not None:
                username = options.get("username")
                await link.command("AUTH", *([username] if username else []), password)
        return link

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport."""
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        """Answer waiting commands with their replies, and hand messages on."""
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if (self.on_message is not None and isinstance(reply, list) and len(reply) == 3
                    and reply[0] == b"message"):
                try:
                    self.on_message(reply[1], reply[2])
                except Exception:  # one bad message must not close the link
                    logger.exception("a message on %r could not be handled", reply[1])
                continue
            if not self.waiting:
                continue  # a subscribed link's confirmations beyond the first: not awaited
            future = self.waiting.popleft()
            if future.done():
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        """Fail every command still waiting, and tell the owner of the link."""
        self.transport = None
        error = LinkError(f"the link to Redis closed ({exc or 'by the server'})")
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if not self.closed.done():
            self.closed.set_result(None)

    def command(self, *args: str | bytes) -> asyncio.Future[Any]:
        """Send a command; the future of its reply (a Redis error reply is raised)."""
        future = asyncio.get_running_loop().create_future()
        if self.transport is None or self.transport.is_closing():
            future.set_exception(LinkError("the link to Redis is closed"))
            return future
        # hiredis's stub types the command as a 1-tuple; it takes any length.
        self.transport.write(hiredis.pack_command(args))  # type: ignore[arg-type]
        self.waiting.append(future)
        return future

    @property
    def is_open(self) -> bool:
        """Whether commands can still be sent."""
        return self.transport is not None and not self.transport.is_closing()

    def close(self) -> None:
        """Close the connection (waiting commands fail)."""
        if self.transport is not None:
            self.transport.close()
