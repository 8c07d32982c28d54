"""Fixtures for live-play tests: tables, WebSocket connections, real worker and daphne."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.matches.models import Match
from apps.matches.routing import websocket_urlpatterns
from majiang import get_variant
from tests.support.celery_app import celery_repoint
from tests.support.processes import (
    ServerProcess,
    server_env,
    start_celery_worker,
)
from tests.support.start import match_start_dealt

TEST_QUEUE = f"matches-test-{uuid.uuid4().hex[:8]}"
"""This session's Celery queue, so no other worker on a shared Redis takes its timers."""


@pytest.fixture(autouse=True, scope="session")
def _live_services(redis_url: str) -> Iterator[str]:
    """Every test here talks to real Redis (channel layer and Celery broker)."""
    previous = celery_repoint(task_default_queue=TEST_QUEUE)
    yield redis_url
    celery_repoint(**previous)


@dataclass
class Table:
    """A room whose match has started: its players by seat and a spectator member."""

    room: Room
    users: list[User]
    spectator: User
    outsider: User

    @property
    def match(self) -> Match:
        """The room's match, fresh from the database."""
        return Match.objects.get(room=self.room)


def table_settings(variant_id: str, **overrides: Any) -> dict[str, Any]:
    """A variant's complete settings: 4 players, the fewest hands, no 报叫 pause (H3: the
    phase still opens at every deal; tests of the pause set it), then ``overrides``."""
    schema = get_variant(variant_id).schema
    values = {"players": 4, "hands_per_match": min(schema["hands_per_match"].choices)}
    if "declare_pause_ms" in schema.names:
        values["declare_pause_ms"] = 0
    values.update(overrides)
    return schema.validate(values)


@pytest.fixture
def make_table() -> Callable[..., Table]:
    """Build a club, four seated players, a spectator and an outsider, then start the
    match (``start=False``: leave the four seated but not ready)."""
    counter = iter(range(1, 10_000))

    def build(
        variant: str = "basic", *, allow_spectators: bool = True, start: bool = True,
        **overrides: Any,
    ) -> Table:
        n = next(counter)
        tag = uuid.uuid4().hex[:6]
        users = [
            User.objects.create_user(f"p{n}_{i}_{tag}", display_name=f"玩家{i}")
            for i in range(4)
        ]
        spectator = User.objects.create_user(f"s{n}_{tag}")
        outsider = User.objects.create_user(f"o{n}_{tag}")
        club = Club.objects.create(name="测试圈", invite_code=f"C{tag}{n}"[:12])
        for i, user in enumerate([*users, spectator]):
            Membership.objects.create(
                club=club, user=user, role=Membership.Role.OWNER if i == 0 else "member"
            )
        room = Room.objects.create(
            club=club,
            code=f"{tag}{n}"[:8],
            variant=variant,
            settings=table_settings(variant, **overrides),
            created_by=users[0],
            allow_spectators=allow_spectators,
        )
        for seat, user in enumerate(users):
            RoomSeat.objects.create(room=room, seat=seat, user=user, ready=start)
        if start:
            match_start_dealt(room)
        return Table(room, users, spectator, outsider)

    return build


class _InjectUser:
    """ASGI wrapper standing in for AuthMiddlewareStack: puts a given user in the scope."""

    def __init__(self, inner: Any, user: Any) -> None:
        self.inner, self.user = inner, user

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.inner({**scope, "user": self.user}, receive, send)


def connect_as(user: Any, code: str, query: str = "") -> WebsocketCommunicator:
    """A communicator for the table endpoint, authenticated as ``user``."""
    path = f"/ws/rooms/{code}/" + (f"?{query}" if query else "")
    return WebsocketCommunicator(_InjectUser(URLRouter(websocket_urlpatterns), user), path)


@pytest.fixture
def celery_worker(transactional_db: None, _live_services: str) -> Iterator[ServerProcess]:
    """A real Celery worker subprocess (solo pool) on this session's queue and test DB."""
    with start_celery_worker(server_env(_live_services, queue=TEST_QUEUE), TEST_QUEUE) as worker:
        yield worker
        sys.stdout.write("celery worker output:\n" + worker.output())


@pytest.fixture
def live_env(transactional_db: None, _live_services: str) -> dict[str, str]:
    """The environment for server subprocesses: the test DB, this Redis and timer queue."""
    return server_env(_live_services, queue=TEST_QUEUE)


def session_cookie(user: User) -> str:
    """A logged-in session for ``user``, as a Cookie header value."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
