"""Faults during play: SIGKILL daphne and the Celery worker, restart them, play on.

Asserts: every move the server acknowledged is in the log exactly once, the live state
equals the replay of the log, timers still fire after a worker restart, and
``ledger_verify`` is clean.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from websockets.sync.client import ClientConnection, connect

from apps.matches import state
from apps.matches.models import Match, MatchEvent
from majiang.record import replay
from tests.security import cases
from tests.security.helpers import build_table

from .conftest import Cluster

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.timeout(240)]


def _cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _open(port: int, code: str, cookie: str, since: int | None = None) -> ClientConnection:
    query = f"?v={since}" if since is not None else ""
    # legacy=True: the connection outlives this call (no `with` block).
    return connect(f"ws://127.0.0.1:{port}/ws/rooms/{code}/{query}", open_timeout=10,
                   origin="http://127.0.0.1", additional_headers={"Cookie": cookie},
                   legacy=True)


def _state(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    while True:
        frame = json.loads(ws.recv(timeout=timeout))
        if frame["type"] != "presence":
            return frame


class Players:
    def __init__(self, cluster: Cluster, table: Any) -> None:
        self.cluster, self.table = cluster, table
        self.cookies = [_cookie(u) for u in table.users]
        self.ws: list[ClientConnection] = []
        self.latest: list[dict[str, Any]] = []
        # (seat, its versions from and to) of each move the server acknowledged
        self.acked: list[tuple[int, int, int]] = []

    def connect(self) -> None:
        since = [f["v"] for f in self.latest] or [None] * 4
        self.ws = [_open(self.cluster.web_port, self.table.room.code, c, s)
                   for c, s in zip(self.cookies, since, strict=True)]
        self.latest = [_state(w) for w in self.ws]

    def close(self) -> None:
        for w in self.ws:
            w.close()

    def start_mid_hand(self, moves: int = 10) -> None:
        """Connect every seat and play ``moves`` moves."""
        self.connect()
        for _ in range(moves):
            self.move()

    def finish_hand(self, match_id: int) -> None:
        """Play the hand to its end, then check the log, the replays and the ledger."""
        moves = 0
        while self.move() and moves < 400:
            moves += 1
        self.close()
        assert Match.objects.get(pk=match_id).stage != Match.Stage.HAND
        _final_checks(match_id, self.acked)

    def move(self) -> bool:
        """One legal move (first seat that can act); False when the hand is over."""
        if self.latest[0]["table"]["stage"] != "hand":
            return False
        seat, message = self._next_move()
        self.ws[seat].send(json.dumps(message))
        self._read_update(seat, message)
        return True

    def _next_move(self) -> tuple[int, dict[str, Any]]:
        seat, move = next((s, self.latest[s]["observation"]["me"]["legal"][0]) for s in range(4)
                          if self.latest[s]["observation"]["me"]["legal"])
        return seat, {k: v for k, v in move.items() if k != "seat"} | {"v": self.latest[seat]["v"]}

    def _read_update(self, seat: int, message: dict[str, Any]) -> None:
        """The mover's update, then that of every seat whose own version moved (a seat may
        see nothing of another's private decision, H2)."""
        frame = _state(self.ws[seat])
        if frame["type"] == "error":
            raise AssertionError(f"move {message} refused: {frame}")
        self.latest[seat] = frame
        views = Match.objects.get(pk=frame["table"]["match"]).views
        for s in range(4):
            if s != seat and views[s] > self.latest[s]["v"]:
                self.latest[s] = _state(self.ws[s])
        self.acked.append((seat, frame["from"], frame["v"]))


def _final_checks(match_id: int, acked: list[tuple[int, int, int]]) -> None:
    match = Match.objects.get(pk=match_id)
    seqs = list(MatchEvent.objects.filter(match=match).order_by("seq")
                .values_list("seq", flat=True))
    assert seqs == list(range(1, match.version + 1)), "log has gaps or duplicates"
    actions = MatchEvent.objects.filter(match=match, kind="action")
    for seat, since, v in acked:
        logged = actions.filter(seat=seat, **{f"views__{seat}__gt": since,
                                              f"views__{seat}__lte": v})
        assert logged.exists(), f"seat {seat}'s acknowledged move (its v{since}–{v}) is not logged"
    for hand in match.hands.all():
        rebuilt = state.round_rebuild(match, hand)
        if hand.record is not None:
            assert replay(hand.record).snapshot() == rebuilt.snapshot()
    call_command("ledger_verify")  # raises CommandError on any difference


def test_kill_daphne_mid_hand_then_resume(cluster: Cluster) -> None:
    table = build_table("duyun")
    match_id = table.match.pk
    cluster.start_web()
    players = Players(cluster, table)
    players.start_mid_hand()
    before = Match.objects.get(pk=match_id).views
    cluster.web.kill()  # type: ignore[union-attr]
    for w in players.ws:
        w.close()
    cluster.start_web()
    players.connect()  # reconnect with ?v=<last seen>: catch-up
    assert [f["v"] for f in players.latest] == before[:4]
    players.finish_hand(match_id)
    cases.record("test_process_kills (acknowledged moves across a daphne kill)",
                 len(players.acked))


@pytest.mark.parametrize("kill", [
    False,
    # A SIGKILLed worker (and its beat) dies mid-sweep; the restarted one's beat sweeps
    # again and finds the overdue deadline (apps.matches.tasks).
    True,
])
def test_kill_worker_then_timers_still_fire(cluster: Cluster, kill: bool) -> None:
    cluster.start_worker()
    table = build_table("duyun", turn_seconds=5)
    match_id = table.match.pk
    time.sleep(1)  # the worker's beat is sweeping
    if kill:
        cluster.worker.kill()  # type: ignore[union-attr]
        cluster.start_worker()
    # Nobody acts: within the turn time (plus slack) a restarted worker must time out the
    # dealer (discard), and never twice for one decision.
    end = time.monotonic() + 25
    while time.monotonic() < end:
        if MatchEvent.objects.filter(match_id=match_id, payload__timeout=True).exists():
            break
        time.sleep(0.5)
    timeouts = MatchEvent.objects.filter(match_id=match_id, payload__timeout=True)
    assert timeouts.exists(), "no timer fired after the worker was killed and restarted"
    _final_checks(match_id, [])
