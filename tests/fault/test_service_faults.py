"""Faults of the services during play: Redis killed and restarted, PostgreSQL unreachable.

Asserts, as in :mod:`tests.fault.test_process_kills`: every move the server acknowledged is
in the log exactly once, the log has no gaps, the live state equals the replay of the log,
and ``ledger_verify`` is clean. Plus: without Redis the table plays on and every seat sees
each move (from the database); without the database clients get a typed ``unavailable``
error; and a decision falls due and times out once Redis is back (the beat's sweep,
:mod:`apps.matches.tasks`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
import requests
from django.db import connection
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection

from apps.core.embedded_redis import free_port
from apps.matches import pacing
from apps.matches.models import Match, MatchEvent
from tests.security import cases
from tests.security.helpers import build_table

from .conftest import Cluster
from .test_process_kills import _cookie, _final_checks, _open, _state

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.timeout(90)]

TURN_SECONDS = 5
MAX_MOVES = 400


class Table:
    """Four players at one table of ``cluster``, moving the first seat that can act."""

    def __init__(self, cluster: Cluster, table: Any) -> None:
        self.cluster, self.table = cluster, table
        self.match_id = table.match.pk
        self.cookies = [_cookie(u) for u in table.users]
        self.ws: list[ClientConnection] = []
        self.latest: list[dict[str, Any]] = []
        self.acked: list[tuple[int, int, int]] = []  # (from, v, seat) of acknowledged moves

    def connect(self, timeout: float = 20) -> None:
        """(Re)connect every seat, with ``?v=`` once it has seen a frame; retry until the
        server accepts (it may still be reconnecting to Redis), at most ``timeout`` s."""
        since = [f["v"] for f in self.latest] or [None] * 4
        end = time.monotonic() + timeout
        for attempt in range(100):
            self.close()
            try:
                self.ws = [_open(self.cluster.web_port, self.table.room.code, c, s)
                           for c, s in zip(self.cookies, since, strict=True)]
                self.latest = [_state(w, timeout=5) for w in self.ws]
                return
            except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as exc:
                if time.monotonic() > end:
                    raise AssertionError(f"no reconnect after {attempt + 1} tries") from exc
                time.sleep(0.5)
        raise AssertionError("no reconnect after 100 tries")

    def close(self) -> None:
        for w in self.ws:
            w.close()
        self.ws = []

    def next_move(self) -> tuple[int, dict[str, Any]] | None:
        """The first seat that can act and its message, or None when the hand is over.

        When no seat can act (a seat in 托管 is about to be played by its timer), waits for
        the next change, at most a few times.
        """
        for _ in range(10):
            if self.latest[0]["table"]["stage"] != "hand":
                return None
            for seat in range(4):
                legal = self.latest[seat]["observation"]["me"]["legal"]
                if legal:
                    message = {k: v for k, v in legal[0].items() if k != "seat"}
                    return seat, message | {"v": self.latest[seat]["v"]}
            _state(self.ws[0], timeout=2 * TURN_SECONDS + 5)  # the hand has moved on
            self.sync()
        raise AssertionError(f"no seat can act: {self.latest[0]['table']}")

    def sync(self) -> None:
        """Read every seat's frames up to its own version now."""
        views = self.views()
        for s in range(4):
            while self.latest[s]["v"] < views[s]:
                frame = _state(self.ws[s])
                assert frame["type"] != "error", frame
                self.latest[s] = frame

    def send(self, seat: int, message: dict[str, Any]) -> dict[str, Any]:
        """Send a move; return the mover's reply (an update, or an error)."""
        before = self.latest[seat]["v"]
        self.ws[seat].send(json.dumps(message))
        while True:
            reply = _state(self.ws[seat])
            if reply["type"] == "error":
                return reply
            self.latest[seat] = reply
            if _moves_of(self.match_id, seat, before, reply["v"]).exists():
                break  # our move (a timer's update may come first)
        self.sync()
        self.acked.append((reply["from"], reply["v"], seat))
        return reply

    def move(self) -> bool:
        """One legal move; False when the hand is over. A refusal fails the test unless a
        timer moved the match on first (then the next move is chosen afresh)."""
        nxt = self.next_move()
        if nxt is None:
            return False
        reply = self.send(*nxt)
        if reply["type"] == "error":
            seat, message = nxt
            assert self.views()[seat] > message["v"], f"move {nxt} refused: {reply}"
            self.sync()
        return True

    def play_to_end(self, seconds: float = 40) -> int:
        end, moves = time.monotonic() + seconds, 0
        while moves < MAX_MOVES and time.monotonic() < end and self.move():
            moves += 1
        assert self.next_move() is None, f"hand not over after {moves} moves"
        return moves

    def version(self) -> int:
        """The match's log position (the seq of its last entry)."""
        return Match.objects.get(pk=self.match_id).version

    def views(self) -> list[int]:
        """Each seat's own version now."""
        return list(Match.objects.get(pk=self.match_id).views[:4])


