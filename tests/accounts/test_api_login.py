"""The JSON login (apps/accounts/api.py): a client logs in, writes and logs out with no HTML
form, through the login page's django-axes lockout, with the CSRF token on every write."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt
from django.test import Client

from apps.accounts.models import User
from tests.support.api import client_error, error_fields

PASSWORD = "mahjong-Tiles-2025"
pytestmark = pytest.mark.django_db


def csrf_client() -> tuple[Client, str]:
    """A client that enforces CSRF like a browser, with the token from GET /api/auth/csrf/."""
    client = Client(enforce_csrf_checks=True)
    response = client.get("/api/auth/csrf/")
    assert response.status_code == 200
    token = response.json()["csrf_token"]
    assert client.cookies["csrftoken"].value  # the cookie the token belongs to is set
    return client, token


def login(client: Client, token: str, username: str, password: str, **extra: Any) -> Any:
    return client.post(
        "/api/auth/login/", {"username": username, "password": password},
        content_type="application/json", HTTP_X_CSRFTOKEN=token, **extra,
    )


def test_login_write_and_logout_without_a_form() -> None:
    User.objects.create_user("lisi", password=PASSWORD, display_name="李四")
    client, token = csrf_client()
    response = login(client, token, "lisi", PASSWORD)
    assert response.status_code == 200
    body = response.json()
    assert body["user"]["username"] == "lisi"
    assert body["user"]["display_name"] == "李四"
    new_token = body["csrf_token"]
    assert client.get("/api/clubs/").status_code == 200
    created = client.post("/api/clubs/", {"name": "圈"}, content_type="application/json",
                          HTTP_X_CSRFTOKEN=new_token)
    assert created.status_code == 201
    assert client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=new_token).status_code == 204
    assert client.get("/api/clubs/").status_code == 403


def test_wrong_password_is_a_chinese_400_and_counts_for_the_lockout(settings: Any) -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    client, token = csrf_client()
    response = login(client, token, "lisi", "wrong")
    assert response.status_code == 400
    assert error_fields(response.json()) == {"non_field_errors": ["用户名或密码不正确"]}
    assert AccessAttempt.objects.get(username="lisi").failures_since_start == 1
    for _ in range(settings.AXES_FAILURE_LIMIT - 2):
        assert login(client, token, "lisi", "wrong").status_code == 400
    locked = login(client, token, "lisi", "wrong")
    assert locked.status_code == 429
    code, detail = client_error(locked.json())
    assert code == "login_locked"
    assert detail == "登录失败次数过多，请 15 分钟后再试"
    # Locked even with the right password, at this address...
    assert login(client, token, "lisi", PASSWORD).status_code == 429
    assert client.get("/api/clubs/").status_code == 403
    # ...and the login page is locked with it: one count for both ways in.
    page = Client().post("/accounts/login/", {"username": "lisi", "password": PASSWORD})
    assert page.status_code == 429
    assert "登录失败次数过多" in page.content.decode()
    # Another address may still log in as lisi (lock by username and address).
    other, other_token = csrf_client()
    assert login(other, other_token, "lisi", PASSWORD, REMOTE_ADDR="10.0.0.9").status_code == 200


def test_api_and_page_failures_add_up(settings: Any) -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        Client().post("/accounts/login/", {"username": "lisi", "password": "wrong"})
    client, token = csrf_client()
    assert login(client, token, "lisi", "wrong").status_code == 429


def test_login_needs_the_csrf_token() -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    client, _token = csrf_client()
    response = client.post("/api/auth/login/", {"username": "lisi", "password": PASSWORD},
                           content_type="application/json")
    assert response.status_code == 403
    code, detail = client_error(response.json())
    assert code == "csrf_failed"
    assert "X-CSRFToken" in detail
    assert "_auth_user_id" not in client.session


def test_writes_and_logout_need_the_csrf_token() -> None:
    User.objects.create_user("lisi", password=PASSWORD)
    client, token = csrf_client()
    token = login(client, token, "lisi", PASSWORD).json()["csrf_token"]
    for url, body in (("/api/clubs/", {"name": "圈"}), ("/api/auth/logout/", {})):
        refused = client.post(url, body, content_type="application/json")
        assert refused.status_code == 403
        assert client_error(refused.json())[0] == "csrf_failed"
        wrong = client.post(url, body, content_type="application/json",
                            HTTP_X_CSRFTOKEN="x" * 32)
        assert wrong.status_code == 403
    assert client.get("/api/clubs/").status_code == 200  # still logged in


def test_bad_login_input_is_a_400_per_field() -> None:
    client, token = csrf_client()
    response = client.post("/api/auth/login/", {"username": "lisi"},
                           content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 400
    assert list(error_fields(response.json())) == ["password"]


def test_logout_when_not_logged_in_is_refused() -> None:
    client, token = csrf_client()
    response = client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 403
    assert client_error(response.json())[0] == "not_authenticated"


def test_logins_from_one_address_are_rate_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    """Besides the lockout of one username, an address may try only so many logins."""
    from apps.core.throttles import WriteThrottle

    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES",
                        {**WriteThrottle.THROTTLE_RATES, "login": "3/min"})
    client, token = csrf_client()
    codes = [login(client, token, f"nobody{i}", "wrong").status_code for i in range(4)]
    assert codes == [400, 400, 400, 429]
    code, detail = client_error(login(client, token, "nobody9", "wrong").json())
    assert code == "throttled" and detail.startswith("操作太频繁")
    other, other_token = csrf_client()
    assert login(other, other_token, "nobody1", "wrong", REMOTE_ADDR="10.0.0.9").status_code == 400
