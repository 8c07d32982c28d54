"""Online status: a signed-in player's last_seen is written at most once a minute, and the
club's member list says who is 在线 and when the others were last seen."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.models import Club, Membership

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
