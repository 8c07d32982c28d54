"""What a bot needs from the REST API (issue 49): tokens and their scopes, bot accounts,
registration, joining by invite code, rooms with 电脑 and 听牌提示, the ledger's room filter
by room code (item 8) and a match's hands."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import ApiToken, User
from apps.accounts.services import bot_create, token_create
from apps.clubs.models import JoinRequest, Membership, Room
from apps.clubs.services.clubs import club_create, club_update
from apps.matches import selectors as match_selectors
from apps.matches.models import Match
from tests.support import factories
from tests.support.api import client_error, error_fields
from tests.support.play import play, play_hand, random_policy

pytestmark = pytest.mark.django_db


def _owner_with_club() -> tuple[User, Any]:
    owner = User.objects.create_user("owner", display_name="圈主老张")
    return owner, club_create(owner=owner, name="周末麻将圈")


def _bearer(token: str) -> Client:
    """A client with no cookie that checks CSRF as a browser's would: only the token."""
    return Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {token}")


def _room_input(**extra: Any) -> dict[str, Any]:
    return {"variant": "zigong", "settings": {"players": 2}, **extra}


def test_a_token_works_without_cookie_or_csrf_and_a_read_only_one_cannot_write() -> None:
    owner, club = _owner_with_club()
    _, read = token_create(actor=owner, name="看", play=False)
    _, play = token_create(actor=owner, name="下", play=True)
    rooms = f"/api/clubs/{club.pk}/rooms/"

    reader = _bearer(read)
    assert reader.get("/api/clubs/").status_code == 200
    refused = reader.post(rooms, _room_input(), content_type="application/json")
    assert refused.status_code == 403
    assert client_error(refused.json())[0] == "token_read_only"
    assert not Room.objects.exists()

    made = _bearer(play).post(rooms, _room_input(), content_type="application/json")
    assert made.status_code == 201, made.content
    assert ApiToken.objects.get(name="下").last_used is not None


def test_tokens_are_listed_without_their_secret_revoked_at_once_and_made_only_by_a_session(
) -> None:
    owner, _ = _owner_with_club()
    session = Client()
    session.force_login(owner)
    made = session.post("/api/auth/tokens/", {"name": "我的机器人", "scopes": ["read", "play"]},
                        content_type="application/json")
    assert made.status_code == 201, made.content
    body = made.json()
    secret, key = body["token"], body["id"]
    assert secret.startswith("mj_") and body["scopes"] == ["read", "play"]
    assert secret not in str(list(ApiToken.objects.values()))  # only a digest is stored
    listed = session.get("/api/auth/tokens/").json()
    assert [t["id"] for t in listed] == [key] and "token" not in listed[0]

    by_token = _bearer(secret).post("/api/auth/tokens/", {"name": "再来", "scopes": ["read"]},
                                    content_type="application/json")
    assert by_token.status_code == 403 and client_error(by_token.json())[0] == "session_only"

    assert session.delete(f"/api/auth/tokens/{key}/").status_code == 204
    assert _bearer(secret).get("/api/clubs/").status_code in (401, 403)


