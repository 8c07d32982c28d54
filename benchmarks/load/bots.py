"""The bot client: log in over HTTP, join a room's table WebSocket, play legal actions.

Each bot plays its seat from its own observation: it takes a win whenever one is offered,
otherwise picks at random among ``observation.me.legal``; before hand 1 it sends its
``contribute`` as the table page does, between later hands ``ready_next``. It has at most
one message in flight and sends it after ``think`` seconds. The latency of a message is the
time from sending it to receiving the frame whose events confirm it (an event of the bot's
seat of that type, its ``decided``, or the event that answers it: :data:`ANSWERED_BY`).

It also checks the stream it receives: every ``update``/``catchup`` must continue from
the last version seen (``from`` equal to it), never repeat one, and no second snapshot
may replace the stream of a match. With ``play_on``, a bot whose match has finished waits
for the next match at its table (the benchmark starts one) and follows its stream. Only
127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
import requests
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .tables import PASSWORD

HOST = "127.0.0.1"
CONNECT_SPACING = 0.02
"""Seconds between the handshakes of successive clients of a run: a burst of hundreds of
simultaneous handshakes exceeds a daphne process's Redis pool (100 connections)."""
CONFIRM_TIMEOUT = 5.0
"""A message not confirmed (nor refused) within this long is given up on: counted *late*,
and whether the server answered it after all is checked against the log after the run
(:func:`.scenario.unanswered`)."""
DRAIN_QUIET, DRAIN_LIMIT = 2.0, 30.0
"""After the run a bot sends nothing more and reads on until no frame came for
``DRAIN_QUIET`` seconds (at most ``DRAIN_LIMIT``), so that the answers to messages still
queued in a server reach it before it closes."""
MAX_RETRIES = 3
"""Refused messages retried at one version before waiting for the next frame."""
ANSWERED_BY = {"declare": "baogang_panel", "discard": "baogang_panel", "kong": "rob_window",
               "contribute": "contributed"}
"""An accepted message answered by another event than one of its own type: a 报叫
declaration opens the seat's 报杠 panel (Z20), an added kong the others' window to rob it,
a contribution is logged as ``contributed``."""


def port_of(ports: list[int], table: int, seat: int, *, whole: bool) -> int:
    """The daphne port seat ``seat`` of table ``table`` connects through: every seat of a
    table through daphne ``table mod n`` when rooms are routed ``whole`` (as nginx's
    ``hash`` on the room path does), else seat ``i`` through daphne ``i mod n`` (every
    table split over the processes)."""
    return ports[(table if whole else seat) % len(ports)]


def login(port: int, username: str) -> str:
    """Log in through the login form (CSRF included); return the Cookie header value."""
    base = f"http://{HOST}:{port}"
    with requests.Session() as session:
        session.get(f"{base}/accounts/login/", timeout=30).raise_for_status()
        response = session.post(
            f"{base}/accounts/login/",
            data={"username": username, "password": PASSWORD,
                  "csrfmiddlewaretoken": session.cookies["csrftoken"]},
            allow_redirects=False, timeout=30,
        )
        if response.status_code != 302 or "sessionid" not in session.cookies:
            raise RuntimeError(f"login of {username} failed: HTTP {response.status_code}")
        return f"sessionid={session.cookies['sessionid']}"


@dataclass
class SeatLog:
    """What one bot saw and measured."""

    latencies: list[tuple[float, float]] = field(default_factory=list)
    """(sent at, seconds to confirmation), monotonic clock."""
    sent: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    """Refusals by error code."""
    late: int = 0
    """Messages given up on after :data:`CONFIRM_TIMEOUT` (answered later, or never)."""
    matches: set[int] = field(default_factory=set)
    """The matches this bot followed, whose logs hold what its accepted messages did."""
    frames: int = 0
    first_version: int | None = None
    version: int = -1
    skips: list[tuple[int, int, int]] = field(default_factory=list)
    """(match, last version, next frame's ``from``): versions this seat got no frame for.
    Allowed when they hold nothing it may see (H2); :func:`scenario.lost_events` checks."""
    duplicates: int = 0
    resnapshots: int = 0
    status: str | None = None


@dataclass
class _InFlight:
    sent_at: float
    version: int
    expect: frozenset[str]


