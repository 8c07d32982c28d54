"""Every validation error of the API: 400 with a message per field, nothing changed."""

from __future__ import annotations

from typing import Any

import pytest

from apps.clubs.models import Club, JoinRequest, Membership
from majiang.settings import Setting
from majiang.variants import player_variants
from tests.support.api import error_fields

from .conftest import FIRST_VARIANT, World, db_snapshot, fill_room, make_user


def bad_values(setting: Setting) -> list[Any]:
    """Values the setting must refuse: wrong type, out of range, not a choice."""
    if setting.kind == "bool":
        return ["yes", 1]
    if setting.kind == "int":
        values: list[Any] = ["3", True, 1.5]
        if setting.maximum is not None:
            values.append(setting.maximum + 1)
        if setting.minimum is not None:
            values.append(setting.minimum - 1)
        if setting.choices:
            values.append(max(setting.choices) + 1)
        return values
    return ["__不存在的选项__", True]


BAD_SETTINGS = [
    pytest.param(variant.id, setting.name, value, id=f"{variant.id}.{setting.name}={value!r}")
    for variant in player_variants()
    for setting in variant.schema.settings
    for value in bad_values(setting)
]


def post(world: World, role: str, url: str, payload: Any, method: str = "post") -> Any:
    before = db_snapshot()
    response = getattr(world.client(role), method)(url, payload, content_type="application/json")
    assert response.status_code == 400, response.content.decode()
    assert db_snapshot() == before, "a refused request changed the database"
    return error_fields(response.json())


@pytest.mark.parametrize(("variant_id", "name", "value"), BAD_SETTINGS)
def test_template_refuses_bad_setting_value(
    world: World, variant_id: str, name: str, value: Any
) -> None:
    body = post(
        world,
        "admin",
        f"/api/clubs/{world.club.pk}/templates/",
        {"name": "坏模板", "variant": variant_id, "settings": {name: value}},
    )
    assert list(body) == ["settings"]
    assert list(body["settings"]) == [name]
    assert body["settings"][name][0]


@pytest.mark.parametrize(("variant_id", "name", "value"), BAD_SETTINGS)
def test_room_refuses_bad_setting_value(
    world: World, variant_id: str, name: str, value: Any
) -> None:
    body = post(
        world,
        "owner",
        f"/api/clubs/{world.club.pk}/rooms/",
        {"variant": variant_id, "settings": {name: value}},
    )
    assert list(body["settings"]) == [name]


@pytest.mark.parametrize("variant_id", [variant.id for variant in player_variants()])
def test_unknown_setting(world: World, variant_id: str) -> None:
    body = post(
        world,
        "owner",
        f"/api/clubs/{world.club.pk}/templates/",
        {"name": "模板", "variant": variant_id, "settings": {"flowers": True}},
    )
    assert body == {"settings": {"flowers": ["未知的设置项"]}}


def test_unknown_variant(world: World) -> None:
    body = post(
        world,
        "owner",
        f"/api/clubs/{world.club.pk}/templates/",
        {"name": "模板", "variant": "riichi", "settings": {}},
    )
    assert body == {"variant": ["未知的玩法: riichi"]}
    body = post(world, "owner", f"/api/clubs/{world.club.pk}/rooms/", {"variant": "riichi"})
    assert list(body) == ["variant"]


def test_room_variant_must_match_its_template(world: World) -> None:
    other = next(v.id for v in player_variants() if v.id != FIRST_VARIANT)
    body = post(
        world,
        "owner",
        f"/api/clubs/{world.club.pk}/rooms/",
        {"template_id": world.template.pk, "variant": other},
    )
    assert body == {"variant": ["玩法与规则模板不一致"]}


def test_room_needs_a_variant_or_template(world: World) -> None:
    body = post(world, "owner", f"/api/clubs/{world.club.pk}/rooms/", {"name": "空"})
    assert body == {"variant": ["请选择玩法或规则模板"]}


def test_settings_must_be_an_object(world: World) -> None:
    body = post(
        world,
        "owner",
        f"/api/clubs/{world.club.pk}/templates/",
        {"name": "模板", "variant": FIRST_VARIANT, "settings": [1, 2]},
    )
    assert list(body) == ["settings"]


