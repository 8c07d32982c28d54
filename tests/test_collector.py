"""Daphne's garbage: what a finished connection leaves in reference cycles is freed after a
few hundred more connections, not held until the next (rare) full collection."""

import asyncio
import gc
import weakref
from typing import Any

import pytest

from apps.core.collector import CollectAfterConnections


class _Cycle:
    """Stands for a closed socket's protocol objects, which refer to each other."""

    def __init__(self) -> None:
        self.me = self


def test_a_connections_cyclic_garbage_is_freed_once_enough_connections_end() -> None:
    left: list[weakref.ref[_Cycle]] = []

    async def connection(scope: dict[str, Any], receive: Any, send: Any) -> None:
        left.append(weakref.ref(_Cycle()))  # unreachable once the connection returns

    app = CollectAfterConnections(connection, every=3)
    gc.disable()  # only the middleware collects
    try:
        for _ in range(2):
            asyncio.run(app({"type": "websocket"}, None, None))
        assert all(ref() is not None for ref in left)  # two ended: garbage still held
        asyncio.run(app({"type": "http"}, None, None))
        assert all(ref() is None for ref in left)  # the third: all of it freed
    finally:
        gc.enable()


def test_a_connection_that_fails_counts_as_ended() -> None:
    left: list[weakref.ref[_Cycle]] = []

    async def failing(scope: dict[str, Any], receive: Any, send: Any) -> None:
        left.append(weakref.ref(_Cycle()))
        raise ConnectionError

    app = CollectAfterConnections(failing, every=1)
    gc.disable()
    try:
        with pytest.raises(ConnectionError):  # passed on, not swallowed
            asyncio.run(app({"type": "websocket"}, None, None))
        assert left[0]() is None
    finally:
        gc.enable()
