"""Issue 47, item 7: 练习房 starts from one tap with the game's default rules."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Room
from apps.clubs.services import clubs
from apps.matches.models import Match

pytestmark = pytest.mark.django_db


def test_one_tap_opens_a_practice_room_full_of_computers() -> None:
    owner = User.objects.create_user("owner", display_name="圈主")
    club = clubs.club_create(owner=owner, name="周末圈")
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.pk}/").content.decode()
    assert f'action="/clubs/{club.pk}/practice/duyun/"' in page
    response = client.post(f"/clubs/{club.pk}/practice/duyun/")
    room = Room.objects.get(club=club)
    # The tap lands at the table: the match has started (the computers are ready at once).
    assert response.status_code == 302 and response["Location"] == f"/rooms/{room.code}/play/"
    assert room.practice and room.variant == "duyun"
    seats = sorted(room.seats.values_list("seat", "user__is_computer"))
    assert seats[0] == (0, False) and all(c for _, c in seats[1:])
    assert len(seats) == room.seat_count
    match = Match.objects.get(room=room)
    assert match.status == Match.Status.PLAYING and match.practice
    # A game the club does not play (or the engine-test one) is refused, nothing opened.
    assert client.post(f"/clubs/{club.pk}/practice/basic/").status_code == 302
    assert Room.objects.filter(club=club).count() == 1
