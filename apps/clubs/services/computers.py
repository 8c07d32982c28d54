"""Computer players in rooms (电脑补位, 练习房): the club's computer accounts, and filling a
waiting room's empty seats with them."""

from __future__ import annotations

from django.contrib.auth.hashers import make_password
from django.db import transaction

from apps.accounts.models import User

from ..broadcast import lobby_broadcast_on_commit
from ..errors import ActionForbidden, InvalidInputError
from ..models import Club, Room, RoomSeat
from ..signals import room_all_ready
from .common import NON_FIELD

COMPUTER_NAME = "电脑"


def computer_user(club: Club, slot: int) -> User:
    """The club's computer account number ``slot`` (1–3), created on first use. It has no
    membership and no usable password: it never logs in and is never a member."""
    user, _ = User.objects.get_or_create(
        username=f"computer-{club.pk}-{slot}",
        defaults={"display_name": COMPUTER_NAME, "is_computer": True,
                  "password": make_password(None)},
    )
    return user


def computers_seat(room: Room) -> list[RoomSeat]:
    """Seat computer players, ready, in every empty seat of the locked ``room``; send
    :data:`~apps.clubs.signals.room_all_ready` when that makes every seat ready."""
    taken = dict(RoomSeat.objects.filter(room=room).values_list("seat", "user_id"))
    used = set(User.objects.filter(pk__in=taken.values(), is_computer=True)
               .values_list("username", flat=True))
    slots = [n for n in range(1, room.seat_count + 1)
             if f"computer-{room.club_id}-{n}" not in used]
    empty = [n for n in range(room.seat_count) if n not in taken]
    seats = [
        RoomSeat.objects.create(room=room, seat=seat, user=computer_user(room.club, slot),
                                ready=True)
        for seat, slot in zip(empty, slots, strict=False)
    ]
    if RoomSeat.objects.filter(room=room, ready=True).count() == room.seat_count:
        room_all_ready.send(sender=Room, room=room)
    lobby_broadcast_on_commit(room.pk)
    return seats


def room_computers_fill(*, room: Room, actor: User) -> list[RoomSeat]:
    """Fill a waiting room's empty seats with computer players: only the room's creator,
    seated, in a room that allows it (允许电脑补位). They are ready at once; the match starts
    when the people seated are ready too."""
    with transaction.atomic():
        room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
        if room.created_by_id != actor.pk:
            raise ActionForbidden("只有开房的人可以让电脑补位")
        if not room.allow_computers:
            raise InvalidInputError({NON_FIELD: "这个房间不允许电脑补位"})
        if room.status != Room.Status.WAITING:
            raise InvalidInputError({NON_FIELD: "房间不在等待中"})
        if not RoomSeat.objects.filter(room=room, user=actor).exists():
            raise InvalidInputError({NON_FIELD: "请先入座，再让电脑补位"})
        return computers_seat(room)
