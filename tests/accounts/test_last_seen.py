"""Online status: a signed-in player's last_seen is written at most once a minute; the
club's member list says who is 在线 and when the others were last seen, and its rooms who
of their seated players is online."""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.models import Club, Membership, Room, RoomSeat
from tests.support.factories import table_settings

pytestmark = pytest.mark.django_db


def test_last_seen_is_written_at_most_once_a_minute() -> None:
    user = User.objects.create_user("zhangsan", display_name="张三")
    client = Client()
    client.force_login(user)
    start = timezone.now()
    for offset, expected in ((0, 0), (30, 0), (61, 61)):
        moment = start + timedelta(seconds=offset)
        with mock.patch("django.utils.timezone.now", return_value=moment):
            assert client.get("/ledgers/mine/").status_code == 200
        user.refresh_from_db()
        assert user.last_seen == start + timedelta(seconds=expected), offset


def test_the_member_list_shows_who_is_online() -> None:
    now = timezone.now()
    owner = User.objects.create_user("zhangsan", display_name="张三")
    away = User.objects.create_user("lisi", display_name="李四")
    never = User.objects.create_user("wangwu", display_name="王五")
    User.objects.filter(pk=away.pk).update(last_seen=now - timedelta(hours=3))
    club = Club.objects.create(name="周末圈", invite_code="ONLINE1")
    for user, role in ((owner, "owner"), (away, "member"), (never, "member")):
        Membership.objects.create(club=club, user=user, role=role)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.pk}/").content.decode()
    members = page[page.index("<h2>成员"):]
    assert '张三 <span class="badge owner">圈主</span>' in members
    owner_row = members[members.index("张三"):members.index("李四")]
    assert "在线" in owner_row
    away_row = members[members.index("李四"):members.index("王五")]
    assert "最后在线 3" in away_row and "小时" in away_row and "前" in away_row
    assert "还没上线" in members[members.index("王五"):]


def test_the_room_list_shows_whether_each_seated_player_is_online() -> None:
    owner = User.objects.create_user("zhangsan", display_name="张三")
    away = User.objects.create_user("lisi", display_name="李四")
    club = Club.objects.create(name="周末圈", invite_code="ONLINE2")
    for user, role in ((owner, "owner"), (away, "member")):
        Membership.objects.create(club=club, user=user, role=role)
    room = Room.objects.create(
        club=club, code="R0NL1NE", variant="duyun", settings=table_settings("duyun"),
        created_by=owner,
    )
    for seat, user in enumerate((owner, away)):
        RoomSeat.objects.create(room=room, seat=seat, user=user)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.pk}/").content.decode()
    seats = page[page.index('class="mini-seats"'):]
    seats = seats[:seats.index("</ol>")]
    assert re.search(r"张三</span> <span class=\"badge ready presence\">在线</span>", seats)
    assert re.search(r"李四</span> <span class=\"badge presence\">离线</span>", seats)
