"""Rooms: opening and closing them, and the seats players take and get ready in."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import ComputerLevel, User
from apps.core.groups import access_changed_on_commit
from apps.matches.services import match_start

from ..broadcast import lobby_broadcast_on_commit, lobby_group_name
from ..errors import ActionForbidden, InvalidInputError
from ..models import Club, Room, RoomSeat, RuleTemplate
from .common import (
    MANAGERS,
    NON_FIELD,
    require_bots_allowed,
    require_member,
    require_role,
    settings_validated,
    unique_code,
)
from .computers import computers_seat

ROOM_CODE_ALPHABET = "0123456789"
ROOM_CODE_LENGTH = 6
NAME_MAX = Room._meta.get_field("name").max_length or 40
ACTIVE_STATUSES = (Room.Status.WAITING, Room.Status.PLAYING)


def _new_room_code() -> str:
    return unique_code(Room, "code", ROOM_CODE_ALPHABET, ROOM_CODE_LENGTH)


def room_create(
    *,
    club: Club,
    actor: User,
    template: RuleTemplate | None = None,
    variant: str | None = None,
    settings: dict[str, Any] | None = None,
    name: str = "",
    allow_spectators: bool = True,
    allow_computers: bool = False,
    computer_level: str = ComputerLevel.STANDARD,
    practice: bool = False,
    hints: bool = True,
) -> Room:
    """Open a room from a template (``settings`` override some of its values) or from
    an explicit variant and settings.

    ``allow_computers`` (允许电脑补位) lets the creator fill empty seats with computer
    players, at ``computer_level`` (简单, 标准). A ``practice`` room (练习房) seats its
    creator with computer players in every other seat at once and books nothing. ``hints``
    is the 听牌提示 setting.

    The owner and admins may always open rooms; members only if the club allows it.
    Nobody may while the club is paused (打烊).
    """
    with transaction.atomic():
        club = Club.objects.select_for_update().get(pk=club.pk)
        role = require_member(club, actor)
        if role not in MANAGERS and not club.members_can_open_rooms:
            raise ActionForbidden("只有圈主和管理员可以开房间")
        if not club.is_open:
            raise InvalidInputError({NON_FIELD: "亲友圈已打烊，暂停开新房间"})
        name = name.strip()
        if len(name) > NAME_MAX:
            raise InvalidInputError({"name": f"名称不能超过 {NAME_MAX} 个字"})
        if template is not None:
            if template.club_id != club.pk:
                raise InvalidInputError({"template": "规则模板不存在"})
            if variant is not None and variant != template.variant:
                raise InvalidInputError({"variant": "玩法与规则模板不一致"})
            if settings is not None and not isinstance(settings, dict):
                raise InvalidInputError({"settings": "规则设置应为对象"})
            variant = template.variant
            settings = {**template.settings, **(settings or {})}
        elif variant is None:
            raise InvalidInputError({"variant": "请选择玩法或规则模板"})
        if computer_level not in ComputerLevel.values:
            raise InvalidInputError({"computer_level": "电脑水平应为简单或标准"})
        room = Room.objects.create(
            club=club,
            code=_new_room_code(),
            name=name or (template.name if template is not None else ""),
            variant=variant,
            settings=settings_validated(variant, settings),
            template=template,
            created_by=actor,
            allow_spectators=allow_spectators,
            allow_computers=allow_computers or practice,
            computer_level=computer_level,
            practice=practice,
            hints=hints,
        )
        if practice:  # 练习房: the opener and computers, never booked (so bots too)
            if _seated_elsewhere(actor, room):
                raise InvalidInputError({NON_FIELD: "你已在其他房间入座，请先离座"})
            RoomSeat.objects.create(room=room, seat=0, user=actor)
            computers_seat(room)
        lobby_broadcast_on_commit(room.pk)
    return room


def _seated_elsewhere(user: User, room: Room) -> bool:
    return RoomSeat.objects.filter(user=user, room__status__in=ACTIVE_STATUSES).exclude(
        room=room
    ).exists()


def room_quick_open(*, club: Club, actor: User, template: RuleTemplate) -> tuple[Room, bool]:
    """快速开房: open a room from a template as it is (its computer options too) and sit its
    opener at 东 when they are not seated at another table; when the template says so
    (``computers_fill``), computer players then take every other seat. Returns the room and
    whether the opener sat."""
    with transaction.atomic():
        room = room_create(
            club=club, actor=actor, template=template,
            allow_computers=template.allow_computers or template.computers_fill,
            computer_level=template.computer_level,
        )
        seated_elsewhere = _seated_elsewhere(actor, room)
        if not seated_elsewhere:
            room_sit(room=room, user=actor, seat=0)
            if template.computers_fill:
                room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
                computers_seat(room)
    return room, not seated_elsewhere


def room_close(*, room: Room, actor: User) -> Room:
    """Dissolve an idle room (owner or admin); its players stand up."""
    with transaction.atomic():
        room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
        require_role(room.club, actor, MANAGERS, "只有圈主和管理员可以解散房间")
        if room.status == Room.Status.PLAYING:
            raise InvalidInputError({NON_FIELD: "对局进行中，不能解散房间"})
        if room.status == Room.Status.CLOSED:
            raise InvalidInputError({NON_FIELD: "房间已关闭"})
        RoomSeat.objects.filter(room=room).delete()
        room.status = Room.Status.CLOSED
        room.closed_at = timezone.now()
        room.save(update_fields=["status", "closed_at"])
        lobby_broadcast_on_commit(room.pk)
        access_changed_on_commit(lobby_group_name(room.pk))  # after the update: it says 已关闭
    return room


def _lock_waiting_room(room: Room, user: User) -> Room:
    """Lock the room row, check the user is a club member and the room takes seat changes."""
    room = Room.objects.select_for_update().select_related("club").get(pk=room.pk)
    require_member(room.club, user)
    if room.status != Room.Status.WAITING:
        raise InvalidInputError({NON_FIELD: "房间不在等待中，不能换座或准备"})
    return room


def room_sit(*, room: Room, user: User, seat: int | None = None) -> RoomSeat:
    """Take a seat (the first free one if ``seat`` is None; a player already seated here
    keeps theirs); moving seats resets ready."""
    with transaction.atomic():
        room = _lock_waiting_room(room, user)
        taken = dict(RoomSeat.objects.filter(room=room).values_list("seat", "user_id"))
        if seat is None and user.pk in taken.values():  # 入座 again: keep the seat one has
            return RoomSeat.objects.get(room=room, user=user)
        if seat is None:
            free = [n for n in range(room.seat_count) if n not in taken]
            if not free:
                raise InvalidInputError({"seat": "座位已满"})
            seat = free[0]
        if not 0 <= seat < room.seat_count:
            raise InvalidInputError({"seat": f"座位号应在 0 到 {room.seat_count - 1} 之间"})
        if room.practice and user.pk != room.created_by_id:
            raise InvalidInputError({NON_FIELD: "练习房只有开房的人可以入座"})
        if not room.practice:
            require_bots_allowed(room.club, user)
        occupant = taken.get(seat)
        computer = (
            occupant is not None
            and User.objects.filter(pk=occupant, is_computer=True).exists()
            and not room.practice
        )
        if occupant not in (None, user.pk) and not computer:
            raise InvalidInputError({"seat": "该座位已有人"})
        if _seated_elsewhere(user, room):
            raise InvalidInputError({NON_FIELD: "你已在其他房间入座，请先离座"})
        if computer:  # a person takes a computer player's seat
            RoomSeat.objects.filter(room=room, seat=seat).delete()
        RoomSeat.objects.filter(room=room, user=user).delete()
        try:
            with transaction.atomic():
                taken_seat = RoomSeat.objects.create(room=room, seat=seat, user=user)
        except IntegrityError as exc:
            raise InvalidInputError({"seat": "该座位已有人"}) from exc
        lobby_broadcast_on_commit(room.pk)
    return taken_seat


def room_stand(*, room: Room, user: User) -> None:
    """Leave one's seat."""
    with transaction.atomic():
        room = _lock_waiting_room(room, user)
        deleted, _ = RoomSeat.objects.filter(room=room, user=user).delete()
        if not deleted:
            raise InvalidInputError({NON_FIELD: "你没有入座"})
        lobby_broadcast_on_commit(room.pk)


def room_ready_set(*, room: Room, user: User, ready: bool) -> RoomSeat:
    """Mark oneself ready (or not). When every seat is filled and ready, the match starts
    in this transaction (:func:`apps.matches.services.match_start`)."""
    with transaction.atomic():
        room = _lock_waiting_room(room, user)
        seat = RoomSeat.objects.filter(room=room, user=user).first()
        if seat is None:
            raise InvalidInputError({NON_FIELD: "请先入座"})
        seat.ready = ready
        seat.save(update_fields=["ready"])
        ready_seats = RoomSeat.objects.filter(room=room, ready=True).count()
        if ready and ready_seats == room.seat_count:
            match_start(room=room)
        lobby_broadcast_on_commit(room.pk)
    return seat


def seats_release_for_leaver(*, club: Club, user: User) -> None:
    """Stand a leaving member up from the club's waiting rooms (called inside a service)."""
    seats = RoomSeat.objects.filter(user=user, room__club=club, room__status=Room.Status.WAITING)
    room_ids = list(seats.values_list("room_id", flat=True))
    seats.delete()
    for room_id in room_ids:
        lobby_broadcast_on_commit(room_id)
