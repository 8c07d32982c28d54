"""Chinese password errors, 忘记密码 by email, registering from a shared link, and the
profile's 昵称, avatar colour and email."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from apps.accounts.models import AVATAR_COLORS, User

pytestmark = pytest.mark.django_db
ASCII_WORDS = re.compile(r"[A-Za-z]{4,}")


def _errors(page: str) -> list[str]:
    return re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)


def test_password_errors_are_all_chinese(client: Client) -> None:
    response = client.post(
        "/accounts/register/",
        {"username": "shorty", "display_name": "小短", "password1": "1234", "password2": "1234"},
    )
    page = response.content.decode()
    errors = " ".join(_errors(page))
    assert "密码太短，至少需要 8 个字符" in errors
    assert "密码只包含数字" in errors
    assert not ASCII_WORDS.search(re.sub(r"<[^>]+>", "", errors)), errors


def test_login_error_is_chinese(client: Client) -> None:
    User.objects.create_user("wang", password="right-pass-123")
    page = client.post(
        "/accounts/login/", {"username": "wang", "password": "wrong-pass-123"}
    ).content.decode()
    assert "请输入一个正确的" in page
    assert "忘记密码" in page


def test_forgot_password_mails_a_link_that_sets_a_new_password(client: Client) -> None:
    user = User.objects.create_user("li", email="li@example.com", password="old-pass-123")
    response = client.post("/accounts/password/reset/", {"email": "li@example.com"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == "麻将亲友圈：重置密码"
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", message.body)
    assert link is not None
    page = client.get(link.group(1), follow=True)
    assert "设置新密码" in page.content.decode()
    done = client.post(
        page.redirect_chain[-1][0],
        {"new_password1": "new-pass-4567", "new_password2": "new-pass-4567"},
    )
    assert done["Location"] == "/accounts/password/reset/complete/"
    user.refresh_from_db()
    assert user.check_password("new-pass-4567")
    # Used once, the link is dead.
    again = client.get(link.group(1), follow=True).content.decode()
    assert "已经用过或已失效" in again


def test_forgot_password_for_an_unknown_email_tells_nothing(client: Client) -> None:
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_register_from_a_shared_link_returns_to_it(client: Client) -> None:
    response = client.post(
        "/accounts/register/?next=/rooms/123456/",
        {
            "username": "newfriend",
            "display_name": "新朋友",
            "password1": "mj-pass-2468",
            "password2": "mj-pass-2468",
            "next": "/rooms/123456/",
        },
    )
    assert response["Location"] == "/rooms/123456/"


def test_register_ignores_an_outside_next(client: Client) -> None:
    response = client.post(
        "/accounts/register/",
        {
            "username": "other",
            "display_name": "别人",
            "password1": "mj-pass-2468",
            "password2": "mj-pass-2468",
            "next": "https://evil.example/",
        },
    )
    assert response["Location"] == "/"


def test_profile_sets_nickname_avatar_colour_and_email(client: Client) -> None:
    user = User.objects.create_user("zhao")
    client.force_login(user)
    colour = AVATAR_COLORS[2][0]
    response = client.post(
        "/accounts/profile/",
        {"display_name": "赵六", "avatar_color": colour, "email": "zhao@example.com"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.avatar_color, user.email) == (
        "赵六", colour, "zhao@example.com"
    )
    page = client.get("/").content.decode()
    assert f'background: {colour}">赵</span>' in page


def test_profile_refuses_an_unknown_colour_in_chinese(client: Client) -> None:
    client.force_login(User.objects.create_user("qian"))
    page = client.post(
        "/accounts/profile/", {"display_name": "钱", "avatar_color": "#123456"}
    ).content.decode()
    assert "选择一个有效的选项" in page


def test_forgot_password_is_rate_limited_per_address_and_per_email(client: Client) -> None:
    """The review sent 15 reset mails in a row to one address (issue 48)."""
    User.objects.create_user("li", email="li@example.com", password="old-pass-123")
    for _ in range(5):
        response = client.post("/accounts/password/reset/", {"email": "li@example.com"})
        assert response.status_code == 302
    refused = client.post("/accounts/password/reset/", {"email": "li@example.com"},
                          REMOTE_ADDR="198.51.100.9")  # another address, the same mailbox
    assert refused.status_code == 429
    assert "重置密码的请求过于频繁，请一小时后再试" in refused.content.decode()
    assert len(mail.outbox) == 5
    other = client.post("/accounts/password/reset/", {"email": "wang@example.com"})
    assert other.status_code == 429  # this address is spent too