def _moves_of(match_id: int, seat: int, since: int, v: int) -> Any:
    """The seat's own (not timed-out) actions logged between its versions ``since`` and ``v``."""
    return MatchEvent.objects.filter(
        match_id=match_id, kind=MatchEvent.Kind.ACTION, seat=seat, payload__timeout=False,
        **{f"views__{seat}__gt": since, f"views__{seat}__lte": v})


def _checks(t: Table) -> None:
    """The common final checks, plus: each acknowledged move is one non-timeout action
    entry of its seat inside its frame's range."""
    assert Match.objects.get(pk=t.match_id).stage != Match.Stage.HAND
    for start, v, seat in t.acked:
        mine = _moves_of(t.match_id, seat, start, v)
        assert mine.count() == 1, f"move of seat {seat} in ({start}, {v}] logged {mine.count()}x"
    _final_checks(t.match_id, [(seat, start, v) for start, v, seat in t.acked])


def test_redis_killed_then_restarted(cluster: Cluster) -> None:
    cluster.start_web()
    cluster.start_worker()
    t = Table(cluster, build_table("duyun", turn_seconds=TURN_SECONDS))
    t.connect()
    for _ in range(8):
        assert t.move()

    cluster.redis.kill()  # type: ignore[union-attr]  # its data (queued timers) is gone too
    # The table stays open and playable: a move is saved in the database, and its update,
    # which the pub/sub layer cannot send, reaches every seat by the connections' version
    # check (a catch-up read from the database) within a few seconds.
    started = time.monotonic()
    assert t.move()
    assert time.monotonic() - started < 2 * pacing.VERSION_CHECK_SECONDS + 5
    assert all(f["type"] == "catchup" for f in t.latest), t.latest
    assert cluster.web.proc.poll() is None, f"daphne died:\n{cluster.web.tail()}"  # type: ignore[union-attr]
    before, seen = t.version(), t.views()
    assert [f["v"] for f in t.latest] == seen
    cluster.start_redis()  # same port, empty
    back = time.monotonic()

    assert cluster.worker.proc.poll() is None, cluster.worker.tail()  # type: ignore[union-attr]

    t.connect()  # ?v=<last seen>: catch-up, nothing missed
    assert [(f["type"], f["from"]) for f in t.latest] == [("catchup", v) for v in seen], t.latest

    # Nobody acts. No sweep reached the worker while Redis was away; the first one after
    # finds the overdue deadline and times the seat out.
    bound = TURN_SECONDS + pacing.SWEEP_SECONDS + 10
    timeouts = MatchEvent.objects.filter(match_id=t.match_id, payload__timeout=True)
    while not timeouts.exists() and time.monotonic() - back < bound:
        time.sleep(0.25)
    waited = time.monotonic() - back
    assert timeouts.exists(), f"the AFK decision never timed out ({waited:.0f} s)"
    assert timeouts.first().seq == before + 1, "a move was logged before the timeout"  # type: ignore[union-attr]
    t.connect()  # catch up past the timeout (the players were idle)
    assert [f["v"] for f in t.latest] == t.views() and t.latest[0]["v"] > seen[0]

    moves = t.play_to_end()
    t.close()
    _checks(t)
    cases.record("test_service_faults (acknowledged moves across a Redis restart)",
                 len(t.acked))
    print(f"AFK decision timed out {waited:.1f} s after Redis returned; {moves} moves after")


