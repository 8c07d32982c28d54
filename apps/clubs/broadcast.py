"""Live lobby updates: after a change commits, push the room's lobby to its WebSocket group
and tell the club lobby's group that its tables changed.

The club's group gets a bare ``{"changed": true}``: the pages on the club then fetch the
tables themselves (``clubs:tables``), so a seat change or a settled hand never renders a
big club's table list in the process that made the change, and costs nothing when nobody
has the club's page open."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.template.loader import render_to_string

from apps.core.groups import group_send

from .models import Club, Room
from .selectors import club_lobby_tables, club_online_count, lobby_state

LOBBY_EVENT = "lobby.update"
CLUB_EVENT = "club.update"


def lobby_group_name(room_id: int) -> str:
    """The channel-layer group of a room's lobby."""
    return f"lobby_{room_id}"


def club_group_name(club_id: int) -> str:
    """The channel-layer group of a club's lobby page."""
    return f"club_{club_id}"


def lobby_broadcast_on_commit(room_id: int) -> None:
    """Once the current transaction commits, send the room's lobby state to its group and
    tell the club's group that its tables changed.

    ``robust``: a channel-layer outage is logged and never undoes or fails the write.
    """
    transaction.on_commit(lambda: lobby_broadcast(room_id), robust=True)


def club_broadcast_on_commit(club_id: int) -> None:
    """Once the current transaction commits, tell the club's lobby pages to fetch again."""
    transaction.on_commit(lambda: club_broadcast(club_id), robust=True)


def lobby_broadcast(room_id: int) -> None:
    """Send the room's current lobby state to everyone watching it, and tell the club's
    pages that its tables changed."""
    room = Room.objects.select_related("club").get(pk=room_id)
    group_send(lobby_group_name(room_id), {"type": LOBBY_EVENT, "state": lobby_state(room)})
    club_broadcast(room.club_id)


def club_state(club: Club) -> dict[str, Any]:
    """The club lobby as the page's script takes it: the tables' markup and the online
    count (sent on connect, and served to the page by ``clubs:tables``)."""
    return {
        "tables_html": render_to_string(
            "clubs/_tables.html", {"tables": club_lobby_tables(club), "club": club}
        ),
        "online": club_online_count(club),
    }


def club_broadcast(club_id: int) -> None:
    """Tell everyone on the club's lobby page that its tables changed (no database read)."""
    group_send(club_group_name(club_id), {"type": CLUB_EVENT, "state": {"changed": True}})
