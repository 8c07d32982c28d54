"""The end of a match (issue 32): the standings page with every hand and 大赢家, the result
image, the room showing its last result, and 再来一场 with the same four and rules."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from apps.clubs.models import Room, RoomSeat
from apps.matches import services
from apps.matches.models import Match, MatchPlayer

from .test_table_care import all_in_tuoguan, fire_when_due

pytestmark = pytest.mark.django_db(transaction=True)


def play_out_match(match: Match) -> Match:
    all_in_tuoguan(match)
    for _ in range(3000):
        fire_when_due(match)
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            return match
    raise AssertionError("the match did not end")


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_standings_show_every_hand_the_big_winner_and_an_image(make_table: Any) -> None:
    table = make_table()
    match = play_out_match(table.match)
    assert match.status == Match.Status.FINISHED
    page = client_of(table.users[1]).get(f"/rooms/{table.room.code}/result/{match.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    for number in range(1, match.hands_total + 1):
        assert f'data-hand="{number}"' in html and f"第{number}局" in html
    for seat in range(4):
        assert f'data-total="{match.totals[seat]}"' in html
    assert ("大赢家" in html) == (max(match.totals) > 0)
    assert "再来一场" in html and "解散" not in html
    outsider = client_of(table.outsider).get(f"/rooms/{table.room.code}/result/{match.pk}/")
    assert outsider.status_code == 404

    lobby = client_of(table.users[0]).get(f"/rooms/{table.room.code}/").content.decode()
    assert "上一场成绩" in lobby and 'id="seats" class="seats" hidden' in lobby
    assert '<span id="room-status">本场已结束</span>' in lobby  # not 已关闭 beside 再来一场


def test_a_dissolved_match_says_so_in_its_standings_and_room(make_table: Any) -> None:
    table = make_table()
    for seat in range(4):
        payload = ({"type": "dissolve_propose"} if seat == 0
                   else {"type": "dissolve_vote", "agree": True})
        services.match_act(match_id=table.match.pk, user_id=table.users[seat].pk,
                           payload=payload)
    match = table.match
    assert match.status == Match.Status.DISSOLVED
    html = client_of(table.users[2]).get(
        f"/rooms/{table.room.code}/result/{match.pk}/").content.decode()
    assert "已解散" in html and "全体同意解散" in html and "没有打完的牌局" in html
    lobby = client_of(table.users[2]).get(f"/rooms/{table.room.code}/").content.decode()
    assert "已解散 · 全体同意解散" in lobby


def test_rematch_starts_a_new_match_with_the_same_four_once_each_confirms(
    make_table: Any,
) -> None:
    table = make_table()
    first = play_out_match(table.match)
    code = table.room.code
    for seat in (2, 0, 3):
        reply = client_of(table.users[seat]).post(f"/rooms/{code}/rematch/")
        assert reply.status_code == 302
    room = Room.objects.get(pk=table.room.pk)
    assert room.status == Room.Status.WAITING
    assert sorted(RoomSeat.objects.filter(room=room, ready=True).values_list("seat", flat=True)) \
        == [0, 2, 3]
    assert Match.objects.filter(room=room).count() == 1
    refused = client_of(table.outsider).post(f"/rooms/{code}/rematch/")
    assert refused.status_code == 404
    client_of(table.users[1]).post(f"/rooms/{code}/rematch/")
    second = Match.objects.filter(room=room).exclude(pk=first.pk).get()
    assert second.status == Match.Status.PLAYING and second.settings == first.settings
    assert [p.user_id for p in MatchPlayer.objects.filter(match=second).order_by("seat")] == [
        u.pk for u in table.users]
    again = client_of(table.users[1]).post(f"/rooms/{code}/rematch/", follow=True)
    assert "新的一场已经开始" in again.content.decode()
