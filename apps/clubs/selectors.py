"""Reads of clubs, members, templates and rooms, shared by pages, the API and consumers."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, Count, IntegerField, QuerySet, Value, When

from apps.accounts.models import User
from majiang.variants import VARIANTS

from .errors import ActionForbidden, ClubNotFound
from .models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate

Role = Membership.Role


def membership_role(club: Club, user: User | Any) -> Role | None:
    """The user's role in the club, or None if they are not a member (or anonymous)."""
    if not getattr(user, "is_authenticated", False):
        return None
    role = Membership.objects.filter(club=club, user=user).values_list("role", flat=True).first()
    return Role(role) if role else None


def club_list_for_user(*, user: User) -> QuerySet[Club]:
    """The clubs the user belongs to, newest membership first, with ``member_count``."""
    return (
        Club.objects.filter(memberships__user=user)
        .annotate(member_count=Count("memberships", distinct=True))
        .order_by("-id")
    )


def club_get_for_member(*, club_id: int, user: User | Any) -> Club:
    """The club, if the user is a member; otherwise raise :class:`ClubNotFound`."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None or membership_role(club, user) is None:
        raise ClubNotFound("亲友圈不存在")
    return club


def club_find(*, club_id: int | None = None, invite_code: str = "") -> Club | None:
    """Look a club up by its ID or by its invite code (for joining)."""
    if club_id is not None:
        return Club.objects.filter(pk=club_id).first()
    if invite_code:
        return Club.objects.filter(invite_code=invite_code.strip().upper()).first()
    return None


def club_member_count(club: Club) -> int:
    """How many members the club has, the owner included."""
    return Membership.objects.filter(club=club).count()


def membership_list(*, club: Club) -> QuerySet[Membership]:
    """The club's members: the owner first, then admins, then members by joining date."""
    role_rank = Case(
        When(role=Role.OWNER, then=Value(0)),
        When(role=Role.ADMIN, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )
    return (
        Membership.objects.filter(club=club)
        .select_related("user")
        .order_by(role_rank, "joined_at", "pk")
    )


def join_request_list_pending(*, club: Club, viewer: User) -> QuerySet[JoinRequest]:
    """Pending join requests, oldest first. Only the owner and admins may see them."""
    if membership_role(club, viewer) not in (Role.OWNER, Role.ADMIN):
        raise ActionForbidden("只有圈主和管理员可以查看入圈申请")
    return (
        JoinRequest.objects.filter(club=club, status=JoinRequest.Status.PENDING)
        .select_related("user")
        .order_by("created_at", "pk")
    )


def template_list(*, club: Club) -> QuerySet[RuleTemplate]:
    """The club's rule templates by name."""
    return RuleTemplate.objects.filter(club=club).order_by("name", "pk")


def template_get(*, club: Club, template_id: int) -> RuleTemplate:
    """One of the club's templates; raise :class:`ClubNotFound` if it has no such template."""
    template = RuleTemplate.objects.filter(club=club, pk=template_id).first()
    if template is None:
        raise ClubNotFound("规则模板不存在")
    return template


def room_list_open(*, club: Club) -> QuerySet[Room]:
    """The club's rooms that are not closed, newest first."""
    return (
        Room.objects.filter(club=club)
        .exclude(status=Room.Status.CLOSED)
        .prefetch_related("seats__user")
        .order_by("-created_at", "-pk")
    )


def room_get_by_code(code: str) -> Room | None:
    """The room with this join code (any status), or None."""
    return Room.objects.select_related("club").filter(code=str(code).strip()).first()


def room_get_for_member(*, code: str, user: User | Any) -> Room:
    """The room, if the user is a member of its club; otherwise raise :class:`ClubNotFound`."""
    room = room_get_by_code(code)
    if room is None or membership_role(room.club, user) is None:
        raise ClubNotFound("房间不存在")
    return room


def room_seat_of(room: Room, user: User | Any) -> int | None:
    """The seat number the user holds in the room, or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    return RoomSeat.objects.filter(room=room, user=user).values_list("seat", flat=True).first()


def lobby_state(room: Room) -> dict[str, Any]:
    """The lobby as JSON: the room and one entry per seat (None when empty)."""
    seats: list[dict[str, Any] | None] = [None] * room.seat_count
    for seat in RoomSeat.objects.filter(room=room).select_related("user"):
        if seat.seat < len(seats):
            seats[seat.seat] = {
                "seat": seat.seat,
                "user_id": seat.user_id,
                "display_name": str(seat.user),
                "ready": seat.ready,
                "computer": seat.user.is_computer,
            }
    return {
        "code": room.code,
        "name": room.name,
        "club_id": room.club_id,
        "status": room.status,
        "status_display": room.get_status_display(),
        "variant": room.variant,
        "variant_name": variant_name(room.variant),
        "seat_count": room.seat_count,
        "allow_computers": room.allow_computers,
        "practice": room.practice,
        "hands_per_match": room.hands_per_match,
        "base_stake": room.base_stake,
        "allow_spectators": room.allow_spectators,
        "seats": seats,
    }


def variant_name(variant_id: str) -> str:
    """The Chinese name of a variant, or its id if it is no longer registered."""
    variant = VARIANTS.get(variant_id)
    return variant.name if variant is not None else variant_id


def variant_list() -> list[dict[str, Any]]:
    """Every registered variant with its settings schema (labels, limits, descriptions)."""
    return [
        {"id": variant.id, "name": variant.name, "settings": variant.schema.to_json()}
        for variant in VARIANTS.values()
    ]