def test_a_bot_account_is_marked_a_bot_signs_in_by_token_only_and_joins_where_allowed() -> None:
    owner, club = _owner_with_club()
    maker = User.objects.create_user("maker", display_name="造机人")
    session = Client()
    session.force_login(maker)
    made = session.post("/api/auth/bots/", {"username": "bot1", "display_name": "小白"},
                        content_type="application/json")
    assert made.status_code == 201, made.content
    bot = User.objects.get(username="bot1")
    assert str(bot) == "小白（机器人）" and made.json()["display_name"] == "小白（机器人）"
    assert not bot.has_usable_password()
    token = session.post("/api/auth/tokens/",
                         {"name": "小白", "scopes": ["read", "play"], "account": bot.pk},
                         content_type="application/json").json()["token"]
    with pytest.raises(Exception, match="只能为自己或自己的机器人"):
        token_create(actor=owner, name="偷", play=True, account=bot)

    client = _bearer(token)
    # The club does not allow bots (Club.bots_allowed, the owner's choice): neither the
    # invite code nor a request lets the bot in.
    instant = client.post("/api/clubs/join/", {"invite_code": club.invite_code},
                          content_type="application/json")
    assert instant.status_code == 403 and "不允许机器人" in str(instant.json())
    refused = client.post("/api/join-requests/", {"invite_code": club.invite_code},
                          content_type="application/json")
    assert refused.status_code == 403 and "不允许机器人" in str(refused.json())
    assert not JoinRequest.objects.filter(user=bot).exists()
    assert not Membership.objects.filter(club=club, user=bot).exists()
    club_update(club=club, actor=owner, bots_allowed=True)
    asked = client.post("/api/join-requests/", {"club_id": club.pk},
                        content_type="application/json")
    assert asked.status_code == 201  # by 圈号: the owner decides
    assert JoinRequest.objects.get(user=bot).status == JoinRequest.Status.PENDING
    # The invite code is the owner's consent, to a bot too once bots are allowed.
    joined = client.post("/api/clubs/join/", {"invite_code": club.invite_code},
                         content_type="application/json")
    assert joined.status_code == 201, joined.content
    assert Membership.objects.filter(club=club, user=bot).exists()
    assert JoinRequest.objects.get(user=bot).status == JoinRequest.Status.APPROVED


