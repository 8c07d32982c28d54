"""Fixtures of the clubs tests: a club with one user per role, and clients for them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate
from apps.clubs.services.clubs import club_create
from majiang.variants import VARIANTS, player_variants

ROLES = ("anonymous", "outsider", "member", "admin", "owner")
FIRST_VARIANT = player_variants()[0].id


@dataclass
class World:
    """A club with an owner, an admin, two members, an applicant and an outsider."""

    club: Club
    owner: User
    admin: User
    member: User
    member2: User
    applicant: User
    outsider: User
    join_request: JoinRequest
    template: RuleTemplate
    room: Room

    def user(self, role: str) -> User | None:
        """The user acting in ``role`` (None for anonymous)."""
        return None if role == "anonymous" else getattr(self, role)

    def client(self, role: str) -> Client:
        """A client logged in as the user of ``role``."""
        client = Client()
        user = self.user(role)
        if user is not None:
            client.force_login(user)
        return client


def make_user(username: str, display_name: str = "") -> User:
    """A user with no usable password (fast: no hashing); tests log in with force_login."""
    return User.objects.create_user(username, display_name=display_name)


@pytest.fixture
def world(db: Any) -> World:
    owner = make_user("owner", "圈主老张")
    admin = make_user("admin", "管理小李")
    member = make_user("member", "王五")
    member2 = make_user("member2", "赵六")
    applicant = make_user("applicant", "申请人")
    outsider = make_user("outsider", "路人")
    club = club_create(owner=owner, name="周末麻将圈", notice="欢迎")
    Membership.objects.create(club=club, user=admin, role=Membership.Role.ADMIN)
    Membership.objects.create(club=club, user=member)
    Membership.objects.create(club=club, user=member2)
    join_request = JoinRequest.objects.create(club=club, user=applicant, message="带我一个")
    template = RuleTemplate.objects.create(
        club=club,
        name="标准",
        variant=FIRST_VARIANT,
        settings=VARIANTS[FIRST_VARIANT].schema.defaults(),
        created_by=owner,
    )
    room = Room.objects.create(
        club=club,
        code="123456",
        variant=FIRST_VARIANT,
        settings=VARIANTS[FIRST_VARIANT].schema.defaults(),
        template=template,
        created_by=owner,
    )
    return World(
        club, owner, admin, member, member2, applicant, outsider, join_request, template, room
    )


def db_snapshot() -> tuple[Any, ...]:
    """Everything the clubs services write, to prove a refused action changed nothing."""
    return (
        list(Club.objects.order_by("pk").values()),
        list(Membership.objects.order_by("pk").values("club", "user", "role")),
        list(JoinRequest.objects.order_by("pk").values("status", "decided_by")),
        list(RuleTemplate.objects.order_by("pk").values("name", "variant", "settings")),
        list(Room.objects.order_by("pk").values("code", "status", "settings")),
        list(RoomSeat.objects.order_by("pk").values("room", "seat", "user", "ready")),
    )


def fill_room(room: Room, users: list[User], ready: bool = True) -> None:
    """Seat ``users`` in order (bypassing the services)."""
    for seat, user in enumerate(users):
        RoomSeat.objects.create(room=room, seat=seat, user=user, ready=ready)
