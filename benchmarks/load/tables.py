"""Benchmark tables: players with passwords, a club, rooms with all four seats taken.

Runs in the driver's Django (same database as the servers). Rooms alternate between the
two variants, with the fewest hands per match. A room's match starts when its last seat
gets ready, through the clubs service (``room_ready_set`` → ``room_all_ready``), exactly
as when players press "ready".
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth.hashers import make_password
from django.db import connection

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.clubs.services.rooms import room_ready_set
from apps.matches.models import Match
from majiang import get_variant

PASSWORD = "bench-password-1"
VARIANTS = ("duyun", "zigong")


@dataclass(frozen=True)
class BenchTable:
    """A room and the usernames of its seats 0-3."""

    room_id: int
    code: str
    usernames: tuple[str, ...]


def room_settings(variant_id: str, **overrides: object) -> dict[str, object]:
    """A variant's validated settings: 4 players, the fewest hands, then ``overrides``."""
    schema = get_variant(variant_id).schema
    values: dict[str, object] = {
        "players": 4, "hands_per_match": min(schema["hands_per_match"].choices),
    }
    values.update(overrides)
    return dict(schema.validate(values))


def tables_create(count: int, **overrides: object) -> list[BenchTable]:
    """Create ``count`` rooms of 4 seated (not yet ready) players in one new club."""
    tag = uuid.uuid4().hex[:6]
    password = make_password(PASSWORD)
    users = User.objects.bulk_create(
        User(username=f"b{tag}_{t}_{s}", display_name=f"机{t}-{s}", password=password)
        for t in range(count) for s in range(4)
    )
    club = Club.objects.create(name=f"压测{tag}", invite_code=f"B{tag}", member_cap=10 * count + 10)
    Membership.objects.bulk_create(
        Membership(club=club, user=u, role=Membership.Role.OWNER if i == 0 else "member")
        for i, u in enumerate(users)
    )
    tables = []
    for t in range(count):
        seated = users[4 * t: 4 * t + 4]
        variant = VARIANTS[t % len(VARIANTS)]
        room = Room.objects.create(
            club=club, code=f"{tag}{t:02d}"[:8] if count <= 100 else f"{tag[:4]}{t:04d}",
            variant=variant, settings=room_settings(variant, **overrides),
            created_by=seated[0],
        )
        RoomSeat.objects.bulk_create(
            RoomSeat(room=room, seat=s, user=u, ready=s < 3) for s, u in enumerate(seated)
        )
        tables.append(BenchTable(room.pk, room.code, tuple(u.username for u in seated)))
    return tables


def tables_start(tables: list[BenchTable]) -> None:
    """Make each room's last seat ready, which starts its match."""
    try:
        for table in tables:
            room = Room.objects.get(pk=table.room_id)
            user = User.objects.get(username=table.usernames[3])
            room_ready_set(room=room, user=user, ready=True)
    finally:
        connection.close()


def tables_rematch(tables: list[BenchTable]) -> int:
    """Start a new match in every room whose match has finished; return how many.

    A 16-hand match lasts a few seconds when one table plays flat out, less than a
    measured window. Like a club playing on, the same four players start another match at
    the same table: the room is opened again and all four are ready, which starts it
    (``room_ready_set``); their connections follow it (``table.match_started``).
    """
    started = 0
    try:
        closed = Room.objects.filter(pk__in=[t.room_id for t in tables],
                                     status=Room.Status.CLOSED)
        for room in closed:
            Room.objects.filter(pk=room.pk).update(status=Room.Status.WAITING, closed_at=None)
            RoomSeat.objects.filter(room=room).exclude(seat=3).update(ready=True)
            RoomSeat.objects.filter(room=room, seat=3).update(ready=False)
            room.refresh_from_db()
            last = RoomSeat.objects.select_related("user").get(room=room, seat=3)
            room_ready_set(room=room, user=last.user, ready=True)
            started += 1
        return started
    finally:
        connection.close()


def matches_of(tables: list[BenchTable]) -> list[Match]:
    """The matches of the tables' rooms."""
    return list(Match.objects.filter(room_id__in=[t.room_id for t in tables]).order_by("pk"))


def tables_abandon(tables: list[BenchTable]) -> int:
    """Mark the tables' unfinished matches dissolved; return how many.

    Run after each measurement: its bots leave matches unfinished, and their timers would
    otherwise keep playing them (timeouts, then 托管 every second) in the Celery workers,
    loading the machine during the next measurement. A timer of a match that is not
    playing does nothing.
    """
    try:
        return Match.objects.filter(
            room_id__in=[t.room_id for t in tables], status=Match.Status.PLAYING
        ).update(status=Match.Status.DISSOLVED)
    finally:
        connection.close()


def tables_abandon_all() -> int:
    """Mark every unfinished match of the benchmark's database dissolved (after a run that
    failed before its tables were known); return how many."""
    try:
        return Match.objects.filter(status=Match.Status.PLAYING).update(
            status=Match.Status.DISSOLVED)
    finally:
        connection.close()
