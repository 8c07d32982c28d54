"""Issue 47, item 7: a deactivated account's login says so (in Chinese); a user's admin
page links to their matches."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import User

PASSWORD = "mahjong-Tiles-2025"
pytestmark = pytest.mark.django_db


def test_a_deactivated_account_is_told_it_is_disabled_only_with_its_password() -> None:
    User.objects.create_user("laowang", password=PASSWORD, is_active=False)
    page = Client().post("/accounts/login/", {"username": "laowang", "password": PASSWORD})
    assert page.status_code == 200 and "这个账号已被停用" in page.content.decode()
    wrong = Client().post("/accounts/login/", {"username": "laowang", "password": "nope-123"})
    assert "这个账号已被停用" not in wrong.content.decode()
    api = Client().post(
        "/api/auth/login/", {"username": "laowang", "password": PASSWORD},
        content_type="application/json",
    )
    assert "这个账号已被停用" in api.content.decode()


def test_a_users_admin_page_links_to_their_matches() -> None:
    admin = User.objects.create_superuser("root", password=PASSWORD)
    player = User.objects.create_user("zhangsan", display_name="张三")
    client = Client()
    client.force_login(admin)
    page = client.get(f"/admin/accounts/user/{player.pk}/change/").content.decode()
    assert "/admin/matches/match/?q=张三" in page and "查看 张三 的对局" in page
