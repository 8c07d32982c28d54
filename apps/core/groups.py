"""Sending to a channel-layer group from synchronous code."""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

_server_loop: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar(
    "server_loop", default=None)
_sending: set[asyncio.Task[None]] = set()


def group_sends_to_this_loop() -> None:
    """Let the blocking calls this task runs in worker threads (a move) hand their group
    sends to the running event loop without waiting for them (:func:`group_send`)."""
    _server_loop.set(asyncio.get_running_loop())


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to a channel-layer group with the layer's own ``group_send``, from
    synchronous code (an ``on_commit`` hook in a move's worker thread, a Celery task, a
    request).

    In a worker thread of daphne's event loop (:func:`group_sends_to_this_loop`) the send
    is handed to that loop and the thread goes on: a move then crosses between the loop and
    a thread once, not three times more to wait for its publish. The loop starts the sends
    in the order they were handed over. Elsewhere the send runs to its end here.
    """
    loop = _server_loop.get()
    if loop is None:
        async_to_sync(get_channel_layer().group_send)(group, message)
    else:
        loop.call_soon_threadsafe(_send_on_loop, group, message)


def _send_on_loop(group: str, message: dict[str, Any]) -> None:
    task = asyncio.ensure_future(get_channel_layer().group_send(group, message))
    _sending.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_sent)


def _sent(task: asyncio.Task[None]) -> None:
    _sending.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("group send failed", exc_info=task.exception())


ACCESS_EVENT = "access.changed"
"""Sent to a group when the access of its sockets may have ended (a user removed from a
club or given another role, a room closed): each socket checks its access again and
closes if it is gone (4403; a closed room's lobby 4404)."""


def user_group(user_id: int) -> str:
    """The group of every live socket (table, lobby) of one user."""
    return f"user_{user_id}"


def access_changed_on_commit(group: str) -> None:
    """Once the current transaction commits, tell the sockets of ``group`` to check their
    access (``user_group(user_id)``, or a room's lobby group).

    ``robust``: a channel-layer outage is logged and never undoes or fails the write.
    """
    transaction.on_commit(lambda: group_send(group, {"type": ACCESS_EVENT}), robust=True)
