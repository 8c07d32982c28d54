"""The one place tests build the platform's rows: users, clubs, rooms, started tables, and
hands played through the real services (:mod:`tests.support.play`).

Every builder writes through the models (fast) except where a test needs the flow itself:
a table's match is started by :func:`tests.support.start.match_start_dealt`, as the room's
last 准备 and the seats' pages would start it.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass
from typing import Any

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.clubs.services.computers import computer_user
from apps.matches.models import Match
from majiang import get_variant
from tests.support.start import match_start_dealt

NAMES = ("张三", "李四", "王五", "赵六")
"""The players' 昵称, by seat."""
_serial = itertools.count(1)


def tag() -> str:
    """A short unique string for usernames and codes."""
    return f"{uuid.uuid4().hex[:6]}{next(_serial)}"


def user(username: str | None = None, *, display_name: str = "", password: str = "x",
         **fields: Any) -> User:
    """A user (password ``x`` unless given)."""
    return User.objects.create_user(username or f"u_{tag()}", password=password,
                                    display_name=display_name, **fields)


def club(owner: User, *members: User, admins: tuple[User, ...] = (), name: str = "测试圈",
         **fields: Any) -> Club:
    """A club owned by ``owner`` with ``members`` and ``admins``."""
    made = Club.objects.create(name=name, invite_code=f"C{tag()}"[:12], **fields)
    Membership.objects.create(club=made, user=owner, role=Membership.Role.OWNER)
    for admin in admins:
        Membership.objects.create(club=made, user=admin, role=Membership.Role.ADMIN)
    for member in members:
        Membership.objects.create(club=made, user=member, role=Membership.Role.MEMBER)
    return made


def table_settings(variant_id: str, **overrides: Any) -> dict[str, Any]:
    """A variant's complete settings: 4 players, the fewest hands, no 报叫 pause (H3: the
    phase still opens at every deal; tests of the pause set it), then ``overrides``."""
    schema = get_variant(variant_id).schema
    values = {"players": 4, "hands_per_match": min(schema["hands_per_match"].choices)}
    if "declare_pause_ms" in schema.names:
        values["declare_pause_ms"] = 0
    values.update(overrides)
    return dict(schema.validate(values))


def room(club: Club, creator: User, variant: str = "duyun", *, code: str | None = None,
         settings: dict[str, Any] | None = None, **fields: Any) -> Room:
    """A waiting room of ``club`` (``settings`` complete, else the variant's test defaults)."""
    return Room.objects.create(
        club=club, code=code or uuid.uuid4().hex[:6], variant=variant,
        settings=settings if settings is not None else table_settings(variant),
        created_by=creator, **fields,
    )


def seat(room: Room, users: list[User], *, ready: bool = True) -> None:
    """Seat ``users`` in order (seat 0 first)."""
    for number, person in enumerate(users):
        RoomSeat.objects.create(room=room, seat=number, user=person, ready=ready)


@dataclass
class Table:
    """A club and a room of it: its seated players (``users``, seat order; ``users[0]`` owns
    the club), an admin, a plain member who may watch (``spectator``), an outsider, and a
    second club's owner and room (for cross-club checks)."""

    club: Club
    room: Room
    users: list[User]
    admin: User
    spectator: User
    outsider: User
    other_owner: User
    other_room: Room

    @property
    def players(self) -> list[User]:
        """The seated users (alias of ``users``)."""
        return self.users

    @property
    def member(self) -> User:
        """The plain member who is not seated (alias of ``spectator``)."""
        return self.spectator

    @property
    def match(self) -> Match:
        """The room's latest match, fresh from the database."""
        return Match.objects.filter(room=self.room).latest("pk")


def players_club() -> tuple[Club, list[User]]:
    """A club of four players (``张三`` … ``赵六``; the first owns it)."""
    key = tag()
    people = [user(f"p{i}_{key}", display_name=NAMES[i]) for i in range(4)]
    return club(people[0], *people[1:]), people


def started_room(club: Club, players: list[User], variant: str = "duyun",
                 **overrides: Any) -> Room:
    """Seat ``players`` in a new room of ``club`` (ready) and start its match."""
    opened = room(club, players[0], variant, settings=table_settings(variant, **overrides))
    seat(opened, players)
    match_start_dealt(opened)
    return opened


def table(variant: str = "duyun", *, start: bool = True, ready: bool | None = None,
          computers: int = 0, allow_spectators: bool = True, **overrides: Any) -> Table:
    """A club with a room whose seats are filled, and (``start``) its match started with
    hand 1 dealt. ``computers``: that many of the last seats are the club's computer
    players (the room then allows them). ``overrides``: room settings."""
    key = tag()
    settings = table_settings(variant, **overrides)
    seats = int(settings["players"])
    people = [user(f"p{i}_{key}", display_name=NAMES[i]) for i in range(seats - computers)]
    admin = user(f"a_{key}", display_name="管理员")
    spectator = user(f"s_{key}", display_name="旁观者")
    outsider = user(f"o_{key}", display_name="外人")
    made = club(people[0], *people[1:], spectator, admins=(admin,))
    opened = room(made, people[0], variant, settings=settings, code=key[:6],
                  allow_spectators=allow_spectators, allow_computers=computers > 0)
    players = people + [computer_user(made, slot) for slot in range(1, computers + 1)]
    seat(opened, players, ready=start if ready is None else ready)
    other_owner = user(f"x_{key}", display_name="别圈圈主")
    other_room = room(club(other_owner, name="别的圈"), other_owner, variant)
    if start:
        match_start_dealt(opened)
    return Table(made, opened, players, admin, spectator, outsider, other_owner, other_room)
