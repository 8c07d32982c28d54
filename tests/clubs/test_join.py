"""Sharing and joining: share links, QR codes and 口令, the join pages a non-member sees,
invite links, the 输入房间号 box, quick-open, the lobbies' winds, dealer and progress."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from apps.clubs import selectors
from apps.clubs.errors import ActionForbidden, InvalidInputError
from apps.clubs.models import JoinRequest, Membership, Room, RoomSeat
from apps.clubs.services import members, rooms
from apps.clubs.share import code_parse
from apps.matches.models import Match

from .conftest import World, fill_room, make_user


def test_my_clubs_count_every_member(world: World) -> None:
    """我的亲友圈 counted only the viewer's own row ("1 人") before."""
    other = members.membership_join_by_invite(
        user=make_user("solo"), invite_code=world.club.invite_code
    ).club
    counts = {c.pk: c.member_count for c in selectors.club_list_for_user(user=world.member)}
    assert counts == {other.pk: 5}  # owner, admin, two members and the newcomer
    page = world.client("member").get("/").content.decode()
    assert "5 人 ·" in page
    assert "1 人 ·" not in page


def test_room_link_shows_a_non_member_the_club_and_apply(world: World) -> None:
    page = world.client("outsider").get(f"/rooms/{world.room.code}/").content.decode()
    assert "「周末麻将圈」" in page
    assert "申请加入" in page
    anonymous = Client().get(f"/rooms/{world.room.code}/").content.decode()
    assert "「周末麻将圈」" in anonymous
    assert "注册并申请加入" in anonymous
    assert f"next=/rooms/{world.room.code}/" in anonymous.replace("%2F", "/")


def test_apply_from_a_room_link_then_approval_leads_into_the_room(world: World) -> None:
    client = world.client("outsider")
    response = client.post(f"/clubs/{world.club.pk}/apply/", {"room": world.room.code})
    assert response["Location"] == f"/rooms/{world.room.code}/"
    request = JoinRequest.objects.get(user=world.outsider)
    assert request.room == world.room
    waiting = client.get(f"/rooms/{world.room.code}/").content.decode()
    assert "等待圈主或管理员通过" in waiting
    status_url = f"/clubs/{world.club.pk}/apply/status/?room={world.room.code}"
    assert client.get(status_url).json() == {"member": False, "pending": True}
    members.join_request_approve(join_request=request, actor=world.owner)
    assert client.get(status_url).json() == {"member": True, "next": f"/rooms/{world.room.code}/"}
    assert "坐这里" in client.get(f"/rooms/{world.room.code}/").content.decode()


def test_apply_twice_is_refused_in_chinese(world: World) -> None:
    client = world.client("applicant")
    response = client.post(f"/clubs/{world.club.pk}/apply/", {}, follow=True)
    assert "你已提交过申请，请等待审核" in response.content.decode()


def test_invite_link_joins_at_once(world: World) -> None:
    client = world.client("outsider")
    url = f"/join/{world.club.invite_code}/?room={world.room.code}"
    page = client.get(url).content.decode()
    assert "加入亲友圈" in page
    response = client.post(url)
    assert response["Location"] == f"/rooms/{world.room.code}/"
    assert Membership.objects.filter(club=world.club, user=world.outsider).exists()
    # A member opening the invite again goes straight in.
    assert client.get(url)["Location"] == f"/rooms/{world.room.code}/"


def test_invite_join_closes_a_pending_request_and_respects_the_cap(world: World) -> None:
    members.membership_join_by_invite(user=world.applicant, invite_code=world.club.invite_code)
    world.join_request.refresh_from_db()
    assert world.join_request.status == JoinRequest.Status.APPROVED
    world.club.member_cap = Membership.objects.filter(club=world.club).count()
    world.club.save()
    with pytest.raises(InvalidInputError, match="亲友圈已满"):
        members.membership_join_by_invite(user=world.outsider, invite_code=world.club.invite_code)


