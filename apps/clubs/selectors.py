"""Reads of clubs, members, templates and rooms, shared by pages, the API and consumers."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import ONLINE_WINDOW, User
from apps.matches.models import Match
from majiang.variant import Variant
from majiang.variants import VARIANTS, player_variants

from . import presence
from .errors import ActionForbidden, ClubNotFound
from .models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate

SEAT_WINDS = ("东", "南", "西", "北")
"""Seat labels in seating order: seat 0 is 东."""

Role = Membership.Role


def membership_role(club: Club, user: User | Any) -> Role | None:
    """The user's role in the club, or None if they are not a member (or anonymous)."""
    if not getattr(user, "is_authenticated", False):
        return None
    role = Membership.objects.filter(club=club, user=user).values_list("role", flat=True).first()
    return Role(role) if role else None


def club_list_for_user(*, user: User) -> QuerySet[Club]:
    """The clubs the user belongs to, newest first, with ``member_count`` (every member;
    counted in a subquery, as the join that picks the user's clubs sees only their row) and
    ``pending_requests``: the join requests waiting, in the clubs the user manages (0 in
    the others)."""
    members = (
        Membership.objects.filter(club=OuterRef("pk"))
        .order_by()
        .values("club")
        .annotate(n=Count("pk"))
        .values("n")
    )
    pending = (
        JoinRequest.objects.filter(club=OuterRef("pk"), status=JoinRequest.Status.PENDING)
        .order_by()
        .values("club")
        .annotate(n=Count("pk"))
        .values("n")
    )
    manages = Membership.objects.filter(
        club=OuterRef("pk"), user=user, role__in=(Role.OWNER, Role.ADMIN)
    )
    return (
        Club.objects.filter(memberships__user=user)
        .annotate(
            member_count=Coalesce(Subquery(members, output_field=IntegerField()), 0),
            pending_requests=Case(
                When(Exists(manages), then=Coalesce(
                    Subquery(pending, output_field=IntegerField()), 0
                )),
                default=0,
            ),
        )
        .order_by("-id")
    )


def club_online_count(club: Club) -> int:
    """How many of the club's members have its page or one of its rooms open."""
    return len(club_online_user_ids(club))


def club_online_user_ids(club: Club) -> set[int]:
    """The IDs of the club's members who are online (在线): those who have its page or one
    of its rooms open, and those seen anywhere within ``ONLINE_WINDOW`` (at a table, whose
    heartbeat keeps them seen), as each member's own badge says."""
    member_ids = Membership.objects.filter(club=club).values_list("user_id", flat=True)
    seen = User.objects.filter(
        pk__in=member_ids, last_seen__gte=timezone.now() - ONLINE_WINDOW
    ).values_list("pk", flat=True)
    return presence.online_user_ids(club_id=club.pk, user_ids=member_ids) | set(seen)


def club_online_members(club: Club) -> list[User]:
    """The club's members who are online, by name."""
    online = club_online_user_ids(club)
    return sorted(User.objects.filter(pk__in=online), key=str)


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


def join_request_list_pending(*, club: Club, viewer: User | Any) -> QuerySet[JoinRequest]:
    """Pending join requests, oldest first. Only the owner and admins may see them."""
    if membership_role(club, viewer) not in (Role.OWNER, Role.ADMIN):
        raise ActionForbidden("只有圈主和管理员可以查看入圈申请")
    return (
        JoinRequest.objects.filter(club=club, status=JoinRequest.Status.PENDING)
        .select_related("user")
        .order_by("created_at", "pk")
    )


def join_request_pending_count(*, club: Club, viewer: User | Any) -> int | None:
    """How many join requests wait in ``club``, for its owner and admins; ``None`` for
    anyone else (they are not told)."""
    if membership_role(club, viewer) not in (Role.OWNER, Role.ADMIN):
        return None
    return JoinRequest.objects.filter(club=club, status=JoinRequest.Status.PENDING).count()


def join_request_get_for_viewer(*, request_id: int, viewer: User | Any) -> JoinRequest:
    """A join request, for its applicant or the owner and admins of its club;
    :class:`ClubNotFound` for anyone else."""
    found = JoinRequest.objects.select_related("club", "user").filter(pk=request_id).first()
    if found is None or (
        found.user_id != getattr(viewer, "pk", None)
        and membership_role(found.club, viewer) not in (Role.OWNER, Role.ADMIN)
    ):
        raise ClubNotFound("申请不存在")
    return found


def template_list(*, club: Club) -> QuerySet[RuleTemplate]:
    """The club's rule templates by name."""
    return RuleTemplate.objects.filter(club=club).order_by("name", "pk")


def template_get(*, club: Club, template_id: int) -> RuleTemplate:
    """One of the club's templates; raise :class:`ClubNotFound` if it has no such template."""
    template = RuleTemplate.objects.filter(club=club, pk=template_id).first()
    if template is None:
        raise ClubNotFound("规则模板不存在")
    return template


def club_variants(club: Club) -> list[Variant]:
    """The variants the club plays, in registration order (never an engine-test one)."""
    return [variant for variant in player_variants() if variant.id in club.variants]


