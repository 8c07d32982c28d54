"""The pages of computer players: 电脑补位 in the lobby, 开练习房, and taking a computer seat
from the table page."""

from __future__ import annotations

import pytest

from apps.clubs.models import Room, RoomSeat

from .conftest import World

pytestmark = pytest.mark.django_db


def _allow(world: World) -> Room:
    Room.objects.filter(pk=world.room.pk).update(allow_computers=True)
    world.room.refresh_from_db()
    return world.room


def test_the_creator_sees_and_uses_the_fill_button(world: World) -> None:
    room = _allow(world)
    owner = world.client("owner")
    owner.post(f"/rooms/{room.code}/sit/", {"seat": "0"})
    page = owner.get(f"/rooms/{room.code}/").content.decode()
    assert "fill-computers" in page and "const creator = true;" in page
    # The money rule is stated before anyone fills a seat with a computer.
    assert "有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）" in page
    assert "电脑水平：标准" in page
    other = world.client("member").get(f"/rooms/{room.code}/").content.decode()
    assert "fill-computers" not in other and "const creator = false;" in other
    response = owner.post(f"/rooms/{room.code}/computers/", HTTP_X_REQUESTED_WITH="fetch")
    assert response.status_code == 200 and response.json() == {"ok": True}
    seats = RoomSeat.objects.filter(room=room).select_related("user").order_by("seat")
    assert [(s.seat, str(s.user), s.user.is_computer) for s in seats] == [
        (0, "圈主老张", False), (1, "电脑·小梅（标准）", True), (2, "电脑·阿竹（标准）", True),
        (3, "电脑·小兰（标准）", True)]
    lobby = owner.get(f"/rooms/{room.code}/").content.decode()
    server_rendered = lobby.split("<script")[0]
    assert server_rendered.count('<span class="badge computer">电脑</span>') == 3


def test_a_room_without_computers_states_no_computer_rule(world: World) -> None:
    page = world.client("owner").get(f"/rooms/{world.room.code}/").content.decode()
    assert "computers-notice" not in page


def test_others_cannot_fill_and_a_room_without_the_option_refuses(world: World) -> None:
    room = _allow(world)
    member = world.client("member")
    member.post(f"/rooms/{room.code}/sit/", {"seat": "1"})
    assert member.post(f"/rooms/{room.code}/computers/").status_code == 403
    assert world.client("outsider").post(f"/rooms/{room.code}/computers/").status_code == 404
    Room.objects.filter(pk=room.pk).update(allow_computers=False)
    owner = world.client("owner")
    owner.post(f"/rooms/{room.code}/sit/", {"seat": "0"})
    response = owner.post(f"/rooms/{room.code}/computers/", HTTP_X_REQUESTED_WITH="fetch")
    assert response.status_code == 400
    assert response.json()["error"] == "这个房间不允许电脑补位"
    assert not RoomSeat.objects.filter(room=room, user__is_computer=True).exists()


def test_open_a_practice_room_from_the_club_page(world: World) -> None:
    owner = world.client("owner")
    club_page = owner.get(f"/clubs/{world.club.pk}/").content.decode()
    assert "练习 · 都匀独山捉鸡" in club_page and "自定义练习房" in club_page
    form = owner.get(f"/clubs/{world.club.pk}/rooms/new/?practice=1&variant=duyun")
    assert 'name="practice"' in form.content.decode()
    assert "checked" in form.content.decode().split('name="practice"')[1].split(">")[0]


def test_taking_a_seat_at_another_clubs_table_is_refused(world: World) -> None:
    room = _allow(world)
    assert world.client("outsider").post(f"/rooms/{room.code}/take/1/").status_code == 404
    response = world.client("member").post(f"/rooms/{room.code}/take/1/", follow=True)
    assert "没有进行中的对局" in response.content.decode()
