"""Permission matrix of the API: anonymous, non-member, member, admin, owner × each action.

Every cell asserts the exact status code; every refused action leaves the database as it
was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apps.clubs.models import Club
from tests.support.api import error_fields

from .conftest import FIRST_VARIANT, ROLES, World, db_snapshot

Action = Callable[[World], tuple[str, str, dict[str, Any] | None]]

ACTIONS: dict[str, tuple[Action, tuple[int, int, int, int, int]]] = {
    # name: (request, statuses for anonymous, outsider, member, admin, owner)
    "list my clubs": (lambda w: ("get", "/api/clubs/", None), (403, 200, 200, 200, 200)),
    "create club": (
        lambda w: ("post", "/api/clubs/", {"name": "新圈"}),
        (403, 201, 201, 201, 201),
    ),
    "list variants": (lambda w: ("get", "/api/variants/", None), (403, 200, 200, 200, 200)),
    "search club": (
        lambda w: ("get", f"/api/clubs/search/?club_id={w.club.pk}", None),
        (403, 200, 200, 200, 200),
    ),
    "view club": (lambda w: ("get", f"/api/clubs/{w.club.pk}/", None), (403, 404, 200, 200, 200)),
    "edit club settings": (
        lambda w: ("patch", f"/api/clubs/{w.club.pk}/", {"notice": "新公告", "is_open": False}),
        (403, 404, 403, 200, 200),
    ),
    "regenerate invite code": (
        lambda w: ("post", f"/api/clubs/{w.club.pk}/invite-code/", None),
        (403, 404, 403, 200, 200),
    ),
    "list members": (
        lambda w: ("get", f"/api/clubs/{w.club.pk}/members/", None),
        (403, 404, 200, 200, 200),
    ),
    "appoint admin": (
        lambda w: ("patch", f"/api/clubs/{w.club.pk}/members/{w.member2.pk}/", {"role": "admin"}),
        (403, 404, 403, 403, 200),
    ),
    "dismiss admin": (
        lambda w: ("patch", f"/api/clubs/{w.club.pk}/members/{w.admin.pk}/", {"role": "member"}),
        (403, 404, 403, 403, 200),
    ),
    "remove member": (
        lambda w: ("delete", f"/api/clubs/{w.club.pk}/members/{w.member2.pk}/", None),
        (403, 404, 403, 204, 204),
    ),
    "remove admin": (
        lambda w: ("delete", f"/api/clubs/{w.club.pk}/members/{w.admin.pk}/", None),
        (403, 404, 403, 403, 204),
    ),
    "remove owner": (
        lambda w: ("delete", f"/api/clubs/{w.club.pk}/members/{w.owner.pk}/", None),
        (403, 404, 403, 403, 403),
    ),
    "leave club": (
        lambda w: ("post", f"/api/clubs/{w.club.pk}/leave/", None),
        (403, 404, 204, 204, 400),
    ),
    "transfer ownership": (
        lambda w: ("post", f"/api/clubs/{w.club.pk}/transfer/", {"user_id": w.member2.pk}),
        (403, 404, 403, 403, 200),
    ),
    "list join requests": (
        lambda w: ("get", f"/api/clubs/{w.club.pk}/join-requests/", None),
        (403, 404, 403, 200, 200),
    ),
    "request to join": (
        lambda w: ("post", "/api/join-requests/", {"club_id": w.club.pk}),
        (403, 201, 400, 400, 400),
    ),
    "approve join request": (
        lambda w: ("post", f"/api/join-requests/{w.join_request.pk}/approve/", None),
        (403, 404, 403, 200, 200),
    ),
    "reject join request": (
        lambda w: ("post", f"/api/join-requests/{w.join_request.pk}/reject/", None),
        (403, 404, 403, 200, 200),
    ),
    "list templates": (
        lambda w: ("get", f"/api/clubs/{w.club.pk}/templates/", None),
        (403, 404, 200, 200, 200),
    ),
    "view template": (
        lambda w: ("get", f"/api/clubs/{w.club.pk}/templates/{w.template.pk}/", None),
        (403, 404, 200, 200, 200),
    ),
    "create template": (
        lambda w: (
            "post",
            f"/api/clubs/{w.club.pk}/templates/",
            {"name": "新模板", "variant": FIRST_VARIANT, "settings": {}},
        ),
        (403, 404, 403, 201, 201),
    ),
    "edit template": (
        lambda w: ("patch", f"/api/clubs/{w.club.pk}/templates/{w.template.pk}/", {"name": "改名"}),
        (403, 404, 403, 200, 200),
    ),
    "delete template": (
        lambda w: ("delete", f"/api/clubs/{w.club.pk}/templates/{w.template.pk}/", None),
        (403, 404, 403, 204, 204),
    ),
    "list rooms": (
        lambda w: ("get", f"/api/clubs/{w.club.pk}/rooms/", None),
        (403, 404, 200, 200, 200),
    ),
    "open room": (
        lambda w: ("post", f"/api/clubs/{w.club.pk}/rooms/", {"template_id": w.template.pk}),
        (403, 404, 403, 201, 201),
    ),
    "view room": (lambda w: ("get", f"/api/rooms/{w.room.code}/", None), (403, 404, 200, 200, 200)),
    "sit down": (
        lambda w: ("post", f"/api/rooms/{w.room.code}/sit/", {"seat": 1}),
        (403, 404, 200, 200, 200),
    ),
    "stand up without a seat": (
        lambda w: ("post", f"/api/rooms/{w.room.code}/stand/", None),
        (403, 404, 400, 400, 400),
    ),
    "ready without a seat": (
        lambda w: ("post", f"/api/rooms/{w.room.code}/ready/", {"ready": True}),
        (403, 404, 400, 400, 400),
    ),
    "close room": (
        lambda w: ("post", f"/api/rooms/{w.room.code}/close/", None),
        (403, 404, 403, 200, 200),
    ),
}

CASES = [
    pytest.param(action, role, expected[i], id=f"{action}-{role}")
    for action, (_, expected) in ACTIONS.items()
    for i, role in enumerate(ROLES)
]


@pytest.mark.parametrize(("action", "role", "expected"), CASES)
def test_api_permission_matrix(world: World, action: str, role: str, expected: int) -> None:
    method, url, payload = ACTIONS[action][0](world)
    client = world.client(role)
    before = db_snapshot()
    response = getattr(client, method)(url, payload, content_type="application/json")
    assert response.status_code == expected, response.content.decode()
    if expected >= 400:
        assert db_snapshot() == before


def test_members_may_open_rooms_when_the_club_allows(world: World) -> None:
    Club.objects.filter(pk=world.club.pk).update(members_can_open_rooms=True)
    response = world.client("member").post(
        f"/api/clubs/{world.club.pk}/rooms/",
        {"variant": FIRST_VARIANT, "settings": {}},
        content_type="application/json",
    )
    assert response.status_code == 201


@pytest.mark.parametrize("role", ["member", "admin", "owner"])
def test_nobody_opens_rooms_while_the_club_is_paused(world: World, role: str) -> None:
    Club.objects.filter(pk=world.club.pk).update(is_open=False, members_can_open_rooms=True)
    before = db_snapshot()
    response = world.client(role).post(
        f"/api/clubs/{world.club.pk}/rooms/",
        {"template_id": world.template.pk},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "打烊" in error_fields(response.json())["non_field_errors"][0]
    assert db_snapshot() == before
