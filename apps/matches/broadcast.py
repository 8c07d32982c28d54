"""Channel-layer groups of a table and sending committed updates to them.

Every connection following a match joins its group (``match_<id>``), and everyone at a
room's table page joins ``table_<room id>`` to hear that a match has started there.

A committed change is one message to the match group: its version range and, per audience
(each seat, and spectators), that audience's frame already encoded as JSON. Each connection
forwards only its own audience's text (``TableConsumer.table_update``), so a client never
receives another seat's frame, while the change costs one group send and no encoding on the
event loop. Called only from ``transaction.on_commit``.

A connection that changes a match itself (a player's move, handled by the process's
database thread) uses :func:`call_then_send`: the committed change's message is then sent
from the event loop once the call returns, instead of the database thread waiting for
Redis before it can take the next move.

The layer is Redis pub/sub, so a send is fire-and-forget: one that fails (Redis away) is
logged and dropped. The change is safe in the log, and every connection that forwarded
nothing for a few seconds checks the match's version and catches up
(``TableConsumer._catch_up_if_behind``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

UPDATE_EVENT = "table.update"
MATCH_STARTED_EVENT = "table.match_started"
PRESENCE_EVENT = "table.presence"
"""Sent by a table connection itself (see ``consumers``) when a seat's presence changes."""


def match_group(match_id: int) -> str:
    """The group of every connection (seats and spectators) following a match."""
    return f"match_{match_id}"


def room_group(room_id: int) -> str:
    """The group of everyone connected to a room's table endpoint."""
    return f"table_{room_id}"


def audience(viewer: int | None) -> str:
    """The key of a viewer's frame in an update message: the seat, or ``watch``."""
    return "watch" if viewer is None else str(viewer)


_outbox: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar(
    "broadcast_outbox", default=None
)
_send_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)
T = TypeVar("T")
logger = logging.getLogger(__name__)


def send_updates(match_id: int, updates: dict[int | None, dict[str, Any]]) -> None:
    """Send one committed change (each viewer's ``update`` frame) to the match group, or
    leave it to :func:`call_then_send` when called inside one."""
    first = next(iter(updates.values()))
    message = {
        "type": UPDATE_EVENT,
        "from": first["from"],
        "v": first["v"],
        "texts": {audience(viewer): _encode(frame) for viewer, frame in updates.items()},
    }
    outbox = _outbox.get()
    if outbox is not None:
        outbox.append((match_group(match_id), message))
        return
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(match_group(match_id), message)


def _encode(frame: dict[str, Any]) -> str:
    """A frame as compact JSON text (UTF-8 on the wire: names are not escaped)."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


async def call_then_send(function: Callable[..., T], **kwargs: Any) -> T:
    """Run a blocking service call in the database thread, then send the updates its
    commits produced from the event loop, in commit order.

    The lock keeps this process's sends in the order of the calls that produced them:
    calls finish in commit order (one database thread), and waiters get the lock in turn.
    """
    outbox: list[tuple[str, dict[str, Any]]] = []
    token = _outbox.set(outbox)
    try:
        return await database_sync_to_async(function)(**kwargs)
    finally:
        _outbox.reset(token)
        if outbox:
            layer = get_channel_layer()
            assert layer is not None, "CHANNEL_LAYERS must be configured"
            lock = _send_locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
            async with lock:
                for group, message in outbox:
                    try:
                        await layer.group_send(group, message)
                    except (RedisError, OSError):
                        logger.warning("%s: update v%s not sent (Redis unreachable)",
                                       group, message.get("v"))


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(
        room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id}
    )
