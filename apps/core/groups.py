"""Sending to a channel-layer group from synchronous code."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to a channel-layer group with the layer's own ``group_send``, from
    synchronous code (an ``on_commit`` hook in a move's worker thread, a Celery task, a
    request). Inside daphne the send runs on the server's event loop."""
    async_to_sync(get_channel_layer().group_send)(group, message)