def test_worker_survives_redis_restart(cluster: Cluster) -> None:
    """The worker (with its beat) reconnects when Redis dies and comes back, instead of
    exiting (Celery 5.7.0 exits here, hence the pin in pyproject.toml)."""
    cluster.start_worker()
    build_table("duyun", turn_seconds=30)
    time.sleep(1)  # the worker is consuming its beat's sweeps
    cluster.redis.kill()  # type: ignore[union-attr]
    time.sleep(2)
    cluster.start_redis()
    worker = cluster.worker
    assert worker is not None
    end = time.monotonic() + 15
    while time.monotonic() < end and worker.proc.poll() is None and _connects(worker.lines) < 2:
        time.sleep(0.2)
    assert worker.proc.poll() is None, worker.tail()
    assert _connects(worker.lines) == 2, f"the worker did not reconnect:\n{worker.tail()}"


def _connects(lines: list[str]) -> int:
    """How many times a Celery worker's log says it connected to the broker."""
    return sum("Connected to redis://" in line for line in lines)


# -- PostgreSQL ----------------------------------------------------------------------------

class TcpProxy:
    """A TCP proxy on 127.0.0.1 to ``target``; :meth:`cut` drops every connection and
    refuses new ones until :meth:`resume`. Runs its own event loop in a thread."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.port = target, free_port()
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def resume(self) -> None:
        self._call(self._listen())

    def cut(self) -> None:
        self._call(self._cut())

    def stop(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in list(self.writers):
            writer.transport.abort()
        self.writers.clear()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)
        self.writers -= {writer, up_writer}

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()


def test_postgres_briefly_unavailable(cluster: Cluster) -> None:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        pytest.skip("needs PostgreSQL (DATABASE_URL): the outage is a TCP proxy in front of it")
    proxy = TcpProxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    proxy.resume()
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    cluster.database_url = f"postgres://{auth}@127.0.0.1:{proxy.port}/{db['NAME']}"
    try:
        cluster.start_web()
        cluster.start_worker()
        t = Table(cluster, build_table("duyun"))  # 15 s turns: no timer fires meanwhile
        t.connect()
        for _ in range(8):
            assert t.move()
        before = t.version()

        proxy.cut()  # every database connection of daphne and the worker drops
        outage = time.monotonic()
        seat, message = t.next_move()  # type: ignore[misc]
        refusals = []
        for _ in range(3):  # a player keeps trying during the ~3 s outage
            reply = t.send(seat, message)
            assert reply["type"] == "error", f"accepted without a database: {reply}"
            assert reply["code"] == "unavailable" and "重连" in reply["message"], reply
            refusals.append(reply)
            time.sleep(0.5)
        # A resync (hello) during the outage is refused the same way; the socket stays open.
        t.ws[seat].send(json.dumps({"type": "hello", "v": t.latest[seat]["v"]}))
        reply = _state(t.ws[seat])
        assert reply["type"] == "error" and reply["code"] == "unavailable", reply
        assert t.version() == before, "the match changed during the outage"
        time.sleep(max(0.0, 3 - (time.monotonic() - outage)))
        proxy.resume()
        # The pool's idle connections died with the outage: it checks each before lending
        # it, so the first pages after the database is back answer, none with a 5xx.
        club_page = f"http://127.0.0.1:{cluster.web_port}/clubs/{t.table.club.pk}/"
        statuses = [requests.get(club_page, headers={"Cookie": t.cookies[0]}, timeout=10,
                                 allow_redirects=False).status_code for _ in range(10)]
        assert statuses == [200] * 10, statuses

        # The same connections go on: the move is accepted once the connection pool has
        # reconnected (it retries with a backoff of a few seconds; the page resends after
        # ``unavailable`` the same way), then the hand finishes.
        back = time.monotonic()
        while (reply := t.send(seat, message))["type"] == "error":
            if reply["code"] == "stale_version" and t.views()[seat] > message["v"]:
                t.sync()  # the match moved on first (a timer), as move() allows
                break
            assert reply["code"] == "unavailable", reply
            assert time.monotonic() - back < 20, "the database never came back"
            time.sleep(0.5)
        # An update published while daphne's links were coming back can be lost; the
        # connection then sends the move in a ``catchup`` (docs/protocol.md, "Versions").
        assert reply["type"] in ("update", "catchup") or reply["code"] == "stale_version", reply
        assert t.version() > before
        t.play_to_end()
        t.close()
        _checks(t)
        cases.record("test_service_faults (PostgreSQL outage: refused as unavailable)",
                     len(refusals))
    finally:
        proxy.stop()
