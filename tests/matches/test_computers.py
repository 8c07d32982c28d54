"""Computer seats (电脑补位), 练习房 and 托管 by the advisor, through the match service, the
sweep and the table socket."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.errors import ActionForbidden, InvalidInputError
from apps.clubs.models import Club, Membership, Room, RoomSeat
from apps.clubs.services import rooms
from apps.clubs.services.computers import room_computers_fill
from apps.ledgers.models import HandResult, LedgerEntry, MatchResult
from apps.ledgers.selectors import LedgerFilters, ledger_access, member_totals
from apps.matches import computer, selectors, services, state
from apps.matches.consumers import TableConsumer
from apps.matches.frames import view_version
from apps.matches.models import Match, MatchEvent, MatchPlayer
from apps.matches.pacing import auto_play_delay
from apps.matches.protocol import MatchError
from majiang import Action
from majiang.advisor import choose as advisor_choose
from majiang.advisor import shanten_counts, unseen_counts
from majiang.analysis import waits
from majiang.tiles import counts_of, parse_tile
from tests.support.factories import table_settings
from tests.support.rounds import round_now
from tests.support.start import first_hand_contribute
from tests.support.ws import connect_as

from .driving import choose

pytestmark = [pytest.mark.django_db(transaction=True)]

TIMEOUT = 10


@pytest.fixture(autouse=True)
def _fast_player() -> Any:
    """The socket's human plays far faster than people do; the rate limit has its own
    tests (test_ws_fuzz, test_bad_input)."""
    with mock.patch.object(TableConsumer, "messages_per_second", 1000.0):
        yield


def _club_room(*, practice: bool = False, variant: str = "duyun") -> tuple[Room, User, User]:
    tag = uuid.uuid4().hex[:6]
    owner = User.objects.create_user(f"owner_{tag}", display_name="张三")
    member = User.objects.create_user(f"member_{tag}", display_name="李四")
    club = Club.objects.create(name="测试圈", invite_code=f"C{tag}")
    Membership.objects.create(club=club, user=owner, role=Membership.Role.OWNER)
    Membership.objects.create(club=club, user=member)
    room = rooms.room_create(
        club=club, actor=owner, variant=variant,
        settings=table_settings(variant, turn_seconds=5), allow_computers=True,
        practice=practice,
    )
    return room, owner, member


def _shift_clock(match_id: int) -> None:
    """Let time pass for the match: its last change and deadline move 2 s into the past,
    so the sweep finds the computer seats' pauses over (the deadline stays ahead)."""
    Match.objects.filter(pk=match_id).update(
        changed_at=F("changed_at") - timedelta(seconds=2),
        timer_due=F("timer_due") - timedelta(seconds=2),
    )


async def _recv(comm: WebsocketCommunicator) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(TIMEOUT)
        if frame["type"] != "presence":
            return frame


async def _play_match(comm: WebsocketCommunicator, match_id: int) -> dict[str, Any]:
    """The human at seat 0 plays simple moves over the socket and gets ready between
    hands; the computer seats move only through the sweep. Returns the last frame."""
    latest = await _recv(comm)
    assert latest["type"] == "snapshot"
    sweep = database_sync_to_async(services.match_timers_fire)
    shift = database_sync_to_async(_shift_clock)
    for _ in range(3000):
        table = latest["table"]
        if table["status"] != "playing":
            return latest
        obs = latest["observation"]
        _check_hints(latest)
        if table["stage"] == "hand" and (move := choose(obs)) is not None:
            await comm.send_json_to({**move, "v": latest["v"]})
        elif table["stage"] == "between" and 0 not in table["ready"]:
            await comm.send_json_to({"type": "ready_next"})
        else:
            await shift(match_id)
            assert await sweep() == 1  # a computer seat acted (or the next hand was dealt)
        latest = await _recv(comm)
        assert latest["type"] == "update", latest
    raise AssertionError("the match did not end")


