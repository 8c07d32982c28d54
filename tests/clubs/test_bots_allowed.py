"""允许机器人 (issue 49): the club owner alone decides whether bot accounts may join the club
and sit at its tables; a match with a bot seat is booked only if the club allowed bots when
it started, otherwise it is 不记账 like a match with computers."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from apps.accounts.services import bot_create
from apps.clubs.errors import ActionForbidden
from apps.clubs.models import Club, JoinRequest, Membership
from apps.clubs.services.clubs import club_update
from apps.clubs.services.members import join_request_approve, join_request_create
from apps.clubs.services.rooms import room_create, room_ready_set, room_sit
from apps.ledgers.models import HandResult, LedgerEntry
from apps.matches.models import Match
from tests.support import factories
from tests.support.play import play, winning_policy
from tests.support.start import first_hand_contribute

from .conftest import World

pytestmark = pytest.mark.django_db

REFUSED = "不允许机器人"


def test_only_the_owner_sets_bots_allowed_on_the_page_and_through_the_api(world: World) -> None:
    assert not world.club.bots_allowed  # off until the owner says so
    with pytest.raises(ActionForbidden, match="只有圈主"):
        club_update(club=world.club, actor=world.admin, bots_allowed=True)
    admin = Client()
    admin.force_login(world.admin)
    refused = admin.patch(f"/api/clubs/{world.club.pk}/", {"bots_allowed": True},
                          content_type="application/json")
    assert refused.status_code == 403 and "只有圈主" in str(refused.json())
    admin_page = world.client("admin").get(f"/clubs/{world.club.pk}/").content.decode()
    assert "允许机器人" not in admin_page
    owner_page = world.client("owner").get(f"/clubs/{world.club.pk}/").content.decode()
    assert 'name="settings-bots_allowed"' in owner_page
    saved = world.client("owner").post(f"/clubs/{world.club.pk}/settings/", {
        "settings-name": world.club.name, "settings-member_cap": 200,
        "settings-is_open": "on", "settings-variants": ["duyun", "zigong"],
        "settings-bots_allowed": "on",
    })
    assert saved.status_code == 302
    world.club.refresh_from_db()
    assert world.club.bots_allowed
    owner = Client()
    owner.force_login(world.owner)
    off = owner.patch(f"/api/clubs/{world.club.pk}/", {"bots_allowed": False},
                      content_type="application/json")
    assert off.status_code == 200 and off.json()["bots_allowed"] is False
    # An admin saving the other settings leaves the owner's choice as it is.
    Club.objects.filter(pk=world.club.pk).update(bots_allowed=True)
    world.client("admin").post(f"/clubs/{world.club.pk}/settings/", {
        "settings-name": "改个名", "settings-member_cap": 200, "settings-is_open": "on",
        "settings-variants": ["duyun"],
    })
    world.club.refresh_from_db()
    assert world.club.name == "改个名" and world.club.bots_allowed


def test_a_bot_joins_and_sits_only_where_bots_are_allowed(world: World) -> None:
    bot = bot_create(owner=world.member, username="robot1", display_name="小白")
    with pytest.raises(ActionForbidden, match=REFUSED):
        join_request_create(club=world.club, user=bot)
    world.club = club_update(club=world.club, actor=world.owner, bots_allowed=True)
    request = join_request_create(club=world.club, user=bot)
    world.club = club_update(club=world.club, actor=world.owner, bots_allowed=False)
    with pytest.raises(ActionForbidden, match=REFUSED):  # the owner changed their mind
        join_request_approve(join_request=request, actor=world.owner)
    assert JoinRequest.objects.get(pk=request.pk).status == JoinRequest.Status.PENDING
    world.club = club_update(club=world.club, actor=world.owner, bots_allowed=True)
    join_request_approve(join_request=request, actor=world.owner)
    room_sit(room=world.room, user=bot, seat=1)
    # Bots marked as bots where people see their names: the lobby.
    lobby = world.client("owner").get(f"/rooms/{world.room.code}/").content.decode()
    assert "小白（机器人）" in lobby
    club_update(club=world.club, actor=world.owner, bots_allowed=False)
    bot_client = Client()
    bot_client.force_login(bot)
    moved = bot_client.post(f"/api/rooms/{world.room.code}/sit/", {"seat": 2},
                            content_type="application/json")
    assert moved.status_code == 403 and REFUSED in str(moved.json())


def _bot_table(*, allowed_at_start: bool) -> Match:
    """Three people and a bot seated (the club allowed bots then); the owner allows bots or
    not before the match starts; one hand is played."""
    key = factories.tag()
    people = [factories.user(f"p{i}_{key}", display_name=n)
              for i, n in enumerate(("张三", "李四", "王五"))]
    club = factories.club(people[0], *people[1:], bots_allowed=True)
    bot = bot_create(owner=people[1], username=f"bot_{key}", display_name="阿尔法")
    Membership.objects.create(club=club, user=bot)
    room = room_create(club=club, actor=people[0], variant="duyun",
                       settings=factories.table_settings("duyun"))
    for seat, user in enumerate([*people, bot]):
        room_sit(room=room, user=user, seat=seat)
    club_update(club=club, actor=people[0], bots_allowed=allowed_at_start)
    for user in [*people, bot]:
        room_ready_set(room=room, user=user, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    return play(match, winning_policy(random.Random(3)), hands=1)


def test_a_match_with_a_bot_is_booked_when_the_club_allowed_bots_at_its_start() -> None:
    match = _bot_table(allowed_at_start=True)
    assert match.has_bots and match.bots_allowed and match.booked
    assert HandResult.objects.filter(match=match).count() == 4  # booked, bot included


def test_a_match_with_a_bot_the_club_did_not_allow_is_not_booked() -> None:
    match = _bot_table(allowed_at_start=False)
    assert match.has_bots and not match.bots_allowed and not match.booked
    assert match.hands_played == 1
    assert not LedgerEntry.objects.filter(match=match).exists()
    assert not HandResult.objects.filter(match=match).exists()
    owner = Client()
    owner.force_login(match.players.get(seat=0).user)
    page = owner.get(f"/ledgers/clubs/{match.club_id}/matches/{match.pk}/")
    assert "不记账" in page.content.decode() and "阿尔法（机器人）" in page.content.decode()
    assert [p["points"] for p in page.context["players"]] == match.totals
