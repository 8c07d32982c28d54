"""No one appears under another player's name (issue 30, "Access"): shown names are unique
up to case and full/half width, at registration and on a profile change."""

from __future__ import annotations

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.accounts.forms import NAME_TAKEN
from apps.accounts.models import User, name_key

PASSWORD = "mahjong-Tiles-2025"
pytestmark = pytest.mark.django_db


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _register(client: Client, username: str, display_name: str) -> int:
    response = client.post("/accounts/register/", {
        "username": username, "display_name": display_name,
        "password1": PASSWORD, "password2": PASSWORD,
    })
    return response.status_code


@pytest.mark.parametrize("copy", ["owner", "OWNER", "Ｏｗｎｅｒ", " owner ", "ＯＷＮＥＲ"])
def test_a_member_cannot_take_the_owners_name_on_the_profile(client: Client, copy: str) -> None:
    User.objects.create_user("boss", display_name="Owner")
    member = User.objects.create_user("member1", display_name="小王")
    client.force_login(member)
    response = client.post("/accounts/profile/", {"display_name": copy})
    assert response.status_code == 400
    assert NAME_TAKEN in response.content.decode()
    member.refresh_from_db()
    assert member.display_name == "小王"
    # Keeping one's own name (in another width) is fine.
    assert client.post("/accounts/profile/", {"display_name": "小王"}).status_code == 302


def test_registration_refuses_a_name_already_shown(client: Client) -> None:
    User.objects.create_user("laozhang", display_name="老张")
    User.objects.create_user("Alice")  # no display name: shown as "Alice"
    assert _register(Client(), "new1", "老张") == 200
    assert _register(Client(), "new2", "ａｌｉｃｅ") == 200
    assert _register(Client(), "ALICE", "") == 200  # the username is the shown name here
    assert not User.objects.filter(username__in=["new1", "new2", "ALICE"]).exists()
    assert _register(client, "new3", "老李") == 302


@settings(max_examples=60, deadline=None)
@given(name=st.text(alphabet="abcdefxyzABCDEFXYZ0123456789_-小王老张李", min_size=1, max_size=12))
def test_name_key_ignores_case_and_width(name: str) -> None:
    key = name_key(name)
    assert name_key(name.upper()) == name_key(name.lower()) == key
    assert name_key(_fullwidth(name)) == key
    assert name_key(key) == key
    assert name_key(name + "1") != key
