"""Computer seats' names and levels (issue 45): each seat a distinct name, its level beside
it, chosen in the room form, the API and the rule template (快速开房 fills seats when the
template says so); the level reaches the advisor that moves for the seat."""

from __future__ import annotations

import importlib
from typing import Any
from unittest import mock

import pytest
from django.apps import apps as django_apps
from django.test import Client

from apps.accounts.models import User, name_key
from apps.clubs.models import Room, RoomSeat, RuleTemplate
from apps.clubs.services.computers import computer_user, room_computers_fill
from apps.clubs.services.rooms import room_create, room_ready_set, room_sit
from apps.matches import computer
from apps.matches.change import MatchChange, change_run
from apps.matches.models import MatchPlayer
from majiang import advisor
from tests.support.factories import table_settings
from tests.support.rounds import round_now
from tests.support.start import first_hand_contribute

from .conftest import World

pytestmark = pytest.mark.django_db


def _settings_fields(settings: dict[str, Any]) -> dict[str, Any]:
    """A settings form's fields (``s-``), an unticked box left out as a browser does."""
    return {f"s-{k}": ("on" if v is True else v) for k, v in settings.items() if v is not False}


def _names(room: Room) -> list[str]:
    return [str(s.user) for s in RoomSeat.objects.filter(room=room).select_related("user")
            .order_by("seat")]