def test_a_bad_invite_is_a_chinese_404(world: World) -> None:
    response = world.client("outsider").get("/join/ZZZZZZZZ/")
    assert response.status_code == 404
    assert "邀请链接无效" in response.content.decode()
    with pytest.raises(InvalidInputError):
        members.membership_join_by_invite(user=world.outsider, invite_code="ZZZZZZZZ")


@pytest.mark.parametrize("url", ["/rooms/999999/", "/rooms/abc/", "/clubs/987654/"])
def test_unknown_rooms_and_clubs_get_the_friendly_404(world: World, url: str) -> None:
    response = world.client("member").get(url)
    assert response.status_code == 404
    page = response.content.decode()
    assert "找不到这个页面" in page
    assert "输入房间号" in page or "房间号" in page


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("123456", "room", "123456"),
        (" 654321 ", "room", "654321"),
        ("【麻将亲友圈】「圈」房间 123456，房间号 123456。打开链接入座：http://h/rooms/123456/",
         "room", "123456"),
        ("abcd2345", "invite", "ABCD2345"),
        ("【麻将亲友圈】邀请加入「圈」，邀请码 ABCD2345。http://h:8000/join/ABCD2345/",
         "invite", "ABCD2345"),
        ("12", "club", "12"),
        ("圈号 7", "club", "7"),
        ("http://127.0.0.1:8000/clubs/31/", "club", "31"),
        ("【麻将亲友圈】亲友圈「周末圈202412」，圈号 5。打开链接申请加入：http://h/clubs/5/",
         "club", "5"),
        ("【麻将亲友圈】「周末圈202412」都匀独山捉鸡 4人8局，房间号 654321。", "room", "654321"),
    ],
)
def test_code_parse_reads_numbers_codes_and_pasted_kouling(
    text: str, kind: str, value: str
) -> None:
    parsed = code_parse(text)
    assert parsed is not None
    assert (parsed.kind, parsed.value) == (kind, value)


@pytest.mark.parametrize("text", ["", "你好", "12345678901"])
def test_code_parse_rejects_other_text(text: str) -> None:
    assert code_parse(text) is None


def test_code_box_goes_to_the_room_invite_or_club(world: World) -> None:
    client = world.client("member")
    room = client.post("/go/", {"code": world.room.code})
    assert room["Location"] == f"/rooms/{world.room.code}/"
    invite = client.post("/go/", {"code": f"邀请码 {world.club.invite_code}"})
    assert invite["Location"] == f"/join/{world.club.invite_code}/"
    assert client.post("/go/", {"code": str(world.club.pk)})["Location"] == (
        f"/clubs/{world.club.pk}/"
    )
    for bad, message in (("000000", "没有找到房间 000000"), ("胡说", "请输入 6 位房间号")):
        page = client.post("/go/", {"code": bad}, follow=True).content.decode()
        assert message in page


def test_share_dialogs_carry_link_qr_and_kouling(world: World) -> None:
    lobby = world.client("member").get(f"/rooms/{world.room.code}/").content.decode()
    assert 'id="share-room"' in lobby
    assert "<svg" in lobby
    assert f"http://testserver/rooms/{world.room.code}/" in lobby
    assert f"房间号 {world.room.code}" in lobby
    club = world.client("owner").get(f"/clubs/{world.club.pk}/").content.decode()
    assert f"http://testserver/join/{world.club.invite_code}/" in club  # managers: invite
    owner_lobby = world.client("owner").get(f"/rooms/{world.room.code}/").content.decode()
    invite = f"http://testserver/join/{world.club.invite_code}/?room={world.room.code}"
    assert invite in owner_lobby  # managers may also hand out an invite into the room
    assert world.club.invite_code not in lobby  # a member's lobby does not
    member_club = world.client("member").get(f"/clubs/{world.club.pk}/").content.decode()
    assert world.club.invite_code not in member_club  # members share the club page only
    assert f"http://testserver/clubs/{world.club.pk}/" in member_club