def _check_hints(frame: dict[str, Any]) -> None:
    """听牌提示 in the seat's frame: one per discardable tile, and each ready hint's waits
    and unseen counts are the analysis' waits of the hand left."""
    obs = frame["observation"]
    if obs is None or "me" not in obs:
        return
    discards = sorted({a["tile"] for a in obs["me"]["legal"] if a["type"] == "discard"},
                      key=parse_tile)
    hints = frame.get("hints", [])
    assert [h["tile"] for h in hints] == discards
    tiles = [*obs["me"]["hand"], *([obs["me"]["drawn"]] if obs["me"]["drawn"] else [])]
    melds = len(obs["seats"][obs["me"]["seat"]]["melds"])
    unseen = unseen_counts(obs)
    for hint in hints:
        rest = list(tiles)
        rest.remove(hint["tile"])
        counts = counts_of(parse_tile(c) for c in rest)
        assert hint["shanten"] == shanten_counts(counts, melds)
        if hint["shanten"] == 0:
            assert hint["tiles"] == [[t.code, unseen[t]] for t in waits(counts, melds=melds)]
            assert hint["text"] == f"打这张听 {hint['kinds']} 种，剩 {hint['left']} 张"


@pytest.mark.asyncio
async def test_a_room_with_computer_seats_plays_its_match_to_the_end_with_a_clean_ledger(
) -> None:
    room, owner, member = await database_sync_to_async(_club_room)()

    def seat_and_fill() -> int:
        rooms.room_sit(room=room, user=owner, seat=0)
        seats = room_computers_fill(room=room, actor=owner)
        assert [s.seat for s in seats] == [1, 2, 3]
        rooms.room_ready_set(room=room, user=owner, ready=True)  # all ready: the match starts
        return Match.objects.get(room=room).pk

    match_id = await database_sync_to_async(seat_and_fill)()
    comm = connect_as(owner, room.code)
    connected, _ = await comm.connect()
    assert connected
    last = await _play_match(comm, match_id)
    await comm.disconnect()
    assert last["table"]["stage"] == "over"
    names = {p["seat"]: (p["name"], p["computer"]) for p in last["table"]["players"]}
    # Each computer seat has its own name, its level beside it; the table says 不记账.
    assert names == {0: ("张三", False), 1: ("电脑·小梅（标准）", True),
                     2: ("电脑·阿竹（标准）", True), 3: ("电脑·小兰（标准）", True)}
    assert last["table"]["booked"] is False
    await database_sync_to_async(_check_booked)(match_id, owner, member)


def _check_booked(match_id: int, owner: User, member: User) -> None:
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED and match.has_computers and not match.practice
    assert match.hands_played == match.hands_total == 4
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    computers = [p.user for p in players if p.computer]
    assert len(computers) == 3 and all(u.is_computer for u in computers)
    assert not Membership.objects.filter(user__in=computers).exists()  # never a member
    # Every computer move went through the sweep, without a timeout notice.
    for entry in MatchEvent.objects.filter(match=match, kind="action", seat__in=[1, 2, 3]):
        assert entry.payload["timeout"] is True
        assert not any(e.get("type") == "timeout" for e in entry.payload["events"])
    # Settled at the table, zero-sum per hand and per match; booked nowhere: nobody can pay
    # a computer, nor be paid by one (Match.booked).
    for hand in match.hands.all():
        assert hand.settlement is not None and sum(hand.settlement["totals"]) == 0
    assert sum(match.totals) == 0
    assert not LedgerEntry.objects.filter(match=match).exists()
    assert not HandResult.objects.filter(match=match).exists()
    assert not MatchResult.objects.filter(match=match).exists()
    out = io.StringIO()
    call_command("ledger_verify", stdout=out)
    assert "不" not in out.getvalue() and "缺" not in out.getvalue(), out.getvalue()
    access = ledger_access(club_id=match.club_id, user=owner)
    assert member_totals(access=access, filters=LedgerFilters()) == []


