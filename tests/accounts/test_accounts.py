"""Registration, login (rate-limited), logout, password change, profile, shared sessions."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.services.clubs import club_create

PASSWORD = "mahjong-Tiles-2025"
pytestmark = pytest.mark.django_db


def register(client: Client, username: str, display_name: str = "", **extra: Any) -> Any:
    """Register ``username``; shown names are unique, so the default is 王五 + username."""
    return client.post(
        "/accounts/register/",
        {
            "username": username,
            "display_name": display_name or f"王五{username}",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        **extra,
    )


def test_register_with_a_chinese_name_logs_in(client: Client) -> None:
    response = register(client, "xiaoming", "小明")
    assert response.status_code == 302
    assert User.objects.get(username="xiaoming").display_name == "小明"
    assert "小明" in client.get("/clubs/").content.decode()


def test_register_refuses_duplicates_and_mismatched_passwords(client: Client) -> None:
    User.objects.create_user("taken")
    response = register(client, "taken")
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    response = client.post(
        "/accounts/register/",
        {"username": "new", "display_name": "", "password1": PASSWORD, "password2": "other-1"},
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="new").exists()


def test_registration_is_rate_limited_per_ip(client: Client, settings: Any) -> None:
    settings.REGISTRATION_RATE_LIMIT = 3
    for number in range(3):
        assert register(client, f"user{number}").status_code == 302
        client.logout()
    response = register(client, "user3")
    assert response.status_code == 429
    assert "注册尝试过于频繁" in response.content.decode()
    assert not User.objects.filter(username="user3").exists()
    other_ip = register(Client(), "user4", REMOTE_ADDR="10.0.0.9")
    assert other_ip.status_code == 302


def test_login_and_logout(client: Client) -> None:
    User.objects.create_user("lisi", password=PASSWORD, display_name="李四")
    response = client.post("/accounts/login/", {"username": "lisi", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/profile/").status_code == 302


def test_login_is_locked_after_repeated_failures(client: Client, settings: Any) -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/accounts/login/", {"username": "lisi", "password": "wrong"})
        assert response.status_code == 200
    locked = client.post("/accounts/login/", {"username": "lisi", "password": "wrong"})
    assert locked.status_code == 429
    still_locked = client.post("/accounts/login/", {"username": "lisi", "password": PASSWORD})
    assert still_locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_password_change(client: Client) -> None:
    user = User.objects.create_user("lisi", password=PASSWORD)
    client.force_login(user)
    assert client.get("/accounts/password/").status_code == 200
    response = client.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "new-Tiles-2026",
            "new_password2": "new-Tiles-2026",
        },
    )
    assert response["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password("new-Tiles-2026")
    assert client.get("/accounts/password/done/").status_code == 200


def test_profile_shows_clubs_and_changes_display_name(client: Client) -> None:
    user = User.objects.create_user("lisi", display_name="李四")
    club_create(owner=user, name="老友圈")
    client.force_login(user)
    page = client.get("/accounts/profile/").content.decode()
    assert "老友圈" in page
    assert client.post("/accounts/profile/", {"display_name": "李老四"}).status_code == 302
    user.refresh_from_db()
    assert user.display_name == "李老四"
    too_long = client.post("/accounts/profile/", {"display_name": "长" * 33})
    assert too_long.status_code == 400


def test_anonymous_profile_redirects_to_login(client: Client) -> None:
    response = client.get("/accounts/profile/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_page_session_authenticates_the_api(client: Client) -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    assert client.get("/api/clubs/").status_code == 403
    client.post("/accounts/login/", {"username": "lisi", "password": PASSWORD})
    assert client.get("/api/clubs/").status_code == 200


def test_api_writes_need_the_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("lisi"))
    response = client.post("/api/clubs/", {"name": "圈"}, content_type="application/json")
    assert response.status_code == 403
    client.get("/clubs/")  # a page with a form sets the csrftoken cookie
    csrf = client.cookies["csrftoken"].value
    response = client.post(
        "/api/clubs/", {"name": "圈"}, content_type="application/json", HTTP_X_CSRFTOKEN=csrf
    )
    assert response.status_code == 201
