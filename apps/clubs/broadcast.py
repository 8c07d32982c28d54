"""Live lobby updates: after a seat change commits, push the lobby to its WebSocket group."""

from __future__ import annotations

from django.db import transaction

from apps.core.groups import group_send

from .models import Room
from .selectors import lobby_state

LOBBY_EVENT = "lobby.update"


def lobby_group_name(room_id: int) -> str:
    """The channel-layer group of a room's lobby."""
    return f"lobby_{room_id}"


def lobby_broadcast_on_commit(room_id: int) -> None:
    """Once the current transaction commits, send the room's lobby state to its group.

    ``robust``: a channel-layer outage is logged and never undoes or fails the write.
    """
    transaction.on_commit(lambda: lobby_broadcast(room_id), robust=True)


def lobby_broadcast(room_id: int) -> None:
    """Send the room's current lobby state to everyone watching it."""
    room = Room.objects.select_related("club").get(pk=room_id)
    group_send(lobby_group_name(room_id), {"type": LOBBY_EVENT, "state": lobby_state(room)})
