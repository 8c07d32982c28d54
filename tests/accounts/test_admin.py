"""Django admin: staff search, deactivate and reset users and see their clubs."""

from __future__ import annotations

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


def test_unlock_action_and_password_reset_form(staff_client: Client) -> None:
    user = User.objects.create_user("zhangsan")
    response = staff_client.post(
        "/admin/accounts/user/", {"action": "unlock_login", "_selected_action": [user.pk]}
    )
    assert response.status_code == 302
    page = staff_client.get(f"/admin/accounts/user/{user.pk}/password/")
    assert page.status_code == 200


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
