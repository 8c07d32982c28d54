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

from apps.accounts.models import User
from apps.core.groups import group_send
from apps.matches.frames import room_group

from .models import Club, Room
from .selectors import (
    club_lobby_tables,
    club_online_count,
    join_request_pending_count,
    lobby_state,
    rematch_state,
)

LOBBY_EVENT = "lobby.update"
CLUB_EVENT = "club.update"
REMATCH_EVENT = "table.rematch"
"""Sent to the room's table group (:func:`apps.matches.frames.room_group`): the shared
再来一场 prompt changed (:mod:`apps.clubs.services.rematch`)."""


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
    pages that its tables changed; while a 再来一场 prompt is open, send it to the table's
    pages too (a seat agreed, left, or was taken)."""
    room = Room.objects.select_related("club").get(pk=room_id)
    group_send(lobby_group_name(room_id), {"type": LOBBY_EVENT, "state": lobby_state(room)})
    if room.rematch_deadline is not None and room.status == Room.Status.WAITING:
        rematch_send(room)
    club_broadcast(room.club_id)


def rematch_expired_on_commit(room_id: int) -> None:
    """Once the current transaction commits, tell the table's pages that the room's
    再来一场 prompt ran out (those who had not agreed stood up)."""
    transaction.on_commit(
        lambda: rematch_send(Room.objects.get(pk=room_id), expired=True), robust=True
    )


def rematch_send(room: Room, *, expired: bool = False) -> None:
    """Send the room's 再来一场 prompt to everyone at its table page."""
    group_send(room_group(room.pk),
               {"type": REMATCH_EVENT, "rematch": rematch_state(room, expired=expired)})


def club_state(club: Club, viewer: User | Any) -> dict[str, Any]:
    """The club lobby as ``viewer``'s page script takes it: the tables' markup, the online
    count and, for the owner and admins, how many join requests wait (``None`` for other
    members); sent on connect, and served to the page by ``clubs:tables``."""
    return {
        "tables_html": render_to_string(
            "clubs/_tables.html", {"tables": club_lobby_tables(club), "club": club}
        ),
        "online": club_online_count(club),
        "requests": join_request_pending_count(club=club, viewer=viewer),
    }


def club_broadcast(club_id: int) -> None:
    """Tell everyone on the club's lobby page that its tables changed (no database read)."""
    group_send(club_group_name(club_id), {"type": CLUB_EVENT, "state": {"changed": True}})
