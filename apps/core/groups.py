"""Sending to a channel-layer group from synchronous code."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to a channel-layer group with the layer's own ``group_send``, from
    synchronous code (an ``on_commit`` hook in a move's worker thread, a Celery task, a
    request). Inside daphne the send runs on the server's event loop."""
    async_to_sync(get_channel_layer().group_send)(group, message)


ACCESS_EVENT = "access.changed"
"""Sent to a user's group when their access may have ended (removed from a club, a role
change): each of their live sockets checks its access again and closes (4403) if gone."""


def user_group(user_id: int) -> str:
    """The group of every live socket (table, lobby) of one user."""
    return f"user_{user_id}"


def access_changed_on_commit(user_id: int) -> None:
    """Once the current transaction commits, tell the user's sockets to check their access.

    ``robust``: a channel-layer outage is logged and never undoes or fails the write.
    """
    transaction.on_commit(
        lambda: group_send(user_group(user_id), {"type": ACCESS_EVENT}), robust=True
    )
