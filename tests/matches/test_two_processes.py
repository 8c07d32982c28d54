"""One room's players split over two daphne processes sharing Redis and the database."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.matches import services, state
from apps.matches.frames import view_version
from apps.matches.models import Match, MatchEvent
from apps.matches.protocol import MatchError
from tests.support.processes import start_celery_worker, start_daphne
from tests.support.ws import TableClient, session_cookie

from .conftest import TEST_QUEUE
from .live import assert_log_replays, assert_versions_once_in_order, play_moves

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_a_hand_across_two_processes(make_table: Any, live_env: dict[str, str]) -> None:
    """SQLite works here too: every write is ``BEGIN IMMEDIATE`` on one file (20 s busy
    timeout), so the two processes queue up exactly as ``select_for_update`` makes them."""
    table = make_table()
    cookies = [session_cookie(u) for u in table.users]
    match = table.match
    with (
        start_celery_worker(live_env, TEST_QUEUE),
        start_daphne(live_env) as first,
        start_daphne(live_env) as second,
    ):
        ports = [first.port, first.port, second.port, second.port]
        clients = asyncio.run(asyncio.wait_for(_play(table.room.code, ports, cookies), 120))
    assert_log_replays(match.pk, clients)
    for seat, client in enumerate(clients):
        assert_versions_once_in_order(client, view_version(match.views, seat), client.v)
        assert client.connected == dict.fromkeys(range(4), True)


async def _play(code: str, ports: list[int], cookies: list[str]) -> list[TableClient]:
    clients = [TableClient(p, code, c) for p, c in zip(ports, cookies, strict=True)]
    for client in clients:
        assert (await client.open())["type"] == "snapshot"
    await play_moves(clients)
    for client in clients:
        await client.close()
    return clients


def test_a_move_after_another_process_moved_the_match_is_judged_on_the_row(
    make_table: Any, celery_worker: Any
) -> None:
    """This process holds the match's state from its own last move; the worker's sweep
    (another process) then plays a timeout. A move for the version the worker left is
    accepted, not refused on this process's older state; and a move that was legal only
    before the worker's is refused, not written over it."""
    table = make_table(turn_seconds=30)
    match_id = table.match.pk
    services.match_act(**_pending_move(table))  # this process caches the state it made

    fresh_before = _after_a_timeout_elsewhere(match_id)
    accepted = services.match_act(**_pending_move(table))
    assert accepted > fresh_before

    stale = _pending_move(table)
    _after_a_timeout_elsewhere(match_id)
    with pytest.raises(MatchError) as refused:
        services.match_act(**stale)
    assert refused.value.code == "stale_version"
    match = Match.objects.get(pk=match_id)
    seqs = list(MatchEvent.objects.filter(match=match).values_list("seq", flat=True))
    assert seqs == list(range(1, match.version + 1))
    hand = match.hands.order_by("-number").first()
    cached = state.state_checkout(match).rnd
    assert hand is not None and cached is not None
    assert cached.snapshot() == state.round_rebuild(match, hand).snapshot()


def _pending_move(table: Any) -> dict[str, Any]:
    """The first pending seat's timeout action at the match's current version, as its
    player would send it; read from the log, leaving this process's cache alone."""
    match = Match.objects.get(pk=table.match.pk)
    hand = match.hands.order_by("-number").first()
    assert hand is not None
    rnd = state.round_rebuild(match, hand)
    seat = rnd.pending()[0]
    action = rnd.timeout_action(seat)
    assert action is not None
    payload = {k: v for k, v in action.to_json().items() if k != "seat"}
    return {"match_id": match.pk, "user_id": table.users[seat].pk,
            "payload": {**payload, "v": view_version(match.views, seat)}}


def _after_a_timeout_elsewhere(match_id: int) -> int:
    """Let the decision time out now, and wait until the worker's sweep has played it (its
    entries commit together); return the version it left."""
    before = Match.objects.get(pk=match_id).version
    past = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=match_id).update(deadline=past, timer_due=past)
    deadline = time.monotonic() + 20
    while (version := Match.objects.get(pk=match_id).version) == before:
        assert time.monotonic() < deadline, "the worker's sweep did not play the timeout"
        time.sleep(0.05)
    return version
