"""A match with three computer seats over real sockets: daphne and a Celery worker with
its beat, the human on a WebSocket, the computers moving only through the beat's sweep in
real time (their 0.8–1.5 s pauses included)."""

from __future__ import annotations

import asyncio
import io
import uuid
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import Sum

from apps.accounts.models import User
from apps.clubs.models import Club, Membership
from apps.clubs.services import rooms
from apps.clubs.services.computers import room_computers_fill
from apps.ledgers.models import HandResult, MatchResult
from apps.matches.models import Match
from tests.support.processes import start_celery_worker, start_daphne
from tests.support.ws import TableClient, session_cookie

from .conftest import TEST_QUEUE, table_settings
from .driving import choose

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


# A real-time match (the computers' pauses included) takes about 250 s alone, and over
# pytest-timeout's 300 s default when CI runs its embedded and scale passes at once.
@pytest.mark.timeout(600)
def test_a_computer_match_plays_to_the_end_over_real_sockets(live_env: dict[str, str]) -> None:
    tag = uuid.uuid4().hex[:6]
    owner = User.objects.create_user(f"live_{tag}", display_name="张三")
    club = Club.objects.create(name="测试圈", invite_code=f"L{tag}")
    Membership.objects.create(club=club, user=owner, role=Membership.Role.OWNER)
    room = rooms.room_create(club=club, actor=owner, variant="duyun",
                             settings=table_settings("duyun"), allow_computers=True)
    rooms.room_sit(room=room, user=owner, seat=0)
    room_computers_fill(room=room, actor=owner)
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = Match.objects.get(room=room)
    cookie = session_cookie(owner)
    with start_celery_worker(live_env, TEST_QUEUE), start_daphne(live_env) as daphne:
        last = asyncio.run(asyncio.wait_for(_play(daphne.port, room.code, cookie), 900))
    assert last["table"]["status"] == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.hands_played == match.hands_total
    for hand in match.hands.all():
        assert HandResult.objects.filter(hand=hand).aggregate(s=Sum("points"))["s"] == 0
    results = list(MatchResult.objects.filter(match=match).order_by("seat"))
    assert [r.points for r in results] == list(match.totals) and sum(match.totals) == 0
    out = io.StringIO()
    call_command("ledger_verify", stdout=out)
    assert "不" not in out.getvalue() and "缺" not in out.getvalue(), out.getvalue()


async def _play(port: int, code: str, cookie: str) -> dict[str, Any]:
    """The human plays simple moves and gets ready between hands; the rest is the beat's."""
    client = TableClient(port, code, cookie)
    assert (await client.open())["type"] == "snapshot"
    while client.latest["table"]["status"] == "playing":
        latest = client.latest
        table = latest["table"]
        if table["stage"] == "hand" and (move := choose(latest["observation"])) is not None:
            await client.send({**move, "v": latest["v"]})
        elif table["stage"] == "between" and 0 not in table["ready"]:
            await client.send({"type": "ready_next"})
        frame = await client.recv(timeout=30)
        # A move sent just as a computer's arrived is refused as stale: the next frame is
        # already on its way, and the loop decides again from it.
        assert frame["type"] != "error" or frame["code"] == "stale_version", frame
    await client.close()
    return client.latest