def test_quick_open_seats_the_opener_at_east(world: World) -> None:
    response = world.client("admin").post(
        f"/clubs/{world.club.pk}/quick/{world.template.pk}/"
    )
    room = Room.objects.exclude(pk=world.room.pk).get()
    assert response["Location"] == f"/rooms/{room.code}/"
    assert room.settings == world.template.settings
    seat = RoomSeat.objects.get(room=room)
    assert (seat.user, seat.seat) == (world.admin, 0)
    state = selectors.lobby_state(room)
    assert state["dealer"] == 0
    assert state["winds"][0] == "东"


def test_quick_open_does_not_move_a_player_seated_elsewhere(world: World) -> None:
    fill_room(world.room, [world.admin], ready=False)
    room, sat = rooms.room_quick_open(club=world.club, actor=world.admin, template=world.template)
    assert not sat
    assert not RoomSeat.objects.filter(room=room).exists()


def test_quick_open_needs_the_right_to_open_rooms(world: World) -> None:
    response = world.client("member").post(f"/clubs/{world.club.pk}/quick/{world.template.pk}/")
    assert response.status_code == 403
    assert Room.objects.count() == 1


def test_sitting_again_keeps_ones_seat(world: World) -> None:
    rooms.room_sit(room=world.room, user=world.member, seat=2)
    assert rooms.room_sit(room=world.room, user=world.member).seat == 2


def test_dealer_is_the_seated_opener_or_drawn(world: World) -> None:
    fill_room(world.room, [world.member, world.owner])
    assert selectors.lobby_state(world.room)["dealer"] == 1  # the owner opened it
    zigong = rooms.room_create(club=world.club, actor=world.owner, variant="zigong", settings={})
    state = selectors.lobby_state(zigong)
    assert state["dealer"] is None
    assert state["dealer_drawn"] is True


def test_room_lobby_has_one_ready_toggle(world: World) -> None:
    fill_room(world.room, [world.member], ready=False)
    page = world.client("member").get(f"/rooms/{world.room.code}/").content.decode()
    actions = page.split('id="my-actions"', 1)[1].split("</div>", 1)[0]
    assert ">准备</button>" in actions
    assert "取消准备" not in actions
    RoomSeat.objects.filter(user=world.member).update(ready=True)
    page = world.client("member").get(f"/rooms/{world.room.code}/").content.decode()
    actions = page.split('id="my-actions"', 1)[1].split("</div>", 1)[0]
    assert ">取消准备</button>" in actions
    assert ">准备</button>" not in actions


def test_club_lobby_shows_tables_with_state_and_progress(world: World) -> None:
    fill_room(world.room, [world.member, world.member2])
    page = world.client("member").get(f"/clubs/{world.club.pk}/").content.decode()
    assert "等待中" in page
    assert "王五" in page
    assert "入座" in page
    Room.objects.filter(pk=world.room.pk).update(status=Room.Status.PLAYING)
    Match.objects.create(
        room=world.room, club=world.club, variant=world.room.variant,
        settings=world.room.settings, hands_total=8, hands_played=1,
    )
    page = world.client("member").get(f"/clubs/{world.club.pk}/").content.decode()
    assert "对局中 第2/8局" in page
    assert "观战" in page


def test_home_for_a_member_lists_free_tables_and_my_table(world: World) -> None:
    home = selectors.home_for_user(user=world.member)
    assert [t["code"] for t in home["free_tables"]] == [world.room.code]
    assert home["my_table"] is None
    rooms.room_sit(room=world.room, user=world.member)
    home = selectors.home_for_user(user=world.member)
    assert home["my_table"]["code"] == world.room.code
    assert home["free_tables"] == []
    page = world.client("member").get("/").content.decode()
    assert "我的牌桌" in page
    assert "回到牌桌" in page


def test_home_for_a_new_user_offers_two_next_steps(db: Any) -> None:
    client = Client()
    client.force_login(make_user("newbie", "新人"))
    page = client.get("/").content.decode()
    assert "创建亲友圈" in page
    assert page.count("输入房间号 / 邀请码") == 1  # one box to type the code in, not two
    assert page.count('id="code-box"') == 1


