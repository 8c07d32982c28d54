"""Live lobby updates: after a change commits, push the room's lobby to its WebSocket group
and the club's table list to the club lobby's group."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.template.loader import render_to_string

from apps.core.group_publish import group_publish

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
    the club's tables to the club's group.

    ``robust``: a channel-layer outage is logged and never undoes or fails the write.
    """
    transaction.on_commit(lambda: lobby_broadcast(room_id), robust=True)


def club_broadcast_on_commit(club_id: int) -> None:
    """Once the current transaction commits, send the club's tables to its lobby page."""
    transaction.on_commit(lambda: club_broadcast(club_id), robust=True)


def lobby_broadcast(room_id: int) -> None:
    """Send the room's current lobby state to everyone watching it, and the club's tables
    to everyone on the club's page."""
    room = Room.objects.select_related("club").get(pk=room_id)
    group_publish(lobby_group_name(room_id), {"type": LOBBY_EVENT, "state": lobby_state(room)})
    club_broadcast(room.club_id)


def club_state(club: Club) -> dict[str, Any]:
    """The club lobby as the page's script takes it: the tables' markup and the online count."""
    return {
        "tables_html": render_to_string(
            "clubs/_tables.html", {"tables": club_lobby_tables(club), "club": club}
        ),
        "online": club_online_count(club),
    }


def club_broadcast(club_id: int) -> None:
    """Send the club's current tables to everyone on its lobby page."""
    club = Club.objects.get(pk=club_id)
    group_publish(club_group_name(club_id), {"type": CLUB_EVENT, "state": club_state(club)})
