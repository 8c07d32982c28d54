"""What live play tells a room about its table: a match started or ended there, a hand
ended, a person took a computer's seat. Live play calls these (never writes the clubs
app's rows itself); each runs inside the match's transaction."""

from __future__ import annotations

from datetime import datetime

from apps.accounts.models import User

from ..broadcast import club_broadcast_on_commit
from ..models import Room, RoomSeat


def room_match_started(*, room_id: int) -> None:
    """The room's match has started: the room is playing (no seat changes), and its
    再来一场 prompt, if one was open, is over (its deadline does nothing)."""
    Room.objects.filter(pk=room_id).update(status=Room.Status.PLAYING, rematch_deadline=None)


def room_hand_ended(*, club_id: int) -> None:
    """A hand of the room's match ended: the club's lobby shows the table's new 第n局."""
    club_broadcast_on_commit(club_id)


def room_match_ended(*, room_id: int, club_id: int, at: datetime) -> None:
    """The room's match ended (played out or dissolved): the room closes and leaves the
    club's open tables; its seats stay for 再来一场."""
    Room.objects.filter(pk=room_id).update(status=Room.Status.CLOSED, closed_at=at)
    club_broadcast_on_commit(club_id)


def room_seat_handover(*, room_id: int, seat: int, user: User) -> None:
    """A member took a computer's seat in the room's match: the room's seat is theirs."""
    RoomSeat.objects.filter(room_id=room_id, seat=seat).update(user=user, ready=False)