def test_the_room_form_opens_a_room_whose_computers_play_easy(world: World) -> None:
    owner = world.client("owner")
    form = owner.get(f"/clubs/{world.club.pk}/rooms/new/?variant=duyun").content.decode()
    assert 'name="computer_level"' in form and "简单" in form and "标准" in form
    assert "不记入亲友圈账本（不记账）" in form  # said where 允许电脑补位 is ticked
    response = owner.post(f"/clubs/{world.club.pk}/rooms/new/", {
        "variant": "duyun", "allow_computers": "on", "computer_level": "easy", "hints": "on",
        **_settings_fields(table_settings("duyun")),
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    room = Room.objects.get(code=response["Location"].rstrip("/").rsplit("/", 1)[-1])
    assert room.computer_level == "easy"
    room_sit(room=room, user=world.owner, seat=0)
    room_computers_fill(room=room, actor=world.owner)
    assert _names(room) == [
        "圈主老张", "电脑·小梅（简单）", "电脑·阿竹（简单）", "电脑·小兰（简单）"]
    easy = User.objects.filter(is_computer=True, computer_level="easy")
    assert easy.count() == 3 and len({u.shown_key for u in easy}) == 3
    # A level is its own account: the club's 标准 computers keep theirs.
    assert computer_user(world.club, 1).pk not in {u.pk for u in easy}
    assert "电脑水平：简单" in owner.get(f"/rooms/{room.code}/").content.decode()


def test_the_api_takes_the_level_and_refuses_an_unknown_one(world: World) -> None:
    client = Client()
    client.force_login(world.owner)
    url = f"/api/clubs/{world.club.pk}/rooms/"
    body = {"variant": "zigong", "settings": {"players": 3}, "allow_computers": True}
    made = client.post(url, {**body, "computer_level": "easy"}, content_type="application/json")
    assert made.status_code == 201, made.content
    assert made.json()["computer_level"] == "easy"
    plain = client.post(url, body, content_type="application/json").json()
    assert plain["computer_level"] == "standard"  # 标准 when left out
    bad = client.post(url, {**body, "computer_level": "godlike"},
                      content_type="application/json")
    assert bad.status_code == 400 and "电脑水平" in str(bad.json())
    schema = client.get("/api/schema/?format=json").json()
    level = schema["components"]["schemas"]["RoomCreateInput"]["properties"]["computer_level"]
    assert "简单" in level["description"] and "标准" in level["description"]


def test_quick_open_from_a_template_fills_the_seats_when_it_says_so(world: World) -> None:
    client = Client()
    client.force_login(world.owner)
    made = client.post(f"/api/clubs/{world.club.pk}/templates/", {
        "name": "陪练", "variant": "zigong", "settings": {"players": 3},
        "computers_fill": True, "computer_level": "easy",
    }, content_type="application/json")
    assert made.status_code == 201, made.content
    assert made.json()["allow_computers"] and made.json()["computer_level"] == "easy"
    template = RuleTemplate.objects.get(name="陪练")
    opened = client.post(f"/clubs/{world.club.pk}/quick/{template.pk}/")
    assert opened.status_code == 302
    room = Room.objects.latest("pk")
    assert room.allow_computers and room.computer_level == "easy"
    assert _names(room) == ["圈主老张", "电脑·小梅（简单）", "电脑·阿竹（简单）"]
    assert [s.ready for s in RoomSeat.objects.filter(room=room)] == [False, True, True]
    # A template that does not say so only sits its opener.
    plain = world.client("admin").post(f"/clubs/{world.club.pk}/quick/{world.template.pk}/")
    assert plain.status_code == 302 and _names(Room.objects.latest("pk")) == ["管理小李"]


def test_the_template_page_keeps_the_computer_options(world: World) -> None:
    owner = world.client("owner")
    url = f"/clubs/{world.club.pk}/templates/{world.template.pk}/"
    page = owner.get(url).content.decode()
    assert 'name="computers_fill"' in page and 'name="computer_level"' in page
    response = owner.post(url, {"name": "标准", "variant": world.template.variant,
                                "computers_fill": "on", "computer_level": "easy",
                                **_settings_fields(world.template.settings)})
    assert response.status_code == 302, response.content.decode()[:3000]
    world.template.refresh_from_db()
    assert world.template.computers_fill and world.template.allow_computers
    assert world.template.computer_level == "easy"


@pytest.mark.django_db(transaction=True)
def test_the_advisor_moves_each_computer_at_its_level() -> None:
    from tests.support import factories

    key = factories.tag()
    owner = factories.user(f"o_{key}", display_name="张三")
    club = factories.club(owner)
    room = room_create(club=club, actor=owner, variant="duyun",
                       settings=table_settings("duyun"), practice=True, computer_level="easy")
    room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(room.matches.get())
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    assert [computer.seat_level(p) for p in players] == ["standard", "easy", "easy", "easy"]
    levels: dict[int, str] = {}

    def advise(change: MatchChange) -> None:
        for player in change.players:  # the advisor is asked at the seat's level
            asked: list[str] = []
            with mock.patch.object(computer, "choose",
                                   lambda *a, asked=asked, **kw: asked.append(kw["level"])):
                computer.advised_action(change, player)
            levels[player.seat], = asked

    change_run(match.pk, advise)
    assert levels == {0: "standard", 1: "easy", 2: "easy", 3: "easy"}
    # …and 简单 is a real level of the advisor, not a name: it plays from the observation.
    rnd = round_now(match)
    seat = rnd.pending()[0]
    assert advisor.choose(rnd.observation(seat), rnd.legal_actions(seat), level="easy",
                          seed="s", settings=match.settings) in rnd.legal_actions(seat)


def test_the_rename_migration_names_old_computer_accounts_by_slot() -> None:
    old = [User.objects.create_user(f"computer-9-{slot}", display_name="电脑", is_computer=True)
           for slot in (1, 2, 3)]
    User.objects.filter(pk__in=[u.pk for u in old]).update(computer_level="")
    migration = importlib.import_module("apps.accounts.migrations.0008_computer_names_and_levels")
    migration._name_computers(django_apps, None)
    renamed = [User.objects.get(pk=u.pk) for u in old]
    assert [str(u) for u in renamed] == [
        "电脑·小梅（标准）", "电脑·阿竹（标准）", "电脑·小兰（标准）"]
    assert all(u.shown_key == name_key(str(u)) for u in renamed)
