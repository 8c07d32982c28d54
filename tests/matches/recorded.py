"""Real games over the real consumers, every frame and client message recorded.

:func:`record_games` plays a few matches of both variants through the table socket (four
seats and a spectator) and the lobby sockets, steering them through what the protocol can
say: claims and kongs, 报听/报叫 and the 报杠 panel, timeouts and 托管, quick phrases,
refusals of every kind, a dissolve vote refused, expired and passed, a table abandoned
until it is dissolved, and a match played to its end; between hands the seats contribute
to the next hand's wall (洗牌公证), once too often, too late and malformed. Moves are
random but seeded, and the hands' seeds and the contributions are fixed
(:data:`ZIGONG_PANEL_SEED` deals a 报叫 with a 报杠 panel), so a run is the same every
time. ``tests/matches/test_protocol_schema.py`` validates the recording against
``docs/protocol.asyncapi.yaml``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace
from typing import Any
from unittest import mock

from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db.models import F
from django.utils import timezone

from apps.clubs.models import Room
from apps.clubs.routing import websocket_urlpatterns as lobby_urls
from apps.clubs.services.rematch import rematch_timers_fire
from apps.clubs.services.rooms import room_ready_set
from apps.matches import lifecycle, services
from apps.matches.consumers import TableConsumer
from apps.matches.models import Match, MatchEvent
from tests.support.factories import Table
from tests.support.ws import InjectUser, connect_as

TIMEOUT = 10
SPECTATOR = 4
ZIGONG_PANEL_SEED = f"{28:032x}"
"""A 自贡 deal (its match seed :data:`MATCH_SEED`: dealer seat 2) where seat 0's dealt
hand is ready with a triplet: the 报叫 window asks it, and its 报叫 opens the 报杠 panel."""
MATCH_SEED = "00" * 16
DUYUN_KONGS_SEED = f"{1059:032x}"
"""A 都匀 deal (dealer seat 0) where :func:`scripted_move` play with the claim pause on
brings a concealed kong, an exposed kong, a 补杠's rob window and a win within 89 steps
(moves and pause ends). Random play may not win at all (托管 plays the advisor, whose
ties may fall differently from run to run), so the win is made certain here."""


@dataclass
class Wire:
    """Everything that went over the sockets: ``(socket, frame)`` received, and each
    client message sent as ``(socket, message, well_formed)``."""

    received: list[tuple[str, Any]] = field(default_factory=list)
    sent: list[tuple[str, Any, bool]] = field(default_factory=list)
    refusals: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    """Each refused message with its ``error`` frame."""


class Conn:
    """One recorded connection."""

    def __init__(self, wire: Wire, comm: WebsocketCommunicator, socket: str) -> None:
        self.wire, self.comm, self.socket = wire, comm, socket

    async def open(self) -> None:
        connected, _ = await self.comm.connect(TIMEOUT)
        assert connected

    async def send(self, message: Any, *, well_formed: bool = True) -> None:
        """Send ``message`` (text as is, anything else as JSON); ``well_formed``: whether it
        is a message the protocol defines (junk is sent to be refused)."""
        self.wire.sent.append((self.socket, message, well_formed))
        if isinstance(message, str):
            await self.comm.send_to(text_data=message)
        else:
            await self.comm.send_json_to(message)

    async def recv(self) -> dict[str, Any]:
        frame = await self.comm.receive_json_from(TIMEOUT)
        self.wire.received.append((self.socket, frame))
        return frame

    async def state(self) -> dict[str, Any]:
        """The next frame that is not ``presence`` or ``phrase`` (they come on their own)."""
        while True:
            frame = await self.recv()
            if frame["type"] not in ("presence", "phrase"):
                return frame

    async def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Record frames up to the first that is ``wanted`` (within :data:`TIMEOUT` each)."""
        while not wanted(frame := await self.recv()):
            pass
        return frame

    async def drain(self, seconds: float = 0.05) -> None:
        """Record whatever arrives within ``seconds`` of quiet."""
        while not await self.comm.receive_nothing(seconds):
            await self.recv()

    async def close(self) -> None:
        await self.drain()
        await self.comm.disconnect()


