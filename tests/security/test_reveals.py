"""What the table may reveal (``shared/rules/README.md`` H1, H2, H4), through the real
table consumer: what each seat receives is the same whatever the other hands hold.

Two deals differ only in seat 2's hidden tiles: in one it holds a pair of the tile the
dealer discards (a choice to 碰), in the other it does not. The same public moves are
played from both; seats 1 and 3 and a spectator must receive the same frames.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from apps.matches import services
from apps.matches.models import Match
from majiang import get_variant
from majiang.tiles import Tile, parse_tiles
from majiang.wall import full_set
from tests.support.ws import connect_as

from .helpers import TIMEOUT, Table, build_table

pytestmark = pytest.mark.django_db(transaction=True)

SPECTATOR = "watch"
VOLATILE = frozenset({"match", "commitment", "connected"})
"""Keys that differ between any two matches (the id, the fresh commitment, when each
connection came online). Versions (``v``, ``from``) and clocks are compared: each viewer's
versions are its own, and both deals start at the same moment of the test's clock."""
START = dt.datetime(2026, 12, 5, 20, 0, tzinfo=dt.UTC)
HANDS = {
    0: "114477m22558s369p" + "9p",  # the dealer (14 tiles) discards 9p
    1: "225588m3369s147p",
    3: "3669m1258s2258p3s",
}
SEAT2_PAIR = "99p11447s258p369m"
SEAT2_NONE = "77s11447s258p369m"


def _wall(seat2: str) -> list[Tile]:
    """A duyun wall (dealer 0): the hands above, then the rest; the two tiles that seat 2
    does not hold are the last of the wall, far from every draw of the test."""
    hands = {**HANDS, 2: seat2}
    held = [t for seat in range(4) for t in parse_tiles(hands[seat])]
    rest = list(full_set(get_variant("duyun").tile_kinds({"players": 4})))
    for tile in held:
        rest.remove(tile)
    swapped = parse_tiles("99p" if seat2 == SEAT2_NONE else "77s")
    for tile in swapped:
        rest.remove(tile)
    rest = sorted(rest) + swapped
    dealt = [t for seat in range(4) for t in parse_tiles(hands[seat])[:13]]
    return [*dealt, parse_tiles(hands[0])[13], *rest]


