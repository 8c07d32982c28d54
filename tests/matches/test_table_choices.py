"""Around the table (issue 47): 托管 by choice, the shared 再来一场 prompt, and two tabs on
one seat, over the table socket (Channels' communicator); time moves with the test clock.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.clubs.models import Room, RoomSeat
from apps.matches import frames, pacing, services, state
from apps.matches.frames import view_version
from apps.matches.models import Match, MatchPlayer
from apps.matches.protocol import MatchError
from tests.support.clock import later
from tests.support.factories import Table
from tests.support.rounds import round_now
from tests.support.ws import connect_as

from .driving import choose
from .test_match_end import play_out_match
from .test_table_care import fire_when_due
from .test_table_consumer import open_all, quiet, recv

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async


def _act(match: Match, user: Any, payload: dict[str, Any]) -> int:
    return services.match_act(match_id=match.pk, user_id=user.pk, payload=payload)


def _auto(match_id: int, seat: int) -> bool:
    return bool(MatchPlayer.objects.get(match_id=match_id, seat=seat).auto_play)


async def _next_of(comm: WebsocketCommunicator, kind: str,
                   where: Any = lambda frame: True) -> dict[str, Any]:
    """The next frame of type ``kind`` that ``where`` accepts, skipping others."""
    for _ in range(50):
        frame = await recv(comm)
        if frame["type"] == kind and where(frame):
            return frame
    raise AssertionError(f"no {kind} frame")


def _without(seat: int) -> Any:
    return lambda frame: seat not in [s["seat"] for s in frame["seats"]]


# -- 托管 by choice --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_player_chooses_tuoguan_and_the_sweep_plays_their_turn(
    make_table: Any, clock: Any,
) -> None:
    table = await db(make_table)()
    comms, frames = await open_all(table)
    turn = frames[0]["observation"]["turn"]
    other = (turn + 1) % 4
    await comms[turn].send_json_to({"type": "auto_play", "id": "a1"})
    mine = await recv(comms[turn])
    assert mine["type"] == "update" and mine["id"] == "a1"
    assert {"type": "auto_play", "seat": turn, "on": True} in [
        {k: e[k] for k in ("type", "seat", "on")} for e in mine["events"]
        if e["type"] == "auto_play"]
    seen = await recv(comms[other])  # the table sees the 托管 badge; no id for others
    assert seen["table"]["players"][turn]["auto_play"] is True and "id" not in seen

    await comms[turn].send_json_to({"type": "auto_play"})
    refused = await recv(comms[turn])
    assert refused["code"] == "already_auto_play" and refused["message"] == "你已经在托管中"

    version = mine["v"]
    assert await db(later)(clock, pacing.AUTO_PLAY_DELAY.total_seconds() - 0.01) == 0
    assert await db(later)(clock, 0.02) == 1  # the 托管 delay passed: the sweep played
    played = await recv(comms[turn])
    assert played["v"] > version and played["table"]["players"][turn]["auto_play"] is True

    await comms[turn].send_json_to({"type": "resume"})
    back = await _next_of(comms[turn], "update")
    assert back["table"]["players"][turn]["auto_play"] is False
    for comm in comms:
        await comm.disconnect()


def test_tuoguan_waits_while_a_claim_window_is_open(make_table: Any) -> None:
    """A window's decisions are private (H1): 托管 is refused while one is open (the phase
    is public), and accepted once it closed."""
    table = make_table("duyun", claim_pause_ms=500)
    match = table.match
    rnd = round_now(match)
    turn = rnd.turn
    discard = next(a for a in rnd.legal_actions(turn) if a.type.value == "discard")
    _act(match, table.users[turn], {**discard.to_json(), "v": view_version(match.views, turn)})
    match.refresh_from_db()
    assert round_now(match).window is not None  # held for the claim pause at least
    waiting = (turn + 2) % 4
    with pytest.raises(MatchError) as refused:
        _act(match, table.users[waiting], {"type": "auto_play"})
    assert refused.value.code == "auto_play_in_window"
    assert refused.value.message == "正在等吃碰杠胡的选择，本轮过后再托管"
    assert not _auto(match.pk, waiting)


def test_tuoguan_between_hands_makes_the_seat_ready_and_may_deal(make_table: Any) -> None:
    """A seat in 托管 is ready between hands (D5): choosing it there readies the seat, and
    the last seat to be ready deals the next hand."""
    table = make_table("duyun", hands_per_match=4)
    match = table.match
    MatchPlayer.objects.filter(match=match).exclude(seat=2).update(auto_play=True)
    state.state_forget_all()
    for _ in range(600):
        current = Match.objects.get(pk=match.pk)
        if current.stage != Match.Stage.HAND:
            break
        move = choose(round_now(current).observation(2))
        if move is None:
            fire_when_due(match)
        else:
            _act(current, table.users[2], {**move, "v": view_version(current.views, 2)})
    match.refresh_from_db()
    assert match.stage == Match.Stage.BETWEEN and match.ready_seats == [0, 1, 3]
    _act(match, table.users[2], {"type": "auto_play"})
    match.refresh_from_db()
    assert _auto(match.pk, 2) and match.stage == Match.Stage.HAND and match.hands_played == 1


# -- 再来一场, shared ------------------------------------------------------------------------


def _finished(make_table: Any, **options: Any) -> Table:
    table = make_table(**options)
    play_out_match(table.match)
    MatchPlayer.objects.filter(match=table.match, computer=False).update(auto_play=False)
    return table


def _seats(room: Room) -> dict[int, bool]:
    return dict(RoomSeat.objects.filter(room=room).values_list("seat", "ready"))


@pytest.mark.asyncio
async def test_rematch_is_a_shared_prompt_and_its_deadline_stands_up_who_did_not_agree(
    make_table: Any, clock: Any,
) -> None:
    table = await db(_finished)(make_table)
    comms, frames = await open_all(table)
    assert {f["table"]["status"] for f in frames} == {"finished"}
    await comms[0].send_json_to({"type": "rematch", "id": 5})
    answer = await _next_of(comms[0], "rematch")
    deadline = int((pacing.now() + timedelta(seconds=pacing.REMATCH_SECONDS)).timestamp() * 1000)
    assert answer["id"] == 5 and answer["state"] == "open" and answer["deadline"] == deadline
    for index in (1, 2, 3, 4):  # every seat's screen, and the spectator's
        prompt = await _next_of(comms[index], "rematch")
        assert prompt["state"] == "open" and prompt["deadline"] == deadline and "id" not in prompt
        assert [(s["seat"], s["agreed"]) for s in prompt["seats"]] == [
            (0, True), (1, False), (2, False), (3, False)]
        assert prompt["seats"][0]["name"] == "张三"

    await comms[1].send_json_to({"type": "rematch"})
    agreed = await _next_of(comms[2], "rematch")
    assert [s["seat"] for s in agreed["seats"] if s["agreed"]] == [0, 1]
    await comms[3].send_json_to({"type": "rematch_leave", "id": "bye"})
    left = await _next_of(comms[3], "rematch", lambda frame: "id" in frame)
    assert left["id"] == "bye" and 3 not in [s["seat"] for s in left["seats"]]
    seen = await _next_of(comms[0], "rematch", _without(3))  # after seat 1's agreement
    assert seen["state"] == "open" and len(seen["seats"]) == 3

    # A page that connects now (a reload) is shown the open prompt after its snapshot.
    await comms[2].disconnect()
    comms[2] = connect_as(table.users[2], table.room.code)
    await comms[2].connect()
    assert (await recv(comms[2]))["type"] == "snapshot"
    assert (await _next_of(comms[2], "rematch"))["state"] == "open"

    assert await db(later)(clock, pacing.REMATCH_SECONDS - 1) == 0
    assert await db(_seats)(table.room) == {0: True, 1: True, 2: False}
    assert await db(later)(clock, 1) == 1  # the deadline: seat 2 had not agreed
    expired = await _next_of(comms[0], "rematch")
    assert expired["state"] == "expired" and expired["deadline"] is None
    assert [s["seat"] for s in expired["seats"]] == [0, 1]
    room = await db(Room.objects.get)(pk=table.room.pk)
    assert room.status == Room.Status.WAITING and room.rematch_deadline is None
    assert await db(_seats)(table.room) == {0: True, 1: True}
    assert await db(later)(clock, 120) == 0  # nothing more is due
    for comm in comms:
        await comm.disconnect()


@pytest.mark.asyncio
async def test_when_everyone_agrees_the_next_match_deals_and_the_old_deadline_does_nothing(
    make_table: Any, clock: Any,
) -> None:
    table = await db(_finished)(make_table, computers=2)
    first = await db(lambda: table.match.pk)()
    comms, _ = await open_all(table)
    await comms[1].send_json_to({"type": "rematch"})
    prompt = await _next_of(comms[0], "rematch")
    # The computers agreed at once.
    assert [s["seat"] for s in prompt["seats"] if s["agreed"]] == [1, 2, 3]
    assert [s["computer"] for s in prompt["seats"]] == [False, False, True, True]
    await comms[0].send_json_to({"type": "rematch"})
    snapshot = await _next_of(comms[0], "snapshot")
    assert snapshot["table"]["match"] != first and snapshot["table"]["status"] == "playing"
    assert (await _next_of(comms[1], "snapshot"))["table"]["match"] == snapshot["table"]["match"]
    await db(later)(clock, pacing.REMATCH_SECONDS + 5)
    room = await db(Room.objects.get)(pk=table.room.pk)
    assert room.status == Room.Status.PLAYING and room.rematch_deadline is None
    assert len(await db(_seats)(table.room)) == 4
    for comm in comms:
        await comm.disconnect()


@pytest.mark.asyncio
async def test_the_rooms_form_opens_the_same_prompt_and_a_refusal_is_in_chinese(
    make_table: Any,
) -> None:
    table = await db(_finished)(make_table)
    comms, _ = await open_all(table)
    await comms[4].send_json_to({"type": "rematch"})
    assert (await recv(comms[4]))["code"] == "not_seated"

    def post() -> int:
        client = Client()
        client.force_login(table.users[2])
        return client.post(f"/rooms/{table.room.code}/rematch/").status_code

    assert await db(post)() == 302
    prompt = await _next_of(comms[0], "rematch")
    assert [s["seat"] for s in prompt["seats"] if s["agreed"]] == [2]
    await comms[0].send_json_to({"type": "rematch", "extra": 1})
    assert (await recv(comms[0]))["code"] == "malformed"
    await comms[3].send_json_to({"type": "rematch_leave"})
    await _next_of(comms[3], "rematch", _without(3))
    await comms[3].send_json_to({"type": "rematch_leave"})
    refused = await _next_of(comms[3], "error")
    assert refused["code"] == "rematch_refused" and refused["message"] == "你没有入座"
    for comm in comms:
        await comm.disconnect()


# -- two tabs on one seat ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_second_tab_on_a_seat_replaces_the_first(make_table: Any) -> None:
    table = await db(make_table)()
    comms, frames = await open_all(table)
    turn = frames[0]["observation"]["turn"]
    second = connect_as(table.users[turn], table.room.code)
    assert (await second.connect())[0]
    fresh = await recv(second)
    assert fresh["type"] == "snapshot"
    replaced = await recv(comms[turn])
    assert replaced == {"type": "replaced", "v": frames[turn]["v"]}
    closed = await comms[turn].receive_output(5)
    assert closed == {"type": "websocket.close", "code": 4009}
    # The new tab plays; the seat stayed connected for the others.
    legal = fresh["observation"]["me"]["legal"]
    move = next(a for a in legal if a["type"] == "discard")
    await second.send_json_to({"type": "discard", "tile": move["tile"], "v": fresh["v"]})
    assert (await _next_of(second, "update"))["v"] > fresh["v"]
    # Spectators may watch in as many tabs as they like.
    watcher = connect_as(table.spectator, table.room.code)
    assert (await watcher.connect())[0]
    assert (await recv(watcher))["type"] == "snapshot"
    kinds = []
    while not await comms[4].receive_nothing(0.2):
        kinds.append((await comms[4].receive_json_from(5))["type"])
    assert "update" in kinds and "replaced" not in kinds
    for comm in (second, watcher, *comms[:turn], *comms[turn + 1:]):
        await comm.disconnect()


@pytest.mark.asyncio
async def test_an_older_tabs_late_notice_leaves_the_newer_one_open(make_table: Any) -> None:
    """A page that reconnects at once can open its new connection before the old one's
    handshake has sent its "I replace you" notice (CI, 2026-12-06): that late notice of
    the older connection must not close the newer one; a newer one's notice still does."""
    table = await db(make_table)()
    user = table.users[0]
    tab = connect_as(user, table.room.code)
    assert (await tab.connect())[0]
    assert (await recv(tab))["type"] == "snapshot"
    group = frames.seat_group(table.room.pk, user.pk)
    moment = pacing.now().timestamp()
    layer = get_channel_layer()
    await layer.group_send(group, {"type": frames.REPLACED_EVENT, "origin": "older",
                                   "opened": moment - 1})
    assert await quiet(tab, 0.2)
    await layer.group_send(group, {"type": frames.REPLACED_EVENT, "origin": "newer",
                                   "opened": moment + 1})
    assert (await recv(tab))["type"] == "replaced"
    assert await tab.receive_output(5) == {"type": "websocket.close", "code": 4009}