def test_a_practice_room_seats_three_computers_and_books_nothing() -> None:
    room, owner, member = _club_room(practice=True)
    seats = list(RoomSeat.objects.filter(room=room).select_related("user"))
    assert [(s.seat, s.user.is_computer, s.ready) for s in seats] == [
        (0, False, False), (1, True, True), (2, True, True), (3, True, True)]
    with pytest.raises(InvalidInputError):
        rooms.room_sit(room=room, user=member, seat=1)  # 练习房: nobody else sits down
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    assert match.practice
    # Play the first hand out: the owner by simple moves, the computers by the sweep.
    for _ in range(2000):
        match.refresh_from_db()
        if match.stage != Match.Stage.HAND:
            break
        rnd = round_now(match)
        move = choose(rnd.observation(0))
        if move is not None:
            services.match_act(match_id=match.pk, user_id=owner.pk,
                               payload={**move, "v": view_version(match.views, 0)})
        else:
            _shift_clock(match.pk)
            assert services.match_timers_fire() == 1
    assert match.hands_played == 1
    assert not LedgerEntry.objects.filter(match=match).exists()
    assert not HandResult.objects.filter(match=match).exists()
    services.match_dissolve(match_id=match.pk, reason="admin")
    assert not MatchResult.objects.filter(match=match).exists()
    out = io.StringIO()
    call_command("ledger_verify", stdout=out)
    assert "缺少" not in out.getvalue() and "没有每场成绩" not in out.getvalue(), out.getvalue()


def test_only_the_creator_fills_seats_and_only_where_allowed() -> None:
    room, owner, member = _club_room()
    rooms.room_sit(room=room, user=member, seat=1)
    with pytest.raises(ActionForbidden):
        room_computers_fill(room=room, actor=member)
    with pytest.raises(InvalidInputError):
        room_computers_fill(room=room, actor=owner)  # not seated yet
    rooms.room_sit(room=room, user=owner, seat=0)
    assert [s.seat for s in room_computers_fill(room=room, actor=owner)] == [2, 3]
    Room.objects.filter(pk=room.pk).update(allow_computers=False)
    RoomSeat.objects.filter(room=room, seat=3).delete()
    room.refresh_from_db()
    with pytest.raises(InvalidInputError):
        room_computers_fill(room=room, actor=owner)


def test_a_member_takes_a_computer_seat_in_the_lobby_and_between_hands() -> None:
    room, owner, member = _club_room()
    rooms.room_sit(room=room, user=owner, seat=0)
    room_computers_fill(room=room, actor=owner)
    rooms.room_sit(room=room, user=member, seat=3)  # replaces the computer in seat 3
    seat3 = RoomSeat.objects.get(room=room, seat=3)
    assert seat3.user == member and not seat3.ready
    RoomSeat.objects.filter(room=room, seat=3).delete()
    room_computers_fill(room=room, actor=owner)
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    with pytest.raises(MatchError) as refused:
        computer.match_seat_take(match_id=match.pk, user=member, seat=2)
    assert refused.value.message == "只能在两局之间接替电脑"
    # The spectator's table page offers the computers' seats by the names the table shows.
    page = Client()
    page.force_login(member)
    text = page.get(f"/rooms/{room.code}/play/").content.decode()
    assert "你在旁观" in text
    assert [f"接替{name}" in text for name in ("小梅", "阿竹")] == [True, True]
    for _ in range(2000):
        match.refresh_from_db()
        if match.stage != Match.Stage.HAND:
            break
        rnd = round_now(match)
        move = choose(rnd.observation(0))
        if move is not None:
            services.match_act(match_id=match.pk, user_id=owner.pk,
                               payload={**move, "v": view_version(match.views, 0)})
        else:
            _shift_clock(match.pk)
            services.match_timers_fire()
    assert match.stage == Match.Stage.BETWEEN
    with pytest.raises(MatchError):
        computer.match_seat_take(match_id=match.pk, user=member, seat=0)  # a person's seat
    other, _, _ = _club_room()
    Membership.objects.create(club=other.club, user=member)
    rooms.room_sit(room=other, user=member, seat=0)
    with pytest.raises(MatchError) as elsewhere:
        computer.match_seat_take(match_id=match.pk, user=member, seat=2)
    assert elsewhere.value.message == "你已在其他房间入座，请先离座"
    rooms.room_stand(room=other, user=member)
    computer.match_seat_take(match_id=match.pk, user=member, seat=2)
    player = MatchPlayer.objects.get(match=match, seat=2)
    assert player.user == member and not player.computer and not player.auto_play
    assert RoomSeat.objects.get(room=room, seat=2).user == member
    match.refresh_from_db()
    assert 2 not in match.ready_seats
    # A match with a computer seat is booked nowhere, before the member sat and after.
    assert not HandResult.objects.filter(match=match).exists()


