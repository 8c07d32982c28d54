"""Issue 47, item 1: join requests are noticed. The owner and admins see how many wait on
the home page, on the club's card in 我的亲友圈 and in the club lobby; other members don't."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Membership
from apps.clubs.services import clubs, members

pytestmark = pytest.mark.django_db


def page_as(user: User, path: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(path)
    assert response.status_code == 200
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def test_waiting_requests_are_counted_for_managers_only() -> None:
    owner = User.objects.create_user("owner", display_name="圈主")
    admin = User.objects.create_user("admin", display_name="管理")
    member = User.objects.create_user("member", display_name="王五")
    club = clubs.club_create(owner=owner, name="周末圈")
    Membership.objects.create(club=club, user=admin, role=Membership.Role.ADMIN)
    Membership.objects.create(club=club, user=member)
    for name in ("a1", "a2"):
        members.join_request_create(club=club, user=User.objects.create_user(name))
    for manager in (owner, admin):
        assert "有人申请加入你的亲友圈 周末圈 2 个待审核" in page_as(manager, "/")
        assert "2 个入圈申请" in page_as(manager, "/clubs/")
        assert "2 个入圈申请待审核" in page_as(manager, f"/clubs/{club.pk}/")
    for path in ("/", "/clubs/", f"/clubs/{club.pk}/"):
        assert "入圈申请" not in page_as(member, path).replace("我的入圈申请", "")
    # Deciding them clears the badges.
    for request in list(club.join_requests.all()):
        members.join_request_reject(join_request=request, actor=owner)
    assert "申请加入你的亲友圈" not in page_as(owner, "/")
    assert "个入圈申请" not in page_as(owner, "/clubs/")
