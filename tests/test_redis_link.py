"""The lean Redis link of match owners (``apps.core.redis_link``): publish and subscribe
against a real Redis, error replies, a closed link failing what waits on it, ``AUTH`` from
the URL, and Unix sockets (the last three against a stand-in server that records what it
receives)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import hiredis
import pytest

from apps.core.redis_link import LinkError, RedisLink


def run(scenario: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, 20))


def test_a_subscribed_link_receives_what_another_publishes(redis_url: str) -> None:
    async def scenario() -> None:
        received: list[tuple[bytes, bytes]] = []
        arrived = asyncio.Event()

        def on_message(channel: bytes, data: bytes) -> None:
            received.append((channel, data))
            arrived.set()

        listener = await RedisLink.open(redis_url, timeout=2, on_message=on_message)
        assert await listener.command("SUBSCRIBE", "link-test") == [b"subscribe",
                                                                   b"link-test", 1]
        sender = await RedisLink.open(redis_url, timeout=2)
        assert await sender.command("PUBLISH", "link-test", "第一张 5万") == 1
        assert await sender.command("PUBLISH", "nobody-listens", "x") == 0
        await asyncio.wait_for(arrived.wait(), 2)
        assert received == [(b"link-test", "第一张 5万".encode())]
        for link in (listener, sender):
            link.close()

    run(scenario())


def test_an_error_reply_is_raised_and_the_link_goes_on(redis_url: str) -> None:
    async def scenario() -> None:
        link = await RedisLink.open(redis_url, timeout=2)
        with pytest.raises(hiredis.ReplyError, match="unknown command"):
            await link.command("NO-SUCH-COMMAND")
        assert await link.command("PUBLISH", "x", "y") == 0
        link.close()

    run(scenario())


async def stand_in(handle: Callable[[bytes, asyncio.StreamWriter], Awaitable[None]],
                   path: Path | None = None) -> tuple[asyncio.Server, str]:
    """A server that reads one chunk and lets ``handle`` answer it; its URL."""
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await handle(await reader.read(1 << 16), writer)

    if path is not None:
        server = await asyncio.start_unix_server(serve, path)
        return server, f"unix://{path}"
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, f"redis://127.0.0.1:{server.sockets[0].getsockname()[1]}/0"


def test_a_link_closed_by_the_server_fails_the_commands_waiting_on_it() -> None:
    async def hang_up(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async def scenario() -> None:
        server, url = await stand_in(hang_up)
        link = await RedisLink.open(url, timeout=2)
        with pytest.raises(LinkError):
            await link.command("PUBLISH", "x", "y")
        await asyncio.wait_for(link.closed, 2)
        assert not link.is_open
        with pytest.raises(LinkError):
            await link.command("PUBLISH", "x", "y")  # refused at once: nothing is sent
        server.close()

    run(scenario())


def test_the_urls_user_and_password_authenticate_the_link() -> None:
    seen: list[bytes] = []

    async def accept(data: bytes, writer: asyncio.StreamWriter) -> None:
        seen.append(data)
        writer.write(b"+OK\r\n")
        await writer.drain()

    async def scenario() -> None:
        server, url = await stand_in(accept)
        link = await RedisLink.open(url.replace("redis://", "redis://mj:s3cret@"), timeout=2)
        assert seen == [hiredis.pack_command(("AUTH", "mj", "s3cret"))]
        link.close()
        server.close()

    run(scenario())


def test_a_unix_socket_url_is_served(tmp_path: Path) -> None:
    async def one(_: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(b":1\r\n")
        await writer.drain()

    async def scenario() -> None:
        server, url = await stand_in(one, tmp_path / "redis.sock")
        link = await RedisLink.open(url, timeout=2)
        assert await link.command("PUBLISH", "x", "y") == 1
        link.close()
        server.close()

    run(scenario())


def test_nothing_listening_is_an_os_error() -> None:
    async def scenario() -> None:
        with pytest.raises(OSError):
            await RedisLink.open("redis://127.0.0.1:1/0", timeout=2)

    run(scenario())