def scripted_move(observations: dict[int, dict[str, Any]]) -> tuple[int, dict[str, Any]] | None:
    """A deterministic move from the seats' observations (``None``: nobody may act): the
    lowest seat with a choice konging, else punging, else winning, else discarding the
    tile it holds fewest of (kongs come sooner), else passing. The seed search that found
    :data:`DUYUN_KONGS_SEED` played the rules package with this same policy."""
    for seat in sorted(observations):
        me = observations[seat].get("me") or {}
        legal = me.get("legal") or []
        if not legal:
            continue
        for kind in ("kong", "pung", "win"):
            chosen = next((a for a in legal if a["type"] == kind), None)
            if chosen is not None:
                break
        else:
            discards = [a for a in legal if a["type"] == "discard" and not a.get("declare")]
            held = [*me["hand"], *([me["drawn"]] if me["drawn"] else [])]
            chosen = (min(discards, key=lambda a: (held.count(a["tile"]), a["tile"]))
                      if discards else legal[-1])
        return seat, {k: v for k, v in chosen.items() if k != "seat"}
    return None


def contribution(hand: int, seat: int) -> str:
    """A seat's contribution to a hand: fixed, so that the hand's wall is the same every
    run (and the seeded moves' random stream is left alone)."""
    return hashlib.sha256(f"{hand}:{seat}".encode()).hexdigest()