def _steady(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


class Watchers:
    """Every seat and a spectator connected to one table; frames kept per audience."""

    def __init__(self, table: Table) -> None:
        self.table = table
        users = {**{str(s): u for s, u in enumerate(table.users)}, SPECTATOR: table.spectator}
        self.comms: dict[str, WebsocketCommunicator] = {
            key: connect_as(user, table.room.code) for key, user in users.items()
        }
        self.frames: dict[str, list[dict[str, Any]]] = {key: [] for key in self.comms}

    async def open(self) -> None:
        for comm in self.comms.values():
            connected, _ = await comm.connect(timeout=TIMEOUT)
            assert connected
        await self.drain()

    async def drain(self) -> dict[str, list[dict[str, Any]]]:
        """Collect every frame that arrives until all connections are quiet; return them."""
        new: dict[str, list[dict[str, Any]]] = {key: [] for key in self.comms}

        async def one(key: str, comm: WebsocketCommunicator) -> None:
            while not await comm.receive_nothing(timeout=0.3):
                frame = await comm.receive_json_from(timeout=TIMEOUT)
                if frame["type"] != "presence":  # presence: who is online, not versioned
                    new[key].append(frame)

        await asyncio.gather(*(one(key, comm) for key, comm in self.comms.items()))
        for key, frames in new.items():
            self.frames[key].extend(frames)
        return new

    async def close(self) -> None:
        for comm in self.comms.values():
            await comm.disconnect()

    def legal(self, seat: int) -> list[dict[str, Any]]:
        frame = self.frames[str(seat)][-1]
        return list(frame["observation"]["me"]["legal"])


async def _act(table: Table, seat: int, watchers: Watchers, **message: Any) -> None:
    v = watchers.frames[str(seat)][-1]["v"]

    def act() -> None:
        services.match_act(
            match_id=table.match.pk, user_id=table.users[seat].pk, payload={**message, "v": v}
        )

    await database_sync_to_async(act)()


@pytest.fixture
def fixed_wall() -> Iterator[list[list[Tile]]]:
    """``walls[0]`` is the wall every deal uses while the test runs (also on rebuilds)."""
    walls: list[list[Tile]] = [[]]
    with mock.patch("majiang.round.shuffled", lambda tiles, seed: list(walls[0])):
        yield walls


async def _discard_and_pause(
    walls: list[list[Tile]], seat2: str, pause_ms: int, clock: Any
) -> tuple[Watchers, bool, dict[str, list[dict[str, Any]]]]:
    """Deal ``seat2``'s wall, let the dealer discard 9p and seat 2 pass any choice, then
    end the pause; return the watchers, whether seat 2 had a choice, and what arrived
    after seat 2's pass and before the pause ended."""
    walls[0] = _wall(seat2)
    clock.move_to(START)
    table = await database_sync_to_async(build_table)("duyun", claim_pause_ms=pause_ms)
    watchers = Watchers(table)
    await watchers.open()
    await _act(table, 0, watchers, type="discard", tile="9p")
    await watchers.drain()
    had_choice = bool(watchers.legal(2))
    during: dict[str, list[dict[str, Any]]] = {}
    if had_choice:
        await _act(table, 2, watchers, type="pass")
        during = await watchers.drain()
    fired = await database_sync_to_async(services.match_timers_fire)()
    assert fired == 0, "the pause must not end early (H4)"
    clock.shift(pause_ms / 1000)  # the pause has lasted its time
    assert await database_sync_to_async(services.match_timers_fire)() == 1
    await watchers.drain()
    return watchers, had_choice, during


def test_H4_H2_third_seats_see_the_same_whatever_seat_2_holds(
    fixed_wall: list[list[Tile]], clock: Any,
) -> None:
    async def run() -> None:
        pair, had_pair, during = await _discard_and_pause(fixed_wall, SEAT2_PAIR, 3000, clock)
        none, had_none, _ = await _discard_and_pause(fixed_wall, SEAT2_NONE, 3000, clock)
        try:
            assert had_pair and not had_none  # the deals differ in what seat 2 may do
            # H2: seat 2's pass while the window stays open reaches seat 2 alone.
            assert [f["type"] for f in during["2"]] == ["update"]
            assert all(not during[key] for key in ("0", "1", "3", SPECTATOR))
            for key in ("0", "1", "3", SPECTATOR):
                assert _steady(pair.frames[key]) == _steady(none.frames[key]), key
            # The window was held, then seat 1 drew: the table moved on in both.
            for watchers in (pair, none):
                last = watchers.frames["1"][-1]
                assert last["observation"]["turn"] == 1
                assert last["observation"]["me"]["drawn"] is not None
        finally:
            await pair.close()
            await none.close()

    asyncio.run(run())


def test_H1_a_timeout_in_a_claim_window_goes_to_its_seat_alone(
    fixed_wall: list[list[Tile]],
) -> None:
    async def run() -> None:
        fixed_wall[0] = _wall(SEAT2_PAIR)
        table = await database_sync_to_async(build_table)("duyun")
        watchers = Watchers(table)
        await watchers.open()
        try:
            await _act(table, 0, watchers, type="discard", tile="9p")
            await watchers.drain()
            assert {a["type"] for a in watchers.legal(2)} == {"pung", "pass"}

            def expire() -> int:
                past = time.time() - 1
                match = table.match
                Match.objects.filter(pk=match.pk).update(
                    deadline=match.deadline.fromtimestamp(past, match.deadline.tzinfo),
                    timer_due=match.deadline.fromtimestamp(past, match.deadline.tzinfo),
                )
                return services.match_timers_fire()

            assert await database_sync_to_async(expire)() == 1
            after = await watchers.drain()
            own = [e for f in after["2"] for e in f.get("events", [])]
            assert {"type": "timeout", "seat": 2} in [
                {k: e[k] for k in ("type", "seat") if k in e} for e in own
            ]
            for key in ("0", "1", "3", SPECTATOR):
                events = [e for f in after[key] for e in f.get("events", [])]
                assert events, key  # the window's outcome: seat 1 draws
                assert all(e.get("seat") != 2 for e in events), (key, events)
                assert all("timeouts" not in p for f in after[key]
                           for p in f["table"]["players"])
        finally:
            await watchers.close()

    asyncio.run(run())


# -- H3: 2-player 自贡, the 报叫 phase at the deal -----------------------------------------

DEALER_HAND = "1134567p245678s" + "9p"  # 14 tiles; it discards after the phase
OTHER_READY = "1112345678999s"  # 九莲: ready (报叫 is its choice)
OTHER_NOT = "1379s1369p22p48p5s"  # nowhere near ready


def _zigong_wall(other: str) -> list[Tile]:
    """A 2-player 自贡 wall: the dealer's 13, the other seat's 13, the dealer's 14th, then
    the rest (in a fixed order, so that the dealer's next draws are the same tiles)."""
    dealer, rest_of_other = parse_tiles(DEALER_HAND), parse_tiles(other)
    rest = list(full_set(get_variant("zigong").tile_kinds({"players": 2})))
    for tile in [*dealer, *rest_of_other]:
        rest.remove(tile)
    return [*dealer[:13], *rest_of_other, dealer[13], *sorted(rest)]


async def _declare_phase(walls: list[list[Tile]], other: str, clock: Any) -> tuple[Watchers, int]:
    """Deal ``other``'s wall at a paced 2-player 自贡 table; the non-dealer passes 报叫 if
    it may; the phase's pause ends and the dealer discards. Returns the watchers and the
    dealer's seat."""
    walls[0] = _zigong_wall(other)
    clock.move_to(START)
    zigong = type(get_variant("zigong"))
    with mock.patch.object(zigong, "first_dealer", lambda *args: 0):  # Z5 draws it by seed
        table = await database_sync_to_async(build_table)(
            "zigong", players=2, declare_pause_ms=2000)
    watchers = Watchers(table)
    await watchers.open()
    dealer = watchers.frames["0"][-1]["observation"]["dealer"]
    if watchers.legal(1 - dealer):
        await _act(table, 1 - dealer, watchers, type="pass")
        await watchers.drain()
    clock.shift(2)  # the phase has lasted its pause (H3)
    assert await database_sync_to_async(services.match_timers_fire)() == 1
    await watchers.drain()
    # A 筒 tile: the ready seat (all 条) cannot claim it, so no claim window follows.
    discard = next(a for a in watchers.legal(dealer) if a["type"] == "discard"
                   and a["tile"].endswith("p"))
    await _act(table, dealer, watchers, type="discard", tile=discard["tile"])
    await watchers.drain()
    return watchers, dealer


def test_H3_two_player_zigong_the_dealer_sees_the_same_whether_the_other_is_ready(
    fixed_wall: list[list[Tile]], clock: Any,
) -> None:
    """The dealer and a spectator receive the same bytes (ids aside) whether the other
    seat was ready and privately declined 报叫, or had nothing to declare: versions,
    deadlines and 托管 deadlines included."""
    async def run() -> None:
        ready, dealer = await _declare_phase(fixed_wall, OTHER_READY, clock)
        unready, dealer_again = await _declare_phase(fixed_wall, OTHER_NOT, clock)
        try:
            assert dealer == dealer_again
            other = str(1 - dealer)
            assert any(e.get("type") == "decided" for f in ready.frames[other]
                       for e in f.get("events", [])), "the ready seat declined 报叫"
            for key in (str(dealer), SPECTATOR):
                assert _steady(ready.frames[key]) == _steady(unready.frames[key]), key
                assert ready.frames[key][-1]["observation"]["turn"] != dealer  # it discarded
        finally:
            await ready.close()
            await unready.close()

    asyncio.run(run())
