"""Computer players in rooms (电脑补位, 练习房): the club's computer accounts, and filling a
waiting room's empty seats with them."""

from __future__ import annotations

from django.contrib.auth.hashers import make_password
from django.db import transaction

from apps.accounts.models import ComputerLevel, User, computer_display_name
from apps.matches.services import match_start

from ..broadcast import lobby_broadcast_on_commit
from ..errors import ActionForbidden, InvalidInputError
from ..models import Club, Room, RoomSeat
from .common import NON_FIELD

COMPUTER_NAME = "电脑"
"""What every computer seat's name starts with (电脑·小梅 …); no person's name may hold it."""


def _username(club_id: int, slot: int, level: str) -> str:
    # 标准 keeps the accounts made before levels existed (computer-<club>-<slot>).
    suffix = "" if level == ComputerLevel.STANDARD else f"-{level}"
    return f"computer-{club_id}-{slot}{suffix}"


def computer_slot(username: str) -> int | None:
    """The slot (1–4) of a computer account's username, None if it is not one."""
    parts = username.split("-")
    if len(parts) < 3 or parts[0] != "computer" or not parts[2].isdigit():
        return None
    return int(parts[2])


def computer_user(club: Club, slot: int, level: str = ComputerLevel.STANDARD) -> User:
    """The club's computer account number ``slot`` (1–4) at ``level``, created on first
    use: named by its slot (电脑·小梅, 电脑·阿竹, 电脑·小兰, 电脑·阿菊), the level shown
    after the name. It has no membership and no usable password: it never logs in and is
    never a member."""
    user, _ = User.objects.get_or_create(
        username=_username(club.pk, slot, level),
        defaults={"display_name": computer_display_name(slot), "is_computer": True,
                  "computer_level": level, "password": make_password(None)},
    )
    return user


def computers_seat(room: Room) -> list[RoomSeat]:
    """Seat computer players at the room's level (``Room.computer_level``), ready, in every
    empty seat of the locked ``room``; start the match when that makes every seat ready.
    Two computers at one table never share a slot, so never a name."""
    taken = dict(RoomSeat.objects.filter(room=room).values_list("seat", "user_id"))
    used = {computer_slot(name) for name in User.objects.filter(
        pk__in=taken.values(), is_computer=True).values_list("username", flat=True)}
    slots = [n for n in range(1, room.seat_count + 1) if n not in used]
    empty = [n for n in range(room.seat_count) if n not in taken]
    seats = [
        RoomSeat.objects.create(
            room=room, seat=seat, user=computer_user(room.club, slot, room.computer_level),
            ready=True,
        )
        for seat, slot in zip(empty, slots, strict=False)
    ]
    if RoomSeat.objects.filter(room=room, ready=True).count() == room.seat_count:
        match_start(room=room)
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
