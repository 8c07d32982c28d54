"""The fair shuffle's contributions (docs/security.md, "Fairness players can check"): the
next hand's commitment comes out before any contribution is taken, each seat contributes
once between hands, and the wall is the seed mixed with every contribution, as the log
says."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from apps.matches import services, state
from apps.matches.frames import table_info
from apps.matches.lifecycle import commitment_of
from apps.matches.models import Hand, Match, MatchEvent
from apps.matches.protocol import MatchError
from majiang import Round, get_variant
from majiang.wall import wall_seed
from tests.support.factories import Table
from tests.support.play import play_hand, random_policy
from tests.support.ws import connect_as

from .test_table_consumer import recv

pytestmark = pytest.mark.django_db(transaction=True)


def _value(n: int) -> str:
    return hashlib.sha256(str(n).encode()).hexdigest()


def _act(table: Table, seat: int, payload: dict[str, Any]) -> int:
    return services.match_act(match_id=table.match.pk, user_id=table.users[seat].pk,
                              payload=payload)


def _refused(table: Table, seat: int, payload: dict[str, Any], code: str) -> None:
    before = table.match
    with pytest.raises(MatchError) as refusal:
        _act(table, seat, payload)
    assert refusal.value.code == code and refusal.value.message != "操作无效"
    after = table.match
    assert (after.version, after.next_hand) == (before.version, before.next_hand)


def _events(match: Match, kind: str) -> list[dict[str, Any]]:
    return [e["public"] for p in MatchEvent.objects.filter(match=match).order_by("seq")
            .values_list("payload", flat=True) for e in p["events"] if e["public"]["type"] == kind]


def test_hand_one_waits_for_every_seat_or_for_its_time(make_table: Any) -> None:
    """Issue 30: hand 1's wall is not the server's alone. The match starts committed to it
    and dealt only once every seat has contributed (a contribution is the seat's 准备 for
    hand 1), or, with a seat missing, when the wait is over, with the values that came."""
    table = make_table(start=False)
    match = services.match_start(room=table.room)
    assert (match.stage, match.hands.count(), match.ready_seats) == (Match.Stage.BETWEEN, 0, [])
    assert match.next_hand is not None and match.next_hand["number"] == 1
    assert match.deadline is not None and match.timer_due == match.deadline
    for seat in (2, 0, 1):
        _act(table, seat, {"type": "contribute", "hand": 1, "value": _value(seat)})
    match.refresh_from_db()
    assert (match.stage, match.hands.count(), match.ready_seats) == (
        Match.Stage.BETWEEN, 0, [0, 1, 2])
    assert not services.match_timeout_fire(match_id=match.pk)  # not yet due: nothing dealt
    Match.objects.filter(pk=match.pk).update(timer_due=timezone.now() - timedelta(seconds=1),
                                             deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_timeout_fire(match_id=match.pk)
    hand1 = Hand.objects.get(match=match, number=1)
    assert hand1.contributions == [{"seat": s, "value": _value(s)} for s in (0, 1, 2)]
    assert Match.objects.get(pk=match.pk).stage == Match.Stage.HAND

    second = make_table(start=False)
    started = services.match_start(room=second.room)
    for seat in (3, 1, 0, 2):  # the last seat's value deals at once
        services.match_act(match_id=started.pk, user_id=second.users[seat].pk,
                           payload={"type": "contribute", "hand": 1, "value": _value(seat)})
    dealt = Hand.objects.get(match=started, number=1)
    assert [c["seat"] for c in dealt.contributions] == [0, 1, 2, 3]
    assert _events(started, "hand_start")[-1]["contributions"] == dealt.contributions


def test_contributions_are_taken_once_between_hands_and_make_the_wall(make_table: Any) -> None:
    table = make_table()
    match = table.match
    # Hand 1's commitment is published with the match's start; every seat's page
    # contributed (tests.support.start) before it was dealt.
    hand1 = Hand.objects.get(match=match, number=1)
    assert _events(match, "commitment") == [
        {"type": "commitment", "hand": 1, "commitment": hand1.commitment}]
    assert [c["seat"] for c in hand1.contributions] == [0, 1, 2, 3]
    assert hand1.wall_seed == wall_seed(
        hand1.seed, [(c["seat"], c["value"]) for c in hand1.contributions])
    _refused(table, 0, {"type": "contribute", "hand": 1, "value": _value(0)},
             "contribution_late")
    _refused(table, 0, {"type": "contribute", "hand": 2, "value": _value(0)}, "not_committed")

    play_hand(match, random_policy(random.Random(3)))
    match = table.match
    assert match.stage == Match.Stage.BETWEEN
    upcoming = match.next_hand
    assert upcoming is not None and upcoming["number"] == 2
    published = _events(match, "commitment")[-1]
    assert published == {"type": "commitment", "hand": 2,
                         "commitment": commitment_of(upcoming["salt"], upcoming["seed"])}
    # Every viewer's table shows the commitment and the contributions, never the seed.
    shown = table_info(match, list(match.players.all()), hand1, None)["next"]
    assert shown == {"hand": 2, "commitment": published["commitment"], "contributions": []}

    _act(table, 2, {"type": "contribute", "hand": 2, "value": _value(2)})
    _act(table, 0, {"type": "contribute", "hand": 2, "value": _value(0)})
    _refused(table, 0, {"type": "contribute", "hand": 2, "value": _value(9)},
             "already_contributed")
    for bad in ({"hand": 2, "value": _value(1).upper()}, {"hand": 2, "value": "ab"},
                {"hand": "2", "value": _value(1)}, {"value": _value(1)}):
        _refused(table, 1, {"type": "contribute", **bad}, "malformed")
    _refused(table, 1, {"type": "contribute", "hand": 3, "value": _value(1)}, "not_committed")
    assert [e["seat"] for e in _events(match, "contributed") if e["hand"] == 2] == [2, 0]

    for seat in range(4):
        _act(table, seat, {"type": "ready_next"})
    match = table.match
    assert match.stage == Match.Stage.HAND and match.next_hand is None
    hand2 = Hand.objects.get(match=match, number=2)
    expected = [{"seat": 0, "value": _value(0)}, {"seat": 2, "value": _value(2)}]
    assert hand2.contributions == expected
    assert hand2.commitment == published["commitment"]
    assert _events(match, "hand_start")[-1]["contributions"] == expected
    _refused(table, 1, {"type": "contribute", "hand": 2, "value": _value(1)},
             "contribution_late")

    # The log alone reproduces the wall: the revealed seed mixed with the logged
    # contributions deals the hand the table is playing, and not the seed by itself.
    logged = [(e["seat"], e["value"]) for e in _events(match, "contributed")
              if e["hand"] == 2]
    variant = get_variant(match.variant)
    dealt, _ = Round.deal(variant, match.settings, dealer=hand2.dealer, streak=hand2.streak,
                          seed=wall_seed(hand2.seed, logged))
    live = state.state_checkout(match).rnd
    state.state_forget_all()
    rebuilt = state.state_checkout(table.match).rnd
    assert live is not None and rebuilt is not None
    assert dealt.wall.tiles == live.wall.tiles == rebuilt.wall.tiles
    alone, _ = Round.deal(variant, match.settings, dealer=hand2.dealer, streak=hand2.streak,
                          seed=hand2.seed)
    assert alone.wall.tiles != dealt.wall.tiles

    play_hand(match, random_policy(random.Random(4)))
    hand2.refresh_from_db()
    assert hand2.record is not None and hand2.record["seed"] == hand2.wall_seed
    reveal = [e for e in _events(match, "reveal") if e["hand"] == 2]
    assert reveal == [{"type": "reveal", "hand": 2, "seed": hand2.seed, "salt": hand2.salt,
                       "commitment": hand2.commitment, "contributions": expected}]


@pytest.mark.asyncio
async def test_a_contribution_over_the_socket_reaches_the_table(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    match = await database_sync_to_async(lambda: table.match)()
    await database_sync_to_async(play_hand)(match, random_policy(random.Random(5)))
    comms = [connect_as(table.users[0], table.room.code), connect_as(table.spectator,
                                                                     table.room.code)]
    snapshots = []
    for comm in comms:
        assert (await comm.connect())[0]
        snapshots.append(await recv(comm))
    assert snapshots[1]["table"]["next"]["hand"] == 2
    upcoming = (await database_sync_to_async(lambda: table.match)()).next_hand
    for snapshot in snapshots:  # the next hand's seed stays on the server
        assert upcoming["seed"] not in json.dumps(snapshot)
        assert upcoming["salt"] not in json.dumps(snapshot)

    await comms[0].send_json_to({"type": "contribute", "hand": 2, "value": _value(0)})
    for comm in comms:
        update = await recv(comm)
        assert update["events"][0] == {"type": "contributed", "seat": 0, "hand": 2,
                                       "value": _value(0), "v": update["v"]}
        assert update["table"]["next"]["contributions"] == [{"seat": 0, "value": _value(0)}]
    await comms[0].send_json_to({"type": "contribute", "hand": 2, "value": _value(1)})
    error = await recv(comms[0])
    assert (error["code"], error["message"]) == ("already_contributed",
                                                 "你已经为这一局提交过随机数")
    for comm in comms:
        await comm.disconnect()