def _lobby_comm(user: Any, path: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(InjectUser(URLRouter(lobby_urls), user), path)


def _seeds(first: list[str], rng: random.Random) -> SimpleNamespace:
    """Stands in for ``lifecycle.secrets``: the match seed and the hands' seeds given by
    ``first``, then seeded random ones."""
    queue = list(first)
    return SimpleNamespace(token_hex=lambda n=16: queue.pop(0) if queue else rng.randbytes(n).hex())


@contextmanager
def fixed_dealing(first: list[str], rng: random.Random) -> Iterator[None]:
    """Fixed seeds, and a rate limit that real-time play never meets (the flood test
    connects outside it)."""
    with mock.patch.object(lifecycle, "secrets", _seeds(first, rng)), \
            mock.patch.object(TableConsumer, "messages_per_second", 1000.0):
        yield


def _version(match_id: int) -> int:
    return Match.objects.values_list("version", flat=True).filter(pk=match_id).first() or 0


def _views(match_id: int) -> list[int]:
    """Each connection's own version now (seats, then :data:`SPECTATOR`)."""
    return Match.objects.values_list("views", flat=True).get(pk=match_id)


def _audiences(match_id: int, since: int, upto: int) -> set[int]:
    """The connections (seats, :data:`SPECTATOR`) that may see an event logged in
    ``(since, upto]``."""
    audiences = [
        e.get("audience")
        for payload in MatchEvent.objects.filter(
            match_id=match_id, seq__gt=since, seq__lte=upto
        ).values_list("payload", flat=True)
        for e in payload["events"]
    ]
    return {i for i in range(5) if any(a is None or (a == i and i != SPECTATOR) for a in audiences)}


def _shift(match_id: int, *, deadline: bool = False, vote: bool = False,
           offline_seconds: int | None = None) -> None:
    """Let time pass for a match: 托管 and computer delays (always), the decision deadline,
    the dissolve vote's deadline, or the table offline for ``offline_seconds``."""
    now = timezone.now()
    updates: dict[str, Any] = {"changed_at": F("changed_at") - timedelta(seconds=2),
                               "timer_due": now - timedelta(seconds=1)}
    if deadline:
        updates["deadline"] = now - timedelta(seconds=1)
    if offline_seconds is not None:
        updates["offline_since"] = now - timedelta(seconds=offline_seconds)
    Match.objects.filter(pk=match_id).update(**updates)
    if vote:
        match = Match.objects.get(pk=match_id)
        assert match.dissolve_vote
        vote_state = {**match.dissolve_vote, "deadline": int(now.timestamp() * 1000) - 1000}
        Match.objects.filter(pk=match_id).update(dissolve_vote=vote_state)


class Game:
    """Four seats and a spectator at one table, each connection's last state frame kept."""

    def __init__(self, wire: Wire, table: Table, rng: random.Random) -> None:
        self.wire, self.table, self.rng = wire, table, rng
        self.conns: list[Conn] = []
        self.latest: list[dict[str, Any]] = []
        self.match_id = 0
        self.moves = 0
        self.asked_in_window = False

    @property
    def users(self) -> list[Any]:
        return [*self.table.users, self.table.spectator]

    def connect(self, index: int, query: str = "") -> Conn:
        return Conn(self.wire, connect_as(self.users[index], self.table.room.code, query),
                    "table")

    async def open(self) -> None:
        self.conns = [self.connect(i) for i in range(5)]
        for conn in self.conns:
            await conn.open()
        self.latest = [await conn.state() for conn in self.conns]
        if self.latest[0]["type"] != "waiting":
            self.match_id = self.latest[0]["table"]["match"]

    async def close(self) -> None:
        for conn in self.conns:
            await conn.close()

    @property
    def table_info(self) -> dict[str, Any]:
        return self.latest[0]["table"]

    async def _follow(self, since: int, upto: int, skip: int | None = None) -> None:
        """Read the ``update`` of each connection that may see a change in ``(since, upto]``."""
        seen = await database_sync_to_async(_audiences)(self.match_id, since, upto)
        views = await database_sync_to_async(_views)(self.match_id)
        for i in sorted(seen - {skip}):
            frame = await self.conns[i].state()
            assert frame["type"] == "update" and frame["v"] == views[i], (i, frame)
            self.latest[i] = frame

    async def act(self, seat: int, message: dict[str, Any], *, expect: str | None = None,
                  well_formed: bool = True) -> dict[str, Any]:
        """Send a seat's message; an accepted one is followed to every viewer. ``expect``:
        the error code it must be refused with."""
        before = await database_sync_to_async(_version)(self.match_id)
        await self.conns[seat].send(message, well_formed=well_formed)
        reply = await self.conns[seat].state()
        if reply["type"] == "error":
            assert expect is not None and reply["code"] == expect, (message, reply)
            self.wire.refusals.append((message, reply))
            return reply
        assert expect is None, (message, reply)
        assert reply["type"] == "update", reply
        self.latest[seat] = reply
        await self._follow(before, await database_sync_to_async(_version)(self.match_id),
                           skip=seat)
        return reply

    async def sweep(self, **shift: Any) -> bool:
        """Let time pass (see :func:`_shift`), run the timer sweep, follow what it did."""
        before = await database_sync_to_async(_version)(self.match_id)
        await database_sync_to_async(_shift)(self.match_id, **shift)
        await database_sync_to_async(services.match_timers_fire)()
        after = await database_sync_to_async(_version)(self.match_id)
        if after > before:
            await self._follow(before, after)
        return after > before

    async def reconnect(self, index: int, query: str = "") -> dict[str, Any]:
        await self.conns[index].close()
        self.conns[index] = self.connect(index, query)
        await self.conns[index].open()
        self.latest[index] = await self.conns[index].state()
        return self.latest[index]

    # -- play -------------------------------------------------------------------------

    def options(self) -> list[tuple[int, dict[str, Any]]]:
        return [
            (s, a) for s in range(4)
            for a in ((self.latest[s].get("observation") or {}).get("me") or {}).get("legal", [])
        ]

    def pick(self, wins: float = 0.5) -> tuple[int, dict[str, Any]]:
        """A seat and its move: 报叫 first, then kongs, pungs, wins (``wins`` of the time),
        else a random legal move; the move is sent as the ``legal`` entry (with its
        ``seat``) or without the ``seat``, at random."""
        options = self.options()
        assert options, "nobody can move in a running hand"
        by_kind: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for seat, action in options:
            kind = "declaring" if action["type"] == "declare" or action.get("declare") else action[
                "type"]
            by_kind.setdefault(kind, []).append((seat, action))
        chances = {"declaring": 1.0, "kong": 0.95, "pung": 0.8, "win": wins}
        for kind, chance in chances.items():
            if kind in by_kind and self.rng.random() < chance:
                seat, action = self.rng.choice(by_kind[kind])
                break
        else:
            plain = [o for o in options if o[1]["type"] in ("discard", "pass")] or options
            seat, action = self.rng.choice(plain)
        message = dict(action)
        if self.rng.random() < 0.5:
            message.pop("seat")
        me = self.latest[seat]["observation"]["me"]
        if action["type"] == "declare" and me.get("baogang_panel"):
            message["ticks"] = me["baogang_panel"][:1]  # 报杠 the first offered triplet
        return seat, message

    async def move(self, wins: float = 0.5) -> None:
        seat, message = self.pick(wins)
        await self.act(seat, {**message, "v": self.latest[seat]["v"]})
        self.moves += 1

    def pending_alone(self, seat: int) -> bool:
        """Whether ``seat`` is on its own turn (no window open) and may act."""
        obs = self.latest[seat]["observation"]
        return (obs is not None and obs["phase"] == "turn" and obs["turn"] == seat
                and bool(obs["me"]["legal"]))

    def auto_play(self, seat: int) -> bool:
        return bool(self.table_info["players"][seat]["auto_play"])

    async def play_hand(self, *, timeouts_of: int | None = None, wins: float = 0.5,
                        until: Callable[[Game], bool] | None = None) -> None:
        """Play until the hand ends (or ``until`` says stop). ``timeouts_of``: that seat
        lets its first two turns time out (托管 comes on), is played for by 托管 twice, then
        takes its seat back with ``resume``. Now and then a claim window times out."""
        timeouts = auto_moves = 0
        for _ in range(600):
            if self.table_info["stage"] != "hand" or (until is not None and until(self)):
                return
            obs = self.latest[0]["observation"]
            if not self.options():
                assert await self.sweep(deadline=True)  # a held window's pause ends (H3, H4)
                continue
            if timeouts_of is not None and self.pending_alone(timeouts_of):
                if timeouts < 2:
                    timeouts += 1
                    assert await self.sweep(deadline=True)
                    continue
                if self.auto_play(timeouts_of):
                    if auto_moves < 2:
                        auto_moves += 1
                        assert await self.sweep()
                        continue
                    await self.act(timeouts_of, {"type": "resume"})
                    continue
            if obs["phase"] in ("claim", "rob") and not self.asked_in_window:
                self.asked_in_window = True  # 托管 waits for the window to close
                seat = next(s for s in range(4) if not self.auto_play(s))
                await self.act(seat, {"type": "auto_play"}, expect="auto_play_in_window")
            if obs["phase"] in ("claim", "rob") and self.rng.random() < 0.1:
                await self.sweep(deadline=True)  # the window's seats time out (H1: privately)
                continue
            await self.move(wins)
        raise AssertionError("the hand did not end")

    async def between_hands(self, *, by_timeout: bool = False) -> None:
        """Contribute to the next hand (:meth:`contribute`), then get every seat ready (seat
        0 says so twice), or let the settlement time out; a contribution that comes after
        the deal is late."""
        if self.table_info["status"] != "playing":
            return
        assert self.table_info["stage"] == "between"
        number = await self.contribute()
        if 0 not in self.table_info["ready"]:
            await self.act(0, {"type": "ready_next"})
        await self.act(0, {"type": "ready_next"}, expect="already_ready")
        if by_timeout:
            assert await self.sweep(deadline=True)
        else:
            for seat in (1, 2, 3):
                if seat not in self.table_info["ready"]:
                    await self.act(seat, {"type": "ready_next"})
        assert self.table_info["stage"] == "hand"
        await self.act(3, {"type": "contribute", "hand": number, "value": contribution(number, 3)},
                       expect="contribution_late")

    async def contribute(self) -> int:
        """Seats 2, 0 and 1 contribute to the committed next hand (one with a ``v``), seat
        3 does not; seat 0 once more, and a value and a hand that do not fit are refused.
        Returns the hand's number."""
        upcoming = self.table_info["next"]
        assert upcoming is not None and upcoming["contributions"] == []
        number = upcoming["hand"]
        for seat in (2, 0, 1):
            message = {"type": "contribute", "hand": number, "value": contribution(number, seat)}
            if seat == 0:
                message["v"] = self.latest[seat]["v"]
            await self.act(seat, message)
        assert [c["seat"] for c in self.table_info["next"]["contributions"]] == [0, 1, 2]
        act = self.act
        await act(0, {"type": "contribute", "hand": number, "value": contribution(number, 3)},
                  expect="already_contributed")
        await act(3, {"type": "contribute", "hand": number + 1, "value": contribution(number, 3)},
                  expect="not_committed")
        await act(3, {"type": "contribute", "hand": number,
                      "value": contribution(number, 3).upper()},
                  expect="malformed", well_formed=False)
        await act(3, {"type": "contribute", "hand": str(number), "value": contribution(number, 3)},
                  expect="malformed", well_formed=False)
        return number


async def refusals(game: Game) -> None:
    """Messages the table refuses, each answered with its error (nothing changes)."""
    obs = game.latest[0]["observation"]
    turn = obs["turn"]
    other = (turn + 1) % 4
    v = game.latest[turn]["v"]
    me = game.latest[turn]["observation"]["me"]
    absent = next(t for t in (f"{r}{s}" for s in "mps" for r in range(1, 10))
                  if t not in me["hand"] and t != me["drawn"])
    act = game.act
    await act(turn, "not json", expect="malformed", well_formed=False)
    await act(turn, "[1, 2]", expect="malformed", well_formed=False)
    await act(turn, {"type": "fly" * 40, "v": v}, expect="malformed", well_formed=False)
    await act(turn, {"type": "discard", "tile": "5m"}, expect="malformed", well_formed=False)
    await act(turn, {"type": "discard", "tile": None, "v": v}, expect="malformed",
              well_formed=False)
    await act(turn, {"type": "discard", "tile": "z" * 60, "v": v}, expect="malformed",
              well_formed=False)
    await act(turn, {"type": "pass", "tile": "5m", "v": v}, expect="malformed", well_formed=False)
    await act(turn, {"type": "discard", "tile": me["hand"][0], "v": v, "ticks": ["5m"] * 500},
              expect="malformed", well_formed=False)
    await act(turn, '{"type": "pass", "v": 100000000000000000000000}', expect="malformed",
              well_formed=False)
    await act(turn, {"type": "dissolve_vote", "v": v}, expect="malformed", well_formed=False)
    await act(turn, "x" * 5000, expect="too_large", well_formed=False)
    await act(turn, {"type": "discard", "tile": absent, "v": v}, expect="illegal_action")
    await act(turn, {"type": "discard", "tile": me["hand"][0], "v": -1}, expect="stale_version")
    await act(turn, {"type": "pass", "v": v + 10**12}, expect="stale_version")
    await act(other, {"type": "discard", "tile": me["hand"][0], "v": v}, expect="not_your_turn")
    await act(SPECTATOR, {"type": "pass", "v": v}, expect="not_seated")
    await act(SPECTATOR, {"type": "phrase", "phrase": "nice"}, expect="not_seated")
    await act(other, {"type": "ready_next"}, expect="not_between_hands")
    await act(other, {"type": "resume"}, expect="not_auto_play")
    await act(other, {"type": "auto_play"})  # 托管 by choice, and back
    await act(other, {"type": "auto_play"}, expect="already_auto_play")
    await act(other, {"type": "resume"})
    await act(other, {"type": "dissolve_vote", "agree": True}, expect="no_vote")
    await act(other, {"type": "phrase", "phrase": "rude"}, expect="unknown_phrase",
              well_formed=False)
    await act(other, {"type": "ping", "seat": 1}, expect="malformed", well_formed=False)
    # A ping is answered at once, with its id, whoever sends it (a spectator too).
    for conn in (game.conns[other], game.conns[SPECTATOR]):
        await conn.send({"type": "ping", "id": "p1"})
        assert await conn.until(lambda f: f["type"] == "pong") == {"type": "pong", "id": "p1"}


async def phrases(game: Game) -> None:
    """Quick phrases reach the whole table; a third within 3 s is refused."""
    for phrase in ("hurry", "smile"):
        await game.conns[1].send({"type": "phrase", "phrase": phrase})
        for conn in game.conns:
            while (await conn.recv())["type"] != "phrase":
                pass
    await game.act(1, {"type": "phrase", "phrase": "wow"}, expect="phrase_too_fast")


async def flood(game: Game, seat: int) -> None:
    """A second connection of ``seat`` (a second tab: it replaces the first, which is told
    so and closed with 4009), at the real rate limit, floods the table; then the seat
    connects again."""
    conn = game.connect(seat)
    with mock.patch.object(TableConsumer, "messages_per_second", 10.0):
        await conn.open()
    await conn.state()
    old = game.conns[seat]
    assert (await old.state())["type"] == "replaced"
    assert await old.comm.receive_output(TIMEOUT) == {"type": "websocket.close", "code": 4009}
    for _ in range(60):
        await conn.send("{", well_formed=False)
    await conn.drain(0.3)
    assert any(f.get("code") == "rate_limited" for s, f in game.wire.received[-70:])
    await conn.close()
    game.conns[seat] = game.connect(seat)
    await game.conns[seat].open()
    game.latest[seat] = await game.conns[seat].state()


async def _lobbies(wire: Wire, table: Table) -> tuple[Conn, Conn]:
    room = Conn(wire, _lobby_comm(table.users[0], f"/ws/rooms/{table.room.code}/lobby/"),
                "lobby")
    club = Conn(wire, _lobby_comm(table.users[1], f"/ws/clubs/{table.room.club_id}/lobby/"),
                "club")
    for conn in (room, club):
        await conn.open()
        await conn.recv()
        await conn.send({"type": "ping"})
        await conn.send("not json", well_formed=False)
        answer = await conn.recv()
        while answer["type"] in ("lobby", "club"):  # who is online may change first
            answer = await conn.recv()
        assert answer["code"] == "malformed", answer
        await conn.comm.send_to(bytes_data=b"\x00")
        wire.sent.append((conn.socket, "<binary>", False))
        assert (await conn.recv())["code"] == "malformed"
    return room, club


async def duyun_match(wire: Wire, table: Table, rng: random.Random) -> None:
    """都匀: the lobby fills, the match starts under connections that were waiting; hand 1
    with refusals, phrases, 托管 and a flood; hand 2 with three dissolve votes (refused,
    expired, passed)."""
    game = Game(wire, table, rng)
    room, club = await _lobbies(wire, table)
    await game.open()
    assert [f["type"] for f in game.latest] == ["waiting"] * 5
    await game.conns[0].send({"type": "hello"})
    assert (await game.conns[0].state())["type"] == "waiting"
    await game.act(0, {"type": "pass", "v": 0}, expect="no_match")
    for user in table.users:
        await database_sync_to_async(room_ready_set)(room=table.room, user=user, ready=True)
    game.latest = [await conn.state() for conn in game.conns]
    assert {f["type"] for f in game.latest} == {"snapshot"}
    game.match_id = game.latest[0]["table"]["match"]
    await room.drain()
    await club.drain()
    for seat in (1, 0, 3, 2):  # each page contributes to hand 1: the last value deals it
        await game.act(seat, {"type": "contribute", "hand": 1, "value": contribution(1, seat)})
    assert game.table_info["stage"] == "hand"
    # hello from 0: every event of the match, match_start and hand 1's deal included.
    await game.conns[3].send({"type": "hello", "v": 0})
    game.latest[3] = await game.conns[3].state()
    assert game.latest[3]["type"] == "catchup"
    await refusals(game)
    await phrases(game)
    await flood(game, 2)
    dealer = game.latest[0]["observation"]["dealer"]
    await game.play_hand(timeouts_of=dealer)
    await game.reconnect(SPECTATOR, f"v={game.latest[SPECTATOR]['v'] - 3}")
    await game.between_hands()
    game.moves = 0
    await game.play_hand(until=lambda g: g.moves >= 8 or g.table_info["stage"] != "hand")
    if game.table_info["stage"] == "hand":
        await dissolve_votes(game)
    await game.close()
    await room.close()
    await club.close()


async def dissolve_votes(game: Game) -> None:
    act = game.act
    await act(1, {"type": "dissolve_propose"})
    await act(1, {"type": "dissolve_propose"}, expect="vote_in_progress")
    await act(2, {"type": "dissolve_vote", "agree": True})
    await act(2, {"type": "dissolve_vote", "agree": False}, expect="already_voted")
    await act(3, {"type": "dissolve_vote", "agree": False})  # refused
    await act(1, {"type": "dissolve_propose"})
    assert await game.sweep(vote=True)  # expired
    await game.move()
    await act(0, {"type": "dissolve_propose", "v": game.latest[0]["v"]})
    for seat in (1, 2, 3):
        await act(seat, {"type": "dissolve_vote", "agree": True})
    assert game.table_info["status"] == "dissolved"
    await act(0, {"type": "ready_next"}, expect="match_over")


async def zigong_match(wire: Wire, table: Table, rng: random.Random) -> None:
    """自贡 with 萝卜 and the claim pause: hand 1 deals seat 0 a 报叫 with a 报杠 panel; the
    match is played to its end (the second hand is dealt by the settlement's timeout)."""
    game = Game(wire, table, rng)
    await game.open()
    assert await game.sweep(deadline=True)  # no value came in time: hand 1 is the seed's
    game.moves = 0
    hand = 1
    while True:
        await game.play_hand(timeouts_of=1 if hand == 2 else None, wins=0.9)
        if game.table_info["status"] != "playing":
            break
        await game.between_hands(by_timeout=hand == 1)
        hand += 1
    assert game.table_info["status"] == "finished"
    await game.reconnect(2)
    await rematch_prompt(game)
    await game.close()


def _rematch_expire(room_id: int) -> int:
    Room.objects.filter(pk=room_id).update(rematch_deadline=timezone.now() - timedelta(seconds=1))
    return rematch_timers_fire()


async def rematch_prompt(game: Game) -> None:
    """再来一场 after the match, a prompt on every screen: seat 0 agrees, seat 3 leaves (once
    too often), the deadline passes and seats 1 and 2, who did not agree, stand up."""
    def rematch_frames() -> list[dict[str, Any]]:
        return [f for _, f in game.wire.received[mark:] if f["type"] == "rematch"]

    mark = len(game.wire.received)
    await game.conns[0].send({"type": "rematch", "id": "again"})
    await game.conns[0].until(lambda f: f["type"] == "rematch" and f.get("id") == "again")
    for conn in game.conns:
        await conn.drain(0.2)
    await game.conns[3].send({"type": "rematch_leave"})
    await game.conns[3].until(lambda f: f["type"] == "rematch"
                              and 3 not in [s["seat"] for s in f["seats"]])
    for conn in game.conns:
        await conn.drain(0.2)
    await game.act(3, {"type": "rematch_leave"}, expect="rematch_refused")
    mark = len(game.wire.received)
    assert await database_sync_to_async(_rematch_expire)(game.table.room.pk) == 1
    for conn in game.conns:
        await conn.drain(0.2)
    expired = rematch_frames()
    assert len(expired) == 5 and {f["state"] for f in expired} == {"expired"}
    assert [s["seat"] for s in expired[0]["seats"]] == [0]


def _kongs_seen(wire: Wire) -> set[str]:
    return {
        e["type"] if e["type"] != "kong" else e["kind"]
        for socket, frame in wire.received if socket == "table"
        for e in frame.get("events", ()) if e["type"] in ("kong", "rob_window", "win")
    }


async def kongs_then_abandoned(wire: Wire, table: Table) -> None:
    """都匀 with the claim pause, dealt :data:`DUYUN_KONGS_SEED` and played by
    :func:`scripted_move` until every kind of kong, a rob window and a win were seen (the
    win ends the hand); then every seat is gone: the clock pauses, resumes when a seat is
    back, and after 600 s offline the match is dissolved."""
    game = Game(wire, table, random.Random(0))
    await game.open()
    assert await game.sweep(deadline=True)  # no value came in time: hand 1 is the seed's
    wanted = {"concealed_kong", "exposed_kong", "rob_window", "win"}
    for _ in range(100):
        if wanted <= _kongs_seen(wire):
            break
        move = scripted_move({s: game.latest[s]["observation"] for s in range(4)})
        if move is None:
            assert await game.sweep(deadline=True)  # the window's pause ends
        else:
            await game.act(move[0], {**move[1], "v": game.latest[move[0]]["v"]})
    assert wanted <= _kongs_seen(wire)
    await game.sweep(offline_seconds=61)  # clock_paused (offline)
    before = await database_sync_to_async(_version)(game.match_id)
    await database_sync_to_async(services.match_presence_note)(
        match_id=game.match_id, offline=False)  # clock_resumed
    await game._follow(before, await database_sync_to_async(_version)(game.match_id))
    await game.sweep(offline_seconds=601)  # dissolve_forced (offline)
    assert game.table_info["status"] == "dissolved"
    await game.close()


def dump(wire: Wire, path: str) -> None:
    """Write the recording as JSON (for reading it, not for the test)."""
    with open(path, "w") as out:  # noqa: PTH123
        json.dump({"received": wire.received, "sent": wire.sent}, out, ensure_ascii=False,
                  indent=1)
