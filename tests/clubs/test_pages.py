"""The club pages: the permission matrix (exact status codes) and the main flows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apps.clubs.models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate
from majiang.variants import VARIANTS, player_variants

from .conftest import FIRST_VARIANT, ROLES, World, db_snapshot

Page = Callable[[World], tuple[str, str, dict[str, Any] | None]]


def settings_post(variant_id: str, **overrides: Any) -> dict[str, Any]:
    """The POST data of a settings form left at its defaults (bools off when False)."""
    data: dict[str, Any] = {"variant": variant_id}
    for setting in VARIANTS[variant_id].schema.settings:
        value = overrides.get(setting.name, setting.default)
        if setting.kind == "bool":
            if value:
                data[f"s-{setting.name}"] = "on"
        else:
            data[f"s-{setting.name}"] = str(value)
    return data


PAGES: dict[str, tuple[Page, tuple[int, int, int, int, int]]] = {
    # name: (request, statuses for anonymous, outsider, member, admin, owner)
    "my clubs": (lambda w: ("get", "/clubs/", None), (302, 200, 200, 200, 200)),
    "create club": (
        lambda w: ("post", "/clubs/new/", {"create-name": "新圈", "create-member_cap": 50}),
        (302, 302, 302, 302, 302),
    ),
    # A non-member (or visitor) on a club's or room's link sees the club's name and 申请加入.
    "club page": (lambda w: ("get", f"/clubs/{w.club.pk}/", None), (200, 200, 200, 200, 200)),
    "save settings": (
        lambda w: (
            "post",
            f"/clubs/{w.club.pk}/settings/",
            {"settings-name": "改名", "settings-member_cap": 100, "settings-is_open": "on"},
        ),
        (302, 404, 403, 302, 302),
    ),
    "regenerate invite code": (
        lambda w: ("post", f"/clubs/{w.club.pk}/invite-code/", {}),
        (302, 404, 403, 302, 302),
    ),
    "approve": (
        lambda w: ("post", f"/clubs/{w.club.pk}/requests/{w.join_request.pk}/approve/", {}),
        (302, 404, 403, 302, 302),
    ),
    "reject": (
        lambda w: ("post", f"/clubs/{w.club.pk}/requests/{w.join_request.pk}/reject/", {}),
        (302, 404, 403, 302, 302),
    ),
    "appoint admin": (
        lambda w: ("post", f"/clubs/{w.club.pk}/members/{w.member2.pk}/role/", {"role": "admin"}),
        (302, 404, 403, 403, 302),
    ),
    "remove member": (
        lambda w: ("post", f"/clubs/{w.club.pk}/members/{w.member2.pk}/remove/", {}),
        (302, 404, 403, 302, 302),
    ),
    "remove admin": (
        lambda w: ("post", f"/clubs/{w.club.pk}/members/{w.admin.pk}/remove/", {}),
        (302, 404, 403, 403, 302),
    ),
    "transfer ownership": (
        lambda w: ("post", f"/clubs/{w.club.pk}/members/{w.member2.pk}/transfer/", {}),
        (302, 404, 403, 403, 302),
    ),
    "new template page": (
        lambda w: ("get", f"/clubs/{w.club.pk}/templates/new/", None),
        (302, 404, 403, 200, 200),
    ),
    "create template": (
        lambda w: (
            "post",
            f"/clubs/{w.club.pk}/templates/new/",
            {"name": "新模板", **settings_post(FIRST_VARIANT)},
        ),
        (302, 404, 403, 302, 302),
    ),
    "edit template page": (
        lambda w: ("get", f"/clubs/{w.club.pk}/templates/{w.template.pk}/", None),
        (302, 404, 403, 200, 200),
    ),
    "delete template": (
        lambda w: ("post", f"/clubs/{w.club.pk}/templates/{w.template.pk}/delete/", {}),
        (302, 404, 403, 302, 302),
    ),
    "new room page": (
        lambda w: ("get", f"/clubs/{w.club.pk}/rooms/new/", None),
        (302, 404, 403, 200, 200),
    ),
    "open room": (
        lambda w: ("post", f"/clubs/{w.club.pk}/rooms/new/", settings_post(FIRST_VARIANT)),
        (302, 404, 403, 302, 302),
    ),
    "lobby": (lambda w: ("get", f"/rooms/{w.room.code}/", None), (200, 200, 200, 200, 200)),
    "sit": (
        lambda w: ("post", f"/rooms/{w.room.code}/sit/", {"seat": "0"}),
        (302, 404, 302, 302, 302),
    ),
    "close room": (
        lambda w: ("post", f"/rooms/{w.room.code}/close/", {}),
        (302, 404, 403, 302, 302),
    ),
}

CASES = [
    pytest.param(page, role, expected[i], id=f"{page}-{role}")
    for page, (_, expected) in PAGES.items()
    for i, role in enumerate(ROLES)
]


@pytest.mark.parametrize(("page", "role", "expected"), CASES)
def test_page_permission_matrix(world: World, page: str, role: str, expected: int) -> None:
    method, url, data = PAGES[page][0](world)
    before = db_snapshot()
    response = getattr(world.client(role), method)(url, data)
    assert response.status_code == expected
    if role == "anonymous" and expected == 302:
        assert response["Location"].startswith("/accounts/login/")
    if expected in (403, 404):
        assert db_snapshot() == before


def test_forms_carry_csrf_tokens(world: World) -> None:
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    page = client.get(f"/clubs/{world.club.pk}/").content.decode()
    assert page.count("<form") == page.count('<input type="hidden" name="csrfmiddlewaretoken"')
    assert client.post(f"/clubs/{world.club.pk}/invite-code/").status_code == 403


def test_club_page_shows_everything_to_the_owner(world: World) -> None:
    page = world.client("owner").get(f"/clubs/{world.club.pk}/").content.decode()
    for text in (
        "周末麻将圈",
        world.club.invite_code,
        "申请人",
        "带我一个",
        "标准",
        "123456",
        "管理小李",
        "设为管理员",
        "转让圈主",
        "亲友圈设置",
    ):
        assert text in page
    member_page = world.client("member").get(f"/clubs/{world.club.pk}/").content.decode()
    assert "申请人" not in member_page
    assert "亲友圈设置" not in member_page


@pytest.mark.parametrize("variant_id", [variant.id for variant in player_variants()])
def test_room_form_is_generated_from_the_schema(world: World, variant_id: str) -> None:
    page = world.client("admin").get(f"/clubs/{world.club.pk}/rooms/new/?variant={variant_id}")
    html = page.content.decode()
    for setting in VARIANTS[variant_id].schema.settings:
        assert f'name="s-{setting.name}"' in html
        assert setting.description in html
        # a choice is offered by its Chinese name, posting its value
        for value in setting.choices if setting.kind == "choice" else ():
            assert f'<option value="{value}"' in html
            assert f">{setting.display(value)}</option>" in html


@pytest.mark.parametrize("variant_id", [variant.id for variant in player_variants()])
def test_open_room_from_the_page(world: World, variant_id: str) -> None:
    data = {"name": "晚场", "allow_spectators": "on", **settings_post(variant_id)}
    response = world.client("owner").post(f"/clubs/{world.club.pk}/rooms/new/", data)
    room = Room.objects.exclude(pk=world.room.pk).get()
    assert response["Location"] == f"/rooms/{room.code}/"
    assert room.settings == VARIANTS[variant_id].schema.defaults()
    assert room.name == "晚场"


def test_open_room_from_template_page(world: World) -> None:
    data = {"template": world.template.pk, **settings_post(FIRST_VARIANT, base_stake=7)}
    world.client("admin").post(f"/clubs/{world.club.pk}/rooms/new/", data)
    room = Room.objects.exclude(pk=world.room.pk).get()
    assert room.template == world.template
    assert room.base_stake == 7


def test_bad_setting_on_the_page_shows_errors_and_saves_nothing(world: World) -> None:
    setting = next(s for s in VARIANTS[FIRST_VARIANT].schema.settings if s.maximum is not None)
    data = {"name": "坏模板", **settings_post(FIRST_VARIANT, **{setting.name: setting.maximum + 1})}
    before = db_snapshot()
    response = world.client("owner").post(f"/clubs/{world.club.pk}/templates/new/", data)
    assert response.status_code == 400
    page = response.content.decode()
    assert "errorlist" in page
    # The page comes back at its top, which names the field and links to it.
    notice = page.split('id="form-problems">', 1)[1].split("</p>", 1)[0]
    assert notice.startswith("还有 1 项需要修改：")
    target = notice.split('<a href="#', 1)[1].split('"', 1)[0]
    assert f'">{setting.label}</a>' in notice and f'id="{target}"' in page
    assert db_snapshot() == before


def test_paused_club_page_refuses_new_rooms(world: World) -> None:
    Club.objects.filter(pk=world.club.pk).update(is_open=False)
    response = world.client("owner").post(
        f"/clubs/{world.club.pk}/rooms/new/", settings_post(FIRST_VARIANT)
    )
    assert response.status_code == 400
    assert "打烊" in response.content.decode()
    assert Room.objects.count() == 1


def test_edit_template_page(world: World) -> None:
    data = {"name": "改过的", **settings_post(FIRST_VARIANT)}
    response = world.client("admin").post(
        f"/clubs/{world.club.pk}/templates/{world.template.pk}/", data
    )
    assert response.status_code == 302
    assert RuleTemplate.objects.get().name == "改过的"


def test_join_flow_through_pages(world: World) -> None:
    client = world.client("outsider")
    client.post("/clubs/join/", {"join-club_id": world.club.pk, "join-message": "嗨"})
    request = JoinRequest.objects.get(user=world.outsider)
    assert "申请" in client.get("/clubs/").content.decode()
    world.client("admin").post(f"/clubs/{world.club.pk}/requests/{request.pk}/approve/")
    assert Membership.objects.filter(user=world.outsider, club=world.club).exists()
    assert client.get(f"/clubs/{world.club.pk}/").status_code == 200
    client.post(f"/clubs/{world.club.pk}/leave/")
    assert not Membership.objects.filter(user=world.outsider).exists()


def test_an_invite_code_in_the_join_form_joins_at_once(world: World) -> None:
    client = world.client("outsider")
    response = client.post("/clubs/join/", {"join-invite_code": world.club.invite_code.lower()})
    assert response["Location"] == f"/clubs/{world.club.pk}/"
    assert Membership.objects.filter(user=world.outsider, club=world.club).exists()


def test_owner_leaving_gets_a_message(world: World) -> None:
    response = world.client("owner").post(f"/clubs/{world.club.pk}/leave/", follow=True)
    assert "圈主不能退出" in response.content.decode()


def test_lobby_actions_via_fetch_return_json(world: World) -> None:
    client = world.client("member")
    headers = {"X-Requested-With": "fetch"}
    response = client.post(f"/rooms/{world.room.code}/sit/", {"seat": "1"}, headers=headers)
    assert response.json() == {"ok": True}
    response = client.post(f"/rooms/{world.room.code}/ready/", {"ready": "1"}, headers=headers)
    assert RoomSeat.objects.get(user=world.member).ready
    other = world.client("member2").post(
        f"/rooms/{world.room.code}/sit/", {"seat": "1"}, headers=headers
    )
    assert other.status_code == 400
    assert other.json() == {"error": "该座位已有人"}


def test_lobby_page_shows_seats_and_rules(world: World) -> None:
    RoomSeat.objects.create(room=world.room, seat=0, user=world.member, ready=True)
    html = world.client("owner").get(f"/rooms/{world.room.code}/").content.decode()
    assert "王五" in html
    assert "已准备" in html
    assert 'id="lobby-state"' in html
    for setting in VARIANTS[FIRST_VARIANT].schema.settings:
        assert setting.description in html


def test_lobby_names_the_rooms_choices_in_chinese(world: World) -> None:
    """The rules shown in the lobby read 点炮者, not ``discarder``."""
    room, schema = world.room, VARIANTS["duyun"].schema
    choice = schema["multi_win_dealer"]
    room.variant = "duyun"
    room.settings = {**schema.defaults(), choice.name: "discarder"}
    room.save(update_fields=["variant", "settings"])
    html = world.client("owner").get(f"/rooms/{room.code}/").content.decode()
    assert "<dd>点炮者 " in html
    assert "<dd>discarder " not in html


@pytest.mark.parametrize("template", ["abc", "9" * 30])
def test_room_page_with_a_bad_template_id_is_404(world: World, template: str) -> None:
    response = world.client("owner").get(f"/clubs/{world.club.pk}/rooms/new/?template={template}")
    assert response.status_code == 404


def test_forbidden_page_explains_why_in_chinese(world: World) -> None:
    response = world.client("member").post(f"/clubs/{world.club.pk}/invite-code/")
    assert response.status_code == 403
    assert "只有圈主和管理员可以重置邀请码" in response.content.decode()