def seat_label(seat: int) -> str:
    """The wind of a seat: 东, 南, 西 or 北."""
    return SEAT_WINDS[seat] if 0 <= seat < len(SEAT_WINDS) else str(seat + 1)


def room_dealer_seat(room: Room, seated_user_ids: dict[int, int]) -> int | None:
    """The seat that deals the first hand, as far as the lobby can tell: the room's opener
    (seat 东 when the opener is not seated), or None when the dealer is drawn at the start."""
    variant = VARIANTS.get(room.variant)
    if variant is None or variant.dealer_drawn:
        return None
    for seat, user_id in seated_user_ids.items():
        if user_id == room.created_by_id:
            return seat
    return 0


def room_progress(rooms: list[Room]) -> dict[int, tuple[int, int]]:
    """For each playing room, the hand in play and the match's hands: ``(2, 8)`` is 第2/8局."""
    playing = [room.pk for room in rooms if room.status == Room.Status.PLAYING]
    progress: dict[int, tuple[int, int]] = {}
    rows = (
        Match.objects.filter(room_id__in=playing, status=Match.Status.PLAYING)
        .order_by("room_id", "-created_at")
        .values_list("room_id", "hands_played", "hands_total")
    )
    for room_id, played, total in rows:
        progress.setdefault(room_id, (min(played + 1, total), total))
    return progress


def room_state_text(room: Room, progress: dict[int, tuple[int, int]]) -> str:
    """等待中, 对局中 第2/8局 or 已关闭."""
    if room.status == Room.Status.PLAYING and room.pk in progress:
        current, total = progress[room.pk]
        return f"对局中 第{current}/{total}局"
    return room.get_status_display()


def room_tables(rooms: list[Room]) -> list[dict[str, Any]]:
    """Rooms as the lobbies show them: name, state, rules in brief and one entry per seat
    (its wind, its player or None). ``rooms`` should prefetch ``seats__user``."""
    progress = room_progress(rooms)
    tables = []
    for room in rooms:
        by_seat = {seat.seat: seat for seat in room.seats.all()}
        seats = [
            {
                "seat": n,
                "wind": seat_label(n),
                "user_id": by_seat[n].user_id if n in by_seat else None,
                "name": str(by_seat[n].user) if n in by_seat else "",
                "initial": by_seat[n].user.avatar_initial if n in by_seat else "",
                "color": by_seat[n].user.avatar_hex if n in by_seat else "",
                "online": n in by_seat and by_seat[n].user.is_online,
                "ready": by_seat[n].ready if n in by_seat else False,
            }
            for n in range(room.seat_count)
        ]
        free = sum(1 for seat in seats if seat["user_id"] is None)
        tables.append(
            {
                "room": room,
                "code": room.code,
                "title": room.name or f"房间 {room.code}",
                "variant_name": variant_name(room.variant),
                "state": room_state_text(room, progress),
                "waiting": room.status == Room.Status.WAITING,
                "seats": seats,
                "free": free,
                "brief": f"{room.seat_count}人 · {room.hands_per_match}局"
                f" · {stake_label(room.variant)} {room.base_stake}",
            }
        )
    return tables


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


def room_of_club(*, club: Club, code: str) -> Room | None:
    """The club's room with this code, or None (no code, no such room, another club's)."""
    if not code:
        return None
    return Room.objects.filter(club=club, code=str(code).strip()).first()


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
    """The lobby as JSON: the room, one entry per seat (None when empty), the seats' winds,
    the first dealer's seat (None when drawn at the start) and who of the club is online."""
    seats: list[dict[str, Any] | None] = [None] * room.seat_count
    taken = list(RoomSeat.objects.filter(room=room).select_related("user"))
    online = club_online_user_ids(room.club)
    for seat in taken:
        if seat.seat < len(seats):
            seats[seat.seat] = {
                "seat": seat.seat,
                "user_id": seat.user_id,
                "display_name": str(seat.user),
                "initial": seat.user.avatar_initial,
                "color": seat.user.avatar_hex,
                "ready": seat.ready,
                "online": seat.user_id in online,
                "computer": seat.user.is_computer,
            }
    online_names = sorted(str(user) for user in User.objects.filter(pk__in=online))
    return {
        "winds": [seat_label(n) for n in range(room.seat_count)],
        "dealer": room_dealer_seat(room, {seat.seat: seat.user_id for seat in taken}),
        "dealer_drawn": room_dealer_seat(room, {}) is None,
        "online": online_names,
        "code": room.code,
        "name": room.name,
        "club_id": room.club_id,
        "status": room.status,
        # A room closes when its match ends, and 再来一场 opens it again: say what happened.
        "status_display": "本场已结束" if room.status == Room.Status.CLOSED
        and room.matches.exists() else room.get_status_display(),
        "variant": room.variant,
        "variant_name": variant_name(room.variant),
        "stake_label": stake_label(room.variant),
        "seat_count": room.seat_count,
        "allow_computers": room.allow_computers,
        "practice": room.practice,
        "hands_per_match": room.hands_per_match,
        "base_stake": room.base_stake,
        "allow_spectators": room.allow_spectators,
        "seats": seats,
    }