class Bot:
    """One seat's player."""

    def __init__(self, port: int, code: str, cookie: str, seat: int, *, think: float,
                 stop_at: float, seed: int, connect_after: float = 0.0,
                 play_on: bool = False, quick_claims: bool = False) -> None:
        self.url = f"ws://{HOST}:{port}/ws/rooms/{code}/"
        self.origin = f"http://{HOST}:{port}"
        self.cookie, self.seat, self.think, self.stop_at = cookie, seat, think, stop_at
        self.rng = random.Random(seed)
        self.log = SeatLog()
        self.connected = asyncio.Event()
        self.last: dict[str, Any] | None = None
        self.in_flight: _InFlight | None = None
        self.retries: dict[int, int] = {}
        self.done = False
        self.connect_after = connect_after
        self.play_on = play_on
        # Answer a window at once (``think`` is for the seat's turns): the timer of a
        # held window then ends it, not the last answer.
        self.quick_claims = quick_claims
        self.match: int | None = None

    async def run(self) -> SeatLog:
        """Play until the match is over or ``stop_at`` (monotonic) has passed."""
        await asyncio.sleep(self.connect_after)
        async with connect(self.url, origin=self.origin, compression=None, max_size=None,
                           additional_headers={"Cookie": self.cookie},
                           ping_interval=None, open_timeout=60) as ws:
            self.connected.set()
            while not self.done:
                remaining = self.stop_at - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    raw = await asyncio.wait_for(ws.recv(), min(remaining, 1.0))
                except TimeoutError:
                    await self._decide(ws)
                    continue
                await self._on_frame(ws, orjson.loads(raw))
            await self._drain(ws)
        return self.log

    async def _drain(self, ws: ClientConnection) -> None:
        """Read (sending nothing) until the stream has been quiet for a while."""
        self.done = True
        limit = time.monotonic() + DRAIN_LIMIT
        while (remaining := limit - time.monotonic()) > 0:
            try:
                raw = await asyncio.wait_for(ws.recv(), min(remaining, DRAIN_QUIET))
            except (TimeoutError, ConnectionClosed):
                return
            await self._on_frame(ws, orjson.loads(raw))

    async def _on_frame(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        log = self.log
        log.frames += 1
        kind = frame.get("type")
        if kind == "error":
            log.refused[frame.get("code", "?")] += 1
            self.in_flight = None
            await self._decide(ws)
            return
        if kind not in ("snapshot", "update", "catchup"):
            return
        if kind == "snapshot":
            if log.first_version is None:
                log.first_version = frame["v"]
            elif frame["table"]["match"] == self.match:
                log.resnapshots += 1
            else:
                self.retries.clear()  # versions start again in a new match
            self.match = frame["table"]["match"]
            log.matches.add(self.match)
        elif frame["v"] <= log.version:
            log.duplicates += 1
            return
        elif frame["from"] != log.version and self.match is not None:
            log.skips.append((self.match, log.version, frame["from"]))
        log.version = frame["v"]
        log.status = frame["table"]["status"]
        self._confirm(frame.get("events", ()))
        self.last = frame
        await self._decide(ws)

    def _confirm(self, events: Any) -> None:
        flight = self.in_flight
        if flight is None:
            return
        if any(e.get("seat") == self.seat and e.get("type") in flight.expect for e in events):
            self.log.latencies.append((flight.sent_at, time.monotonic() - flight.sent_at))
            self.in_flight = None

    async def _decide(self, ws: ClientConnection) -> None:
        frame = self.last
        if frame is None or self.done:
            return
        if self.in_flight is not None:
            if time.monotonic() - self.in_flight.sent_at < CONFIRM_TIMEOUT:
                return
            self.log.late += 1
            self.in_flight = None
        table, version = frame["table"], frame["v"]
        if table["status"] != "playing":
            self.done = not self.play_on
            return
        if self.retries.get(version, 0) >= MAX_RETRIES:
            return
        message = self._choose(frame)
        if message is None:
            return
        if self.think and not (self.quick_claims and _in_window(frame)):
            await asyncio.sleep(self.think)
        self.retries[version] = self.retries.get(version, 0) + 1
        expect = {message["type"], "decided", "auto"}
        if message["type"] in ANSWERED_BY:
            expect.add(ANSWERED_BY[message["type"]])
        self.in_flight = _InFlight(time.monotonic(), version, frozenset(expect))
        self.log.sent += 1
        await ws.send(orjson.dumps({**message, "v": version}).decode())

    def _choose(self, frame: dict[str, Any]) -> dict[str, Any] | None:
        table, observation = frame["table"], frame["observation"]
        if table["stage"] == "between":
            upcoming = table.get("next")
            if (observation is None and upcoming is not None
                    and all(c["seat"] != self.seat for c in upcoming["contributions"])):
                # Before hand 1, as the table page does: the value also says "here".
                return {"type": "contribute", "hand": upcoming["hand"],
                        "value": self.rng.randbytes(32).hex()}
            return None if self.seat in table["ready"] else {"type": "ready_next"}
        if table["stage"] != "hand" or not observation:
            return None
        legal = observation["me"]["legal"]
        if not legal:
            return None
        wins = [a for a in legal if a["type"] == "win"]
        action = wins[0] if wins else self.rng.choice(legal)
        return {k: v for k, v in action.items() if k != "seat" and v is not None}


def _in_window(frame: dict[str, Any]) -> bool:
    """Whether the seat is answering a window (a discard, a kong to rob, 报叫): its
    choices include passing."""
    observation = frame["observation"]
    return bool(observation) and any(a["type"] == "pass" for a in observation["me"]["legal"])


class Idle:
    """A connected player who never acts (for memory per idle connection)."""

    def __init__(self, port: int, code: str, cookie: str, *, stop_at: float,
                 connect_after: float = 0.0) -> None:
        self.url = f"ws://{HOST}:{port}/ws/rooms/{code}/"
        self.origin = f"http://{HOST}:{port}"
        self.cookie, self.stop_at = cookie, stop_at
        self.connected = asyncio.Event()
        self.connect_after = connect_after

    async def run(self) -> None:
        """Stay connected, reading frames, until ``stop_at``."""
        await asyncio.sleep(self.connect_after)
        async with connect(self.url, origin=self.origin, compression=None, max_size=None,
                           additional_headers={"Cookie": self.cookie},
                           ping_interval=None, open_timeout=60) as ws:
            self.connected.set()
            while time.monotonic() < self.stop_at:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ws.recv(), 0.5)