def test_landing_page_for_visitors(db: Any) -> None:
    page = Client().get("/").content.decode()
    for text in ("注册新账号", "登录", "都匀独山捉鸡", "自贡麻将", "输入房间号 / 邀请码"):
        assert text in page


def test_online_members_are_counted(world: World) -> None:
    from apps.clubs.presence import presence_mark

    assert presence_mark(club_id=world.club.pk, user_id=world.member.pk) is True
    assert presence_mark(club_id=world.club.pk, user_id=world.member.pk) is False
    assert selectors.club_online_count(world.club) == 1
    assert [str(u) for u in selectors.club_online_members(world.club)] == ["王五"]
    # A member seen within five minutes (at a table, on any page) is online too, as the
    # member's own badge says: here the owner, who opens a page, and counts and lists.
    assert "2 人在线" in world.client("owner").get("/").content.decode()
    page = world.client("owner").get(f"/clubs/{world.club.pk}/").content.decode()
    listed = page.split("在线：", 1)[1].split("</p>", 1)[0]
    assert '<span id="online-count">2</span> 人在线' in page
    assert "王五" in listed and str(world.owner) in listed


def test_reset_link_for_a_member_without_email(world: World) -> None:
    response = world.client("admin").post(
        f"/clubs/{world.club.pk}/members/{world.member.pk}/reset-link/"
    )
    page = response.content.decode()
    assert "http://testserver/accounts/password/reset/" in page
    link = page.split('id="reset-link" value="', 1)[1].split('"', 1)[0]
    client = Client()
    form_page = client.get(link, follow=True)
    assert "设置新密码" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "mj-new-pass-97", "new_password2": "mj-new-pass-97"},
    )
    assert done.status_code == 302
    world.member.refresh_from_db()
    assert world.member.check_password("mj-new-pass-97")


def test_reset_links_follow_the_roles(world: World) -> None:
    with pytest.raises(ActionForbidden):
        members.member_password_reset_link(club=world.club, actor=world.admin, user=world.owner)
    with pytest.raises(ActionForbidden):
        members.member_password_reset_link(club=world.club, actor=world.member, user=world.member2)
    with pytest.raises(InvalidInputError):
        members.member_password_reset_link(club=world.club, actor=world.owner, user=world.owner)
    assert members.member_password_reset_link(
        club=world.club, actor=world.owner, user=world.admin
    ).startswith("/accounts/password/reset/")


def test_irreversible_club_actions_ask_first(world: World) -> None:
    page = world.client("owner").get(f"/clubs/{world.club.pk}/").content.decode()
    forms = re.findall(r"<form[^>]*>", page)
    for ending in ("/remove/", "/transfer/", "/invite-code/", "/delete/", "/reject/", "/leave/"):
        tags = [tag for tag in forms if re.search(f'action="[^"]*{ending}"', tag)]
        if ending == "/leave/":
            assert not tags  # the owner cannot leave
            continue
        assert tags, ending
        assert all("data-confirm=" in tag for tag in tags), ending


def test_only_managers_get_the_invite_code_from_the_api(world: World) -> None:
    def code_seen_by(role: str) -> Any:
        clubs = world.client(role).get("/api/clubs/").json()
        return next(c["invite_code"] for c in clubs if c["id"] == world.club.pk)

    assert code_seen_by("owner") == world.club.invite_code
    assert code_seen_by("admin") == world.club.invite_code
    assert code_seen_by("member") is None


def test_club_tables_are_served_to_members_only(world: World) -> None:
    fill_room(world.room, [world.member])
    body = world.client("member2").get(f"/clubs/{world.club.pk}/tables/").json()
    assert f'data-room="{world.room.code}"' in body["tables_html"]
    assert "王五" in body["tables_html"]
    assert body["online"] == 1  # the member asking, who is seen (在线)
    refused = world.client("outsider").get(f"/clubs/{world.club.pk}/tables/")
    assert refused.status_code == 404
    assert refused.json() == {"error": "亲友圈不存在"}
