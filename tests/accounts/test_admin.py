"""Django admin: staff search, deactivate and reset users and see their clubs."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Room
from apps.clubs.services.clubs import club_create
from apps.clubs.services.rooms import room_create
from apps.clubs.services.templates import rule_template_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("boss", password=None))
    return client


def test_search_users(staff_client: Client) -> None:
    User.objects.create_user("zhangsan", display_name="张三")
    User.objects.create_user("lisi", display_name="李四")
    page = staff_client.get("/admin/accounts/user/", {"q": "张"}).content.decode()
    assert "zhangsan" in page
    assert "lisi" not in page


def test_deactivate_action(staff_client: Client) -> None:
    user = User.objects.create_user("zhangsan")
    response = staff_client.post(
        "/admin/accounts/user/", {"action": "deactivate", "_selected_action": [user.pk]}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert not user.is_active


def test_a_locked_login_shows_on_the_user_page_and_the_unlock_action_frees_it(
    staff_client: Client, settings: Any,
) -> None:
    user = User.objects.create_user("zhangsan", password="Tiles-2026-ok")
    player = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        player.post("/accounts/login/", {"username": "zhangsan", "password": "wrong"})
    page = staff_client.get(f"/admin/accounts/user/{user.pk}/change/").content.decode()
    assert f"已锁定：连续输错密码 {settings.AXES_FAILURE_LIMIT} 次" in page
    assert player.post("/accounts/login/", {"username": "zhangsan",
                                            "password": "Tiles-2026-ok"}).status_code == 429

    response = staff_client.post(
        "/admin/accounts/user/", {"action": "unlock_login", "_selected_action": [user.pk]},
        follow=True,
    )
    assert "已解除登录锁定" in response.content.decode()
    page = staff_client.get(f"/admin/accounts/user/{user.pk}/change/").content.decode()
    assert "登录锁定" in page and "已锁定" not in page
    player.post("/accounts/login/", {"username": "zhangsan", "password": "Tiles-2026-ok"})
    assert player.session.get("_auth_user_id") == str(user.pk)
    assert staff_client.get(f"/admin/accounts/user/{user.pk}/password/").status_code == 200


def test_user_page_lists_their_clubs(staff_client: Client) -> None:
    user = User.objects.create_user("zhangsan")
    club_create(owner=user, name="周末麻将圈")
    page = staff_client.get(f"/admin/accounts/user/{user.pk}/change/").content.decode()
    assert "周末麻将圈" in page
    assert "所在亲友圈" in page


def test_club_admin_pages_load(staff_client: Client) -> None:
    owner = User.objects.create_user("zhangsan")
    club = club_create(owner=owner, name="周末麻将圈")
    template = rule_template_create(
        club=club, actor=owner, name="标准", variant="basic", settings={}
    )
    room = room_create(club=club, actor=owner, template=template)
    for url in (
        "/admin/clubs/club/",
        f"/admin/clubs/club/{club.pk}/change/",
        "/admin/clubs/membership/",
        "/admin/clubs/joinrequest/",
        "/admin/clubs/ruletemplate/",
        f"/admin/clubs/ruletemplate/{template.pk}/change/",
        "/admin/clubs/room/",
        f"/admin/clubs/room/{room.pk}/change/",
    ):
        assert staff_client.get(url).status_code == 200, url
    assert Room.objects.count() == 1
