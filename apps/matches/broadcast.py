"""Channel-layer groups of a table and sending committed updates to them.

Each seat has its own group (``match_<id>_seat_<n>``), spectators share one
(``match_<id>_watch``), and everyone at a room's table page joins ``table_<room id>`` to
hear that a match has started there. Called only from ``transaction.on_commit``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

UPDATE_EVENT = "table.update"
MATCH_STARTED_EVENT = "table.match_started"
PRESENCE_EVENT = "table.presence"
"""Sent by a table connection itself (see ``consumers``) when a seat's presence changes."""


def seat_group(match_id: int, seat: int) -> str:
    """The group of one seat of a match."""
    return f"match_{match_id}_seat_{seat}"


def watch_group(match_id: int) -> str:
    """The group of a match's spectators."""
    return f"match_{match_id}_watch"


def room_group(room_id: int) -> str:
    """The group of everyone connected to a room's table endpoint."""
    return f"table_{room_id}"


def viewer_group(match_id: int, viewer: int | None) -> str:
    """The group a viewer (seat, or ``None`` for spectators) listens on."""
    return watch_group(match_id) if viewer is None else seat_group(match_id, viewer)


def send_updates(match_id: int, updates: dict[int | None, dict[str, Any]]) -> None:
    """Send each viewer's ``update`` frame to its group.

    One trip to the event loop for all of them: the sends run concurrently there, each
    group's own messages staying in order.
    """
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"

    async def send_all() -> None:
        await asyncio.gather(*(
            layer.group_send(viewer_group(match_id, viewer), {"type": UPDATE_EVENT, "frame": frame})
            for viewer, frame in updates.items()
        ))

    async_to_sync(send_all)()


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(
        room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id}
    )
