"""Channel-layer groups of a table and sending committed updates to them.

Every connection following a match joins its group (``match_<id>``), and everyone at a
room's table page joins ``table_<room id>`` to hear that a match has started there.

A committed change is one message to the match group: its version range and, per audience
(each seat, and spectators), that audience's frame already encoded as JSON. Each connection
forwards only its own audience's text (``TableConsumer.table_update``), so a client never
receives another seat's frame, while the change costs one group send and no encoding on the
event loop. Called only from ``transaction.on_commit``.
"""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

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


def send_updates(match_id: int, updates: dict[int | None, dict[str, Any]]) -> None:
    """Send one committed change (each viewer's ``update`` frame) to the match group."""
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    first = next(iter(updates.values()))
    message = {
        "type": UPDATE_EVENT,
        "from": first["from"],
        "v": first["v"],
        "texts": {audience(viewer): json.dumps(frame) for viewer, frame in updates.items()},
    }
    async_to_sync(layer.group_send)(match_group(match_id), message)


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(
        room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id}
    )