def stake_label(variant_id: str) -> str:
    """What the variant calls its stake per point: 底注 (都匀) or 底分 (自贡)."""
    variant = VARIANTS.get(variant_id)
    if variant is None or "base_stake" not in variant.schema.names:
        return "底注"
    return variant.schema["base_stake"].label


def variant_name(variant_id: str) -> str:
    """The Chinese name of a variant, or its id if it is no longer registered."""
    variant = VARIANTS.get(variant_id)
    return variant.name if variant is not None else variant_id


def club_lobby_tables(club: Club) -> list[dict[str, Any]]:
    """The club's open tables for its lobby page, newest first."""
    return room_tables(list(room_list_open(club=club)))


def home_for_user(*, user: User) -> dict[str, Any]:
    """The home page of a logged-in player: their clubs (members and online counts), tables
    with free seats in those clubs, the table they sit at, recent results and requests."""
    clubs = list(club_list_for_user(user=user))
    for club in clubs:
        club.online_count = club_online_count(club)  # type: ignore[attr-defined]
    my_seat = (
        RoomSeat.objects.filter(
            user=user, room__status__in=(Room.Status.WAITING, Room.Status.PLAYING)
        )
        .select_related("room__club")
        .first()
    )
    waiting = list(
        Room.objects.filter(club__in=clubs, status=Room.Status.WAITING)
        .select_related("club")
        .prefetch_related("seats__user")
        .order_by("-created_at", "-pk")[:20]
    )
    free_tables = [
        table
        for table in room_tables(waiting)
        if table["free"] and (my_seat is None or table["room"].pk != my_seat.room_id)
    ][:6]
    my_table = room_tables([my_seat.room])[0] if my_seat is not None else None
    requests = list(
        JoinRequest.objects.filter(user=user)
        .exclude(status=JoinRequest.Status.CANCELLED)
        .select_related("club", "room")
        .order_by("-created_at")[:3]
    )
    return {
        "clubs": clubs,
        "free_tables": free_tables,
        "my_seat": my_seat,
        "my_table": my_table,
        "recent": _recent_results(user),
        "requests": requests,
        "pending_clubs": [club for club in clubs if club.pending_requests],  # type: ignore[attr-defined]
    }


def _recent_results(user: User) -> list[dict[str, Any]]:
    """The user's last three matches with their totals (the ledger's 我的战绩 rows)."""
    # The ledger's selectors read the clubs' (membership_role): imported here, not above.
    from apps.ledgers.selectors import my_match_list  # noqa: PLC0415

    return my_match_list(user=user, limit=3)


def join_request_pending_of(*, club: Club, user: User | Any) -> JoinRequest | None:
    """The user's pending request to join the club, if any."""
    if not getattr(user, "is_authenticated", False):
        return None
    return JoinRequest.objects.filter(
        club=club, user=user, status=JoinRequest.Status.PENDING
    ).first()


def variant_list() -> list[dict[str, Any]]:
    """The variants clubs may play, with their settings schemas (labels, limits,
    descriptions, rulings); engine-test variants are left out."""
    return [
        {"id": variant.id, "name": variant.name, "settings": variant.schema.to_json()}
        for variant in player_variants()
    ]


def rematch_state(room: Room, *, expired: bool = False) -> dict[str, Any]:
    """The shared 再来一场 prompt as the table pages show it: ``state`` ``open`` (with its
    ``deadline`` in epoch ms), ``expired`` (the deadline passed: who had not agreed stood
    up) or ``none`` (no prompt is open), and each seat of the room: ``seat``, ``name``,
    ``agreed`` (ready), ``computer``; an empty seat is absent."""
    deadline = room.rematch_deadline
    open_now = deadline is not None and room.status == Room.Status.WAITING and not expired
    seats = RoomSeat.objects.filter(room=room).select_related("user").order_by("seat")
    reopened = room.status != Room.Status.CLOSED  # a closed room's ready marks are old
    return {
        "state": "open" if open_now else ("expired" if expired else "none"),
        "deadline": int(deadline.timestamp() * 1000) if open_now and deadline else None,
        "seat_count": room.seat_count,
        "seats": [
            {"seat": s.seat, "name": str(s.user), "agreed": s.ready and reopened,
             "computer": s.user.is_computer}
            for s in seats
        ],
    }


def rematch_state_open(room_id: int) -> dict[str, Any] | None:
    """The room's 再来一场 prompt when one is open, else ``None`` (a table connection's
    check on connecting to a finished match)."""
    room = Room.objects.filter(pk=room_id, rematch_deadline__isnull=False,
                               status=Room.Status.WAITING).first()
    return None if room is None else rematch_state(room)


def rules_display(variant_id: str, values: dict[str, Any]) -> list[dict[str, Any]]:
    """A room's settings for display: label, value as shown (开/关, a choice's name),
    description and the rulings it comes from."""
    variant = VARIANTS.get(variant_id)
    if variant is None:
        return []
    return [
        {
            "label": setting.label,
            "value": setting.display(values.get(setting.name, setting.default)),
            "description": setting.description,
            "rulings": setting.rulings,
        }
        for setting in variant.schema.settings
    ]
