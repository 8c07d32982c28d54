"""Look-alike names (issue 47, item 8): a shown name that hides characters, mixes look-alike
letters of other scripts, imitates another player's name with them, or passes for a computer
seat is refused with a Chinese reason, and nothing is saved."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import User, name_key
from apps.clubs.services.clubs import club_create
from apps.clubs.services.computers import computer_user

PASSWORD = "mahjong-Tiles-2025"
pytestmark = pytest.mark.django_db


def errors_of(page: str) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S))


def register(username: str, display_name: str) -> str:
    response = Client().post("/accounts/register/", {
        "username": username, "display_name": display_name,
        "password1": PASSWORD, "password2": PASSWORD,
    })
    if response.status_code == 302:
        return ""
    assert response.status_code == 200
    assert not User.objects.filter(username=username).exists()
    return errors_of(response.content.decode())


@pytest.mark.parametrize("name", ["小\u200b王", "\u200d老张", "王五\u2060", "Ann\u202e"])
def test_a_name_with_invisible_characters_is_refused(name: str) -> None:
    assert "看不见的字符" in register("new1", name)


@pytest.mark.parametrize("name", ["Ivаn", "Gаme哥", "Ѕam"])  # Cyrillic а and Ѕ among Latin
def test_a_name_mixing_look_alike_letters_of_two_scripts_is_refused(name: str) -> None:
    assert "外形相近的不同文字" in register("new1", name)


@pytest.mark.parametrize("copy", ["ａｌｉｃｅ", "ＡＬＩＣＥ", "Ａlice"])  # full-width forms
def test_a_name_imitating_another_players_is_refused(copy: str) -> None:
    User.objects.create_user("alice", display_name="Alice")
    assert "看起来一样" in register("new1", copy)


def test_a_cyrillic_name_that_reads_as_a_latin_one_is_refused() -> None:
    User.objects.create_user("pop", display_name="pop")
    assert "看起来一样" in register("new1", "рор")  # all Cyrillic: not mixed, still a copy


@pytest.mark.parametrize("name", ["电脑", "电脑2", "小电脑", "computer-1-2", "Computer",
                                  "电脑·小梅", "电脑·阿竹（标准）", "電腦·小蘭", "电脑・阿菊"])
def test_names_passing_for_a_computer_seat_are_refused(name: str) -> None:
    assert "电脑玩家的名字" in register("new1", name)
    # The username is the shown name when the display name is left empty.
    if name.isascii():
        assert "电脑玩家的名字" in register(name, "")


def test_the_profile_page_refuses_a_computer_seats_name() -> None:
    owner = User.objects.create_user("boss", display_name="老板")
    club = club_create(owner=owner, name="周末")
    assert str(computer_user(club, 1)) == "电脑·小梅（标准）"
    client = Client()
    client.force_login(owner)
    response = client.post("/accounts/profile/", {"display_name": "电脑·小梅"})
    assert response.status_code == 400
    assert "电脑玩家的名字" in errors_of(response.content.decode())
    owner.refresh_from_db()
    assert owner.display_name == "老板"


@pytest.mark.parametrize(
    "name", ["张三", "老K", "小明！", "Zhang San", "Иван", "田中カナ", "王五·2"]
)
def test_ordinary_names_are_accepted(name: str) -> None:
    assert register("new1", name) == ""
    assert User.objects.get(username="new1").shown_key == name_key(name)