def test_a_computer_pause_is_human_like_and_fixed_by_the_match_version_and_seat() -> None:
    room, owner, _ = _club_room(practice=True)
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    players = list(MatchPlayer.objects.filter(match=match))
    pauses = [auto_play_delay(match, p) for p in players if p.computer]
    assert all(timedelta(seconds=0.8) <= d <= timedelta(seconds=1.5) for d in pauses)
    assert pauses == [auto_play_delay(match, p) for p in players if p.computer]
    human = next(p for p in players if not p.computer)
    assert auto_play_delay(match, human) == timedelta(seconds=1)  # 托管's own delay


def _tuoguan_move() -> tuple[Action, Action | None]:
    """Deal a 练习房 hand, play the computers up to the owner's turn, put the owner in 托管
    and sweep: the logged move is the advisor's choice. Returns it and what the timeout
    action would have been."""
    room, owner, _ = _club_room(practice=True)
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    while 0 not in round_now(match).pending():  # the computers play up to the owner's turn
        _shift_clock(match.pk)
        assert services.match_timers_fire() == 1
        match.refresh_from_db()
    # The owner turns 托管 on (as two timeouts in a row would, D5); another process's view.
    MatchPlayer.objects.filter(match=match, seat=0).update(auto_play=True)
    state.state_forget_all()
    rnd = round_now(match)
    hand = match.hands.get(number=1)
    expected = advisor_choose(rnd.observation(0), rnd.legal_actions(0),
                              seed=f"{match.pk}:{hand.number}:{match.version}",
                              settings=match.settings)
    drawn = rnd.timeout_action(0)
    _shift_clock(match.pk)
    Match.objects.filter(pk=match.pk).update(timer_due=timezone.now())
    assert services.match_timers_fire() == 1
    entry = MatchEvent.objects.filter(match=match, kind="action", seat=0).get()
    assert Action.from_json(entry.payload["action"]) == expected
    services.match_dissolve(match_id=match.pk, reason="admin")  # no timers left for the next
    return expected, drawn


def test_tuoguan_plays_the_advisors_choice_from_the_seats_observation() -> None:
    """托管 is the seat's choice of automatic play: its move is the advisor's pick from the
    seat's own observation, not the timeout's drawn-tile discard (D5 keeps that for a real
    timeout): over four deals, at least one 托管 move differs from that discard."""
    moves = [_tuoguan_move() for _ in range(4)]
    assert any(advised != drawn for advised, drawn in moves)


@pytest.mark.parametrize("shown", [True, False])
def test_hints_follow_the_room_setting(shown: bool) -> None:
    """听牌提示 is a room setting (on by default): the dealer's first snapshot carries one
    hint per discardable tile only when it is on."""
    room, owner, _ = _club_room(practice=True)
    Room.objects.filter(pk=room.pk).update(hints=shown)
    room.refresh_from_db()
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    assert round_now(match).pending() == (0,)  # 都匀: the opener deals first (D4)
    frame = selectors.table_snapshot(match.pk, 0)
    assert ("hints" in frame) is shown
    if shown:
        _check_hints(frame)
    assert "hints" not in selectors.table_snapshot(match.pk, 1)  # a computer's, not its turn


def test_a_lone_player_among_computers_dissolves_at_once() -> None:
    """Computer seats agree to a dissolve vote at once, so a 练习房's player ends it alone."""
    room, owner, _ = _club_room(practice=True)
    rooms.room_ready_set(room=room, user=owner, ready=True)
    match = first_hand_contribute(Match.objects.get(room=room))
    services.match_act(match_id=match.pk, user_id=owner.pk, payload={"type": "dissolve_propose"})
    match.refresh_from_db()
    assert match.status == Match.Status.DISSOLVED
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED
