"""Helpers that build club tables and play matches through the matches app's services."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

from django.test import TestCase

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.matches import services
from apps.matches.models import Match, MatchPlayer
from majiang import get_variant
from tests.support.rounds import round_now
from tests.support.start import match_start_dealt

NAMES = ("张三", "李四", "王五", "赵六")


@dataclass
class Table:
    """A club with an owner, an admin, a plain member and an outsider, and a started room."""

    club: Club
    room: Room
    players: list[User]
    admin: User
    member: User
    outsider: User

    @property
    def match(self) -> Match:
        """The room's latest match, fresh from the database."""
        return Match.objects.filter(room=self.room).latest("pk")


def table_settings(variant_id: str, **overrides: Any) -> dict[str, Any]:
    """A variant's complete settings: 4 players, the fewest hands, no 报叫 pause (H3: the
    phase still opens at every deal), then ``overrides``."""
    schema = get_variant(variant_id).schema
    values = {"players": 4, "hands_per_match": min(schema["hands_per_match"].choices)}
    if "declare_pause_ms" in schema.names:
        values["declare_pause_ms"] = 0
    values.update(overrides)
    return dict(schema.validate(values))


def make_club(tag: str | None = None) -> tuple[Club, list[User], User, User, User]:
    """A club: four players (player 0 is the owner), an admin, a member and an outsider."""
    tag = tag or uuid.uuid4().hex[:6]
    players = [
        User.objects.create_user(f"p{i}_{tag}", password="x", display_name=NAMES[i])
        for i in range(4)
    ]
    admin = User.objects.create_user(f"a_{tag}", password="x", display_name="管理员")
    member = User.objects.create_user(f"m_{tag}", password="x", display_name="旁人")
    outsider = User.objects.create_user(f"o_{tag}", password="x", display_name="外人")
    club = Club.objects.create(name="测试圈", invite_code=f"L{tag}"[:12])
    roles = [Membership.Role.OWNER, *[Membership.Role.MEMBER] * 3]
    for user, role in [*zip(players, roles, strict=True), (admin, "admin"), (member, "member")]:
        Membership.objects.create(club=club, user=user, role=role)
    return club, players, admin, member, outsider


def open_room(club: Club, players: list[User], variant: str, **overrides: Any) -> Room:
    """Seat the players in a new room of ``club`` and start its match."""
    room = Room.objects.create(
        club=club, code=uuid.uuid4().hex[:8], variant=variant,
        settings=table_settings(variant, **overrides), created_by=players[0],
    )
    for seat, user in enumerate(players):
        RoomSeat.objects.create(room=room, seat=seat, user=user, ready=True)
    match_start_dealt(room)
    return room


def make_table(variant: str = "duyun", **overrides: Any) -> Table:
    """A new club and a started room in it."""
    club, players, admin, member, outsider = make_club()
    room = open_room(club, players, variant, **overrides)
    return Table(club, room, players, admin, member, outsider)


@contextmanager
def round_cache_on() -> Iterator[None]:
    """Run the post-commit hooks of the services called inside (the matches app's round
    cache check-in), with broadcasts switched off: without the cache every action rebuilds
    the hand from the log."""
    with (
        mock.patch("apps.matches.broadcast.send_updates"),
        TestCase.captureOnCommitCallbacks(execute=True),
    ):
        yield


def play_hand(match_id: int, rng: random.Random) -> None:
    """Play the current hand to its end with random legal actions, via ``match_act``."""
    match = Match.objects.get(pk=match_id)
    users = {p.seat: p.user for p in MatchPlayer.objects.filter(match=match).select_related("user")}
    number = match.hands_played
    while True:
        match.refresh_from_db()
        if match.hands_played > number or match.status != Match.Status.PLAYING:
            return
        rnd = round_now(match)
        seat = rnd.pending()[0]
        action = rng.choice(rnd.legal_actions(seat)).to_json()
        payload = {k: v for k, v in action.items() if k != "seat"}
        with round_cache_on():
            services.match_act(
                match_id=match.pk, user_id=users[seat].pk, payload={**payload, "v": match.version}
            )


def play_match(match_id: int, rng: random.Random) -> None:
    """Play every hand of a match, readying all seats between hands."""
    while True:
        play_hand(match_id, rng)
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.PLAYING:
            return
        for player in MatchPlayer.objects.filter(match=match).select_related("user"):
            match.refresh_from_db()
            if match.stage == Match.Stage.BETWEEN:
                services.match_act(
                    match_id=match.pk, user_id=player.user.pk, payload={"type": "ready_next"}
                )