def test_template_name_rules(world: World) -> None:
    url = f"/api/clubs/{world.club.pk}/templates/"
    base = {"variant": FIRST_VARIANT, "settings": {}}
    assert post(world, "owner", url, {**base, "name": "标准"}) == {"name": ["已有同名的规则模板"]}
    assert list(post(world, "owner", url, {**base, "name": ""})) == ["name"]
    assert list(post(world, "owner", url, {**base, "name": "长" * 41})) == ["name"]
    assert list(post(world, "owner", url, base)) == ["name"]


def test_template_update_validates_against_the_schema(world: World) -> None:
    url = f"/api/clubs/{world.club.pk}/templates/{world.template.pk}/"
    body = post(world, "owner", url, {"settings": {"nope": 1}}, method="patch")
    assert body == {"settings": {"nope": ["未知的设置项"]}}
    body = post(world, "owner", url, {"variant": "riichi"}, method="patch")
    assert list(body) == ["variant"]


def test_club_create_rules(world: World) -> None:
    assert list(post(world, "outsider", "/api/clubs/", {"name": "  "})) == ["name"]
    assert list(post(world, "outsider", "/api/clubs/", {"name": "长" * 41})) == ["name"]
    # The schema's maxLength counts what is sent: trimming a tab does not make 41 fit 40.
    assert list(post(world, "outsider", "/api/clubs/", {"name": "\t" + "长" * 40})) == ["name"]
    body = post(world, "outsider", "/api/clubs/", {"name": "圈", "member_cap": 1})
    assert body == {"member_cap": ["人数上限应在 2 到 1000 之间"]}
    body = post(world, "outsider", "/api/clubs/", {"name": "圈", "notice": "字" * 501})
    assert list(body) == ["notice"]
    body = post(world, "outsider", "/api/clubs/", {"name": "圈", "member_cap": "many"})
    assert list(body) == ["member_cap"]


def test_member_cap_not_below_member_count(world: World) -> None:
    body = post(world, "owner", f"/api/clubs/{world.club.pk}/", {"member_cap": 3}, method="patch")
    assert body == {"member_cap": ["人数上限不能小于现有成员数"]}


def test_role_must_be_admin_or_member(world: World) -> None:
    url = f"/api/clubs/{world.club.pk}/members/{world.member.pk}/"
    assert list(post(world, "owner", url, {"role": "owner"}, method="patch")) == ["role"]


def test_transfer_to_oneself(world: World) -> None:
    url = f"/api/clubs/{world.club.pk}/transfer/"
    body = post(world, "owner", url, {"user_id": world.owner.pk})
    assert body == {"user": ["该用户已经是圈主"]}
    missing = world.client("owner").post(url, {"user_id": world.outsider.pk})
    assert missing.status_code == 404


def test_join_request_rules(world: World) -> None:
    assert list(post(world, "outsider", "/api/join-requests/", {})) == ["club_id"]
    body = post(world, "applicant", "/api/join-requests/", {"club_id": world.club.pk})
    assert body == {"non_field_errors": ["你已提交过申请，请等待审核"]}
    body = post(world, "member", "/api/join-requests/", {"club_id": world.club.pk})
    assert body == {"non_field_errors": ["你已经是该亲友圈成员"]}
    body = post(
        world, "outsider", "/api/join-requests/", {"club_id": world.club.pk, "message": "字" * 101}
    )
    assert list(body) == ["message"]
    missing = world.client("outsider").post(
        "/api/join-requests/", {"invite_code": "NOPE"}, content_type="application/json"
    )
    assert missing.status_code == 404


def test_join_by_invite_code(world: World) -> None:
    response = world.client("outsider").post(
        "/api/join-requests/",
        {"invite_code": world.club.invite_code.lower()},
        content_type="application/json",
    )
    assert response.status_code == 201
    assert response.json()["status"] == "pending"


