"""再来一场: the shared prompt after a match, on every seated player's table screen.

The first player to agree (the table's button over the socket, or the form on the room's
page and the result page) reopens the room with the same seats and settings and opens the
prompt: a deadline :data:`~apps.matches.pacing.REMATCH_SECONDS` away, on the room row.
Computer seats agree at once; each player who agrees is ready; the last agreement starts
the match (:func:`~apps.clubs.services.rooms.room_ready_set`), which closes the prompt. A
player may leave their seat instead (离开). At the deadline the sweep
(:func:`rematch_timers_fire`, run with the matches' sweep) stands up the seats that have
not agreed and the room stays open for others to sit. A deadline that was cleared or moved
(the match started, a new prompt) does nothing: the sweep checks the row under its lock.

Every change reaches the table pages through the room's lobby broadcast
(:func:`apps.clubs.broadcast.lobby_broadcast`), which sends the prompt's state to the
table's group while it is open; the expiry sends its own last state.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction

from apps.accounts.models import User
from apps.matches import pacing
from apps.matches.protocol import MatchError

from ..broadcast import lobby_broadcast_on_commit, rematch_expired_on_commit
from ..errors import ActionForbidden, ClubNotFound, InvalidInputError
from ..models import Room, RoomSeat
from ..selectors import rematch_state
from .common import NON_FIELD, require_member
from .rooms import ACTIVE_STATUSES, room_ready_set


def room_rematch(*, room: Room, user: User) -> RoomSeat:
    """再来一场: a player of the room's finished match agrees to another one with the same
    seats and settings. The first agreement opens the room again with every seat not ready
    but its computer players, and opens the shared prompt; each agreement marks its player
    ready, and the last starts the match."""
    with transaction.atomic():
        room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
        require_member(room.club, user)
        seat = RoomSeat.objects.filter(room=room, user=user).first()
        if seat is None:
            raise InvalidInputError({NON_FIELD: "你不在这一桌，不能再来一场"})
        if room.status == Room.Status.PLAYING:
            raise InvalidInputError({NON_FIELD: "新的一场已经开始"})
        if room.status == Room.Status.CLOSED:
            if not room.club.is_open:
                raise InvalidInputError({NON_FIELD: "亲友圈已打烊，暂停开新房间"})
            elsewhere = RoomSeat.objects.filter(
                room__status__in=ACTIVE_STATUSES, user__in=room.seats.values("user")
            ).exclude(room=room)
            if elsewhere.exists():
                raise InvalidInputError({NON_FIELD: "有玩家已在其他房间入座，不能再来一场"})
            seats = RoomSeat.objects.filter(room=room)
            seats.filter(user__is_computer=False).update(ready=False)
            seats.filter(user__is_computer=True).update(ready=True)  # computers are ready at once
            room.status, room.closed_at = Room.Status.WAITING, None
            room.rematch_deadline = pacing.now() + timedelta(seconds=pacing.REMATCH_SECONDS)
            room.save(update_fields=["status", "closed_at", "rematch_deadline"])
        # In the same transaction: nobody sees the prompt open without this agreement.
        return room_ready_set(room=room, user=user, ready=True)


def room_rematch_leave(*, room: Room, user: User) -> None:
    """离开: a player of the room's finished match gives up their seat instead of playing
    again (the prompt, if open, goes on for the others; the seat is free to take)."""
    with transaction.atomic():
        room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
        require_member(room.club, user)
        if room.status == Room.Status.PLAYING:
            raise InvalidInputError({NON_FIELD: "新的一场已经开始"})
        deleted, _ = RoomSeat.objects.filter(room=room, user=user).delete()
        if not deleted:
            raise InvalidInputError({NON_FIELD: "你没有入座"})
        lobby_broadcast_on_commit(room.pk)


def rematch_answer(*, room_id: int, user: User, leave: bool) -> dict[str, Any]:
    """再来一场 (or 离开, ``leave``) from the table's socket: the service's refusal as the
    table protocol's error (``rematch_refused``, the service's Chinese reason); the room's
    prompt afterwards (:func:`apps.clubs.selectors.rematch_state`)."""
    room = Room.objects.get(pk=room_id)
    try:
        if leave:
            room_rematch_leave(room=room, user=user)
        else:
            room_rematch(room=room, user=user)
    except InvalidInputError as error:
        raise MatchError("rematch_refused", "；".join(error.messages)) from error
    except (ActionForbidden, ClubNotFound) as error:
        raise MatchError("rematch_refused", "你已不在这个亲友圈") from error
    room.refresh_from_db()
    return rematch_state(room)


def rematch_timers_fire() -> int:
    """Close every 再来一场 prompt whose deadline has passed; return how many closed. Run
    with the matches' sweep (:func:`apps.matches.tasks.matches_sweep`)."""
    due = Room.objects.filter(rematch_deadline__lte=pacing.now()).values_list("pk", flat=True)
    return sum(room_rematch_expire(room_id=room_id) for room_id in list(due))


def room_rematch_expire(*, room_id: int) -> bool:
    """Close a room's prompt if its deadline has passed (checked under the row's lock): the
    players who have not agreed stand up and the room stays open. Return whether it did."""
    with transaction.atomic():
        room = Room.objects.select_for_update(skip_locked=True).filter(pk=room_id).first()
        deadline = None if room is None else room.rematch_deadline
        if room is None or deadline is None or deadline > pacing.now():
            return False
        room.rematch_deadline = None
        room.save(update_fields=["rematch_deadline"])
        if room.status == Room.Status.WAITING:
            RoomSeat.objects.filter(room=room, ready=False, user__is_computer=False).delete()
        lobby_broadcast_on_commit(room.pk)
        rematch_expired_on_commit(room.pk)
    return True