def test_registration_and_joining_by_invite_code_through_the_api() -> None:
    """Item 7: the invite code joins at once (the schema says so); a 圈号 request waits."""
    _, club = _owner_with_club()
    web = Client(enforce_csrf_checks=True)
    csrf = web.get("/api/auth/csrf/").json()["csrf_token"]
    made = web.post("/api/auth/register/", {"username": "newbie", "password": "long-pass-2026"},
                    content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert made.status_code == 201, made.content
    csrf = made.json()["csrf_token"]
    again = web.post("/api/auth/register/", {"username": "newbie", "password": "long-pass-2026"},
                     content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert again.status_code == 400 and "username" in error_fields(again.json())

    joined = web.post("/api/clubs/join/", {"invite_code": club.invite_code.lower()},
                      content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert joined.status_code == 201, joined.content
    assert joined.json()["role"] == "member" and joined["Location"].endswith(f"/{club.pk}/")
    wrong = web.post("/api/clubs/join/", {"invite_code": "NOPE"},
                     content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert wrong.status_code == 400 and "invite_code" in error_fields(wrong.json())

    # The schema says the same: the invite code joins (a membership), a request waits.
    paths = Client().get("/api/schema/", {"format": "json"}).json()["paths"]
    join = paths["/api/clubs/join/"]["post"]
    assert "直接入圈" in join["summary"]
    assert join["responses"]["201"]["content"]["application/json"]["schema"]["$ref"] \
        .endswith("/MembershipOutput")
    assert "审核" in paths["/api/join-requests/"]["post"]["summary"]


def test_rooms_take_practice_computers_and_hints_through_the_api() -> None:
    owner, club = _owner_with_club()
    member = User.objects.create_user("member", display_name="王五")
    Membership.objects.create(club=club, user=member)
    client = Client()
    client.force_login(owner)
    rooms = f"/api/clubs/{club.pk}/rooms/"

    practice = client.post(rooms, _room_input(practice=True, hints=False),
                           content_type="application/json").json()
    assert practice["practice"] and practice["allow_computers"] and not practice["hints"]
    assert [s["computer"] for s in practice["seats"]] == [False, True]

    client.post(f"/api/rooms/{practice['code']}/stand/")  # free to sit elsewhere
    room = client.post(rooms, _room_input(allow_computers=True),
                       content_type="application/json").json()
    code = room["code"]
    assert room["allow_computers"] and room["hints"] and not room["practice"]
    early = client.post(f"/api/rooms/{code}/computers/")
    assert early.status_code == 400  # sit first
    client.post(f"/api/rooms/{code}/sit/", {"seat": 0}, content_type="application/json")
    other = Client()
    other.force_login(member)
    assert other.post(f"/api/rooms/{code}/computers/").status_code == 403
    filled = client.post(f"/api/rooms/{code}/computers/")
    assert filled.status_code == 200  # a JSON answer, not the page's 302
    assert [s["computer"] for s in filled.json()["seats"]] == [False, True]

    plain = client.post(rooms, _room_input(), content_type="application/json").json()
    refused = client.post(f"/api/rooms/{plain['code']}/computers/")
    assert refused.status_code == 400


def test_the_ledger_room_filter_takes_a_room_code_and_refuses_an_unknown_one() -> None:
    """Item 8."""
    table = factories.table("duyun")
    play(table.match, random_policy(random.Random(7)))
    client = Client()
    client.force_login(table.players[0])
    url = f"/api/ledgers/clubs/{table.club.pk}/entries/"
    everything = client.get(url).json()["results"]
    assert everything
    mine = client.get(url, {"room": table.room.code})
    assert mine.status_code == 200
    assert [r["id"] for r in mine.json()["results"]] == [r["id"] for r in everything]
    for bad in ("999999", str(table.room.pk), "abc"):
        refused = client.get(url, {"room": bad})
        assert refused.status_code == 400, bad
        assert "room" in error_fields(refused.json())
    paths = Client().get("/api/schema/", {"format": "json"}).json()["paths"]
    [room] = [p for p in paths["/api/ledgers/clubs/{club_id}/entries/"]["get"]["parameters"]
              if p["name"] == "room"]
    assert room["schema"]["type"] == "string" and "房间号" in room["description"]


def test_a_matchs_hands_are_listed_with_their_points_and_whether_booked() -> None:
    table = factories.table("zigong")
    match = table.match
    play_hand(match, random_policy(random.Random(3)))
    client = Client()
    client.force_login(table.players[0])
    body = client.get(f"/api/ledgers/matches/{match.pk}/hands/").json()
    hand = match.hands.get(number=1)
    assert body["practice"] is False and body["booked"] is True
    assert body["hands"] == [{"hand": hand.pk, "number": 1, "dealer": hand.dealer,
                              "points": hand.settlement["totals"],
                              "ended_at": body["hands"][0]["ended_at"]}]
    assert [s["bot"] for s in body["seats"]] == [False] * len(body["seats"])
    outsider = Client()
    outsider.force_login(table.outsider)
    assert outsider.get(f"/api/ledgers/matches/{match.pk}/hands/").status_code == 404
    assert client.get("/api/ledgers/matches/999999/hands/").status_code == 404


def test_hello_from_zero_is_the_whole_log_up_to_200_entries_else_a_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 3: the documented limit is the server's."""
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    match = Match.objects.get(pk=table.match.pk)
    assert match_selectors.MAX_CATCHUP_ENTRIES == 200
    whole = match_selectors.table_catchup(match_id=match.pk, since=0, viewer=0)
    assert (whole["type"], whole["from"]) == ("catchup", 0)
    # The limit counts the viewer's own entries (``v`` is per viewer), which are fewer
    # than the match's when another seat had private ones: a hand-dependent flake.
    monkeypatch.setattr(match_selectors, "MAX_CATCHUP_ENTRIES", whole["v"] - 1)
    assert match_selectors.table_catchup(match_id=match.pk, since=0, viewer=0)["type"] \
        == "snapshot"


def test_the_tokens_page_makes_shows_once_and_revokes() -> None:
    owner, _ = _owner_with_club()
    bot_create(owner=owner, username="bot2", display_name="小黑")
    client = Client()
    client.force_login(owner)
    page = client.get("/accounts/tokens/")
    assert page.status_code == 200 and "小黑（机器人）" in page.content.decode()
    made = client.post("/accounts/tokens/", {
        "action": "token", "token-name": "练习", "token-account": owner.pk, "token-play": "on",
    })
    shown = made.content.decode()
    token = ApiToken.objects.get(name="练习")
    assert made.status_code == 200 and token.play and "从未使用" in shown
    secret = shown.split("word-break: break-all\">")[1].split("<")[0]
    assert secret.startswith(token.token_key)
    assert secret not in client.get("/accounts/tokens/").content.decode()  # shown once
    client.post("/accounts/tokens/", {"action": "revoke", "key": token.token_key})
    assert not ApiToken.objects.exists()