def test_decided_request_cannot_be_decided_again(world: World) -> None:
    url = f"/api/join-requests/{world.join_request.pk}/"
    assert world.client("owner").post(url + "reject/").status_code == 200
    assert post(world, "admin", url + "approve/", None) == {"non_field_errors": ["该申请已处理"]}


def test_full_club_refuses_approval(world: World) -> None:
    Club.objects.filter(pk=world.club.pk).update(member_cap=Membership.objects.count())
    body = post(world, "owner", f"/api/join-requests/{world.join_request.pk}/approve/", None)
    assert body == {"non_field_errors": ["亲友圈已满 (4 人)"]}
    assert JoinRequest.objects.get().status == "pending"


def test_seat_rules(world: World) -> None:
    url = f"/api/rooms/{world.room.code}/sit/"
    seats = world.room.seat_count
    body = post(world, "member", url, {"seat": seats})
    assert body == {"seat": [f"座位号应在 0 到 {seats - 1} 之间"]}
    assert list(post(world, "member", url, {"seat": -1})) == ["seat"]
    assert list(post(world, "member", url, {"seat": "靠窗"})) == ["seat"]
    fill_room(world.room, [world.owner], ready=False)
    assert post(world, "member", url, {"seat": 0}) == {"seat": ["该座位已有人"]}


def test_one_table_at_a_time(world: World) -> None:
    other = world.client("owner").post(
        f"/api/clubs/{world.club.pk}/rooms/",
        {"template_id": world.template.pk},
        content_type="application/json",
    )
    fill_room(world.room, [world.member], ready=False)
    body = post(world, "member", f"/api/rooms/{other.json()['code']}/sit/", {})
    assert body == {"non_field_errors": ["你已在其他房间入座，请先离座"]}


def test_full_room(world: World) -> None:
    players = [make_user(f"p{i}") for i in range(world.room.seat_count)]
    fill_room(world.room, players, ready=False)
    assert post(world, "member", f"/api/rooms/{world.room.code}/sit/", {}) == {"seat": ["座位已满"]}


def test_ready_needs_a_boolean(world: World) -> None:
    fill_room(world.room, [world.member], ready=False)
    body = post(world, "member", f"/api/rooms/{world.room.code}/ready/", {"ready": "也许"})
    assert list(body) == ["ready"]


def test_engine_test_variant_is_not_offered_or_accepted(world: World) -> None:
    listed = world.client("member").get("/api/variants/").json()
    assert "basic" not in [variant["id"] for variant in listed]
    body = post(world, "owner", f"/api/clubs/{world.club.pk}/templates/",
                {"name": "模板", "variant": "basic"})
    assert body == {"variant": ["未知的玩法: basic"]}
    body = post(world, "owner", f"/api/clubs/{world.club.pk}/rooms/", {"variant": "basic"})
    assert body == {"variant": ["未知的玩法: basic"]}


def test_limits_are_the_services_limits(world: World) -> None:
    """The serializers (and so the schema) say what the services enforce."""
    url = f"/api/clubs/{world.club.pk}/"
    assert list(post(world, "owner", url, {"name": "长" * 41}, method="patch")) == ["name"]
    assert list(post(world, "owner", url, {"notice": "字" * 501}, method="patch")) == ["notice"]
    body = post(world, "owner", url, {"member_cap": 1001}, method="patch")
    assert body == {"member_cap": ["人数上限应在 2 到 1000 之间"]}
    rooms = f"/api/clubs/{world.club.pk}/rooms/"
    assert list(post(world, "owner", rooms, {"template_id": world.template.pk,
                                            "name": "房" * 41})) == ["name"]
    ok = world.client("owner").patch(url, {"name": "长" * 40, "notice": "字" * 500,
                                           "member_cap": 1000}, content_type="application/json")
    assert ok.status_code == 200


def test_search_needs_a_club_id_or_an_invite_code(world: World) -> None:
    response = world.client("outsider").get("/api/clubs/search/")
    assert response.status_code == 400
    assert error_fields(response.json()) == {"club_id": ["请填写圈号或邀请码"]}
    found = world.client("outsider").get(
        "/api/clubs/search/", {"invite_code": world.club.invite_code}
    )
    assert found.json()["id"] == world.club.pk
