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
