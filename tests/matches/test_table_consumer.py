"""The table WebSocket endpoint, driven by Channels' WebsocketCommunicator over real Redis."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from apps.accounts.models import User
from apps.core.groups import group_send
from apps.matches import consumers, services, state
from apps.matches.models import Hand, Match, MatchEvent
from majiang import VARIANTS
from majiang.record import replay
from majiang.wall import wall_seed
from tests.support.factories import Table
from tests.support.ws import connect_as

from .driving import assert_nothing_hidden, choose
from .live import frame_due

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 10


async def recv(comm: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame that is not a ``presence`` notice (those come whenever seats connect)."""
    while True:
        frame = await comm.receive_json_from(TIMEOUT)
        if frame["type"] != "presence":
            return frame


async def quiet(comm: WebsocketCommunicator, seconds: float) -> bool:
    """Whether nothing but ``presence`` notices arrives for ``seconds``."""
    while not await comm.receive_nothing(seconds):
        if (await comm.receive_json_from(TIMEOUT))["type"] != "presence":
            return False
    return True


def truth_at(match_id: int, version: int) -> dict[str, Any]:
    """The server's full state of the current hand at ``version`` (for leak checks only)."""
    match = Match.objects.get(pk=match_id)
    hand = match.hands.order_by("-number").first()
    assert hand is not None
    return state.round_rebuild(match, hand, upto=version).snapshot()


async def open_all(table: Table) -> tuple[list[WebsocketCommunicator], list[dict[str, Any]]]:
    """Connect the four players and the spectator; return them and their snapshots."""
    comms = [connect_as(u, table.room.code) for u in [*table.users, table.spectator]]
    frames = []
    for comm in comms:
        connected, _ = await comm.connect()
        assert connected
        frames.append(await recv(comm))
    return comms, frames


async def close_all(comms: list[WebsocketCommunicator]) -> None:
    for comm in comms:
        await comm.disconnect()


async def play_until_hand_ends(
    comms: list[WebsocketCommunicator], latest: list[dict[str, Any]], match_id: int,
    seen: list[list[dict[str, Any]]] | None = None, max_moves: int = 400,
) -> None:
    """Play simple legal moves until the hand ends. The mover gets one update per move;
    every other viewer one too, unless the change shows it nothing (H2: a pass while the
    window stays open), and every update continues from the viewer's last version."""
    for _ in range(max_moves):
        if latest[0]["table"]["stage"] != "hand":
            return
        seat, move = next(
            (s, m) for s in range(4) if (m := choose(latest[s]["observation"])) is not None
        )
        since = await database_sync_to_async(_log_position)(match_id)
        await comms[seat].send_json_to({**move, "v": latest[seat]["v"]})
        for viewer, frame in await frames_after_move(comms, latest, match_id, seat, since):
            assert frame["type"] == "update", frame
            assert frame["from"] == latest[viewer]["v"], (frame["from"], latest[viewer]["v"])
            latest[viewer] = frame
            if seen is not None:
                seen[viewer].append(frame)
    raise AssertionError("the hand did not end")


def _log_position(match_id: int) -> int:
    """The seq of the match's last log entry."""
    return int(Match.objects.values_list("version", flat=True).get(pk=match_id))


def _spectator_version(match_id: int) -> int:
    """The spectators' own version of the match (the last of its ``views``)."""
    return int(Match.objects.values_list("views", flat=True).get(pk=match_id)[-1])


async def frames_after_move(
    comms: Sequence[WebsocketCommunicator | None], latest: list[dict[str, Any]],
    match_id: int, seat: int, since: int,
) -> list[tuple[int, dict[str, Any]]]:
    """The frames a move by ``seat`` sends (the log was at position ``since`` before it):
    the mover's, then each other viewer's that the log says is due (waited for as long as
    it takes, so a slow machine cannot make a frame look absent); a viewer with none due
    gets none within 0.3 s."""
    mover = comms[seat]
    assert mover is not None
    mine = await recv(mover)
    frames = [(seat, mine)]
    for viewer, comm in enumerate(comms):
        if viewer == seat or comm is None:
            continue
        due = await database_sync_to_async(frame_due)(
            match_id, since, viewer if viewer < 4 else None)
        if due:
            frames.append((viewer, await recv(comm)))
        else:
            assert await comm.receive_nothing(0.3), "H2: a frame for a change it sees nothing of"
    return frames


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_four_connections_play_a_complete_hand(make_table: Any, variant: str) -> None:
    table = await database_sync_to_async(make_table)(variant)
    comms, latest = await open_all(table)
    seen: list[list[dict[str, Any]]] = [[f] for f in latest]
    match_id = latest[0]["table"]["match"]
    commitment = latest[0]["table"]["commitment"]
    assert latest[4]["observation"] is not None and "me" not in latest[4]["observation"]
    await play_until_hand_ends(comms, latest, match_id, seen)
    await close_all(comms)

    events = [e for f in seen[4] for e in f.get("events", [])]
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["commitment"] == commitment
    assert hashlib.sha256((reveal["salt"] + reveal["seed"]).encode()).hexdigest() == commitment
    assert latest[0]["table"]["stage"] == "between"
    assert any(e["type"] == "settlement" for e in events)

    hand = await database_sync_to_async(Hand.objects.get)(match_id=match_id, number=1)
    match = await database_sync_to_async(Match.objects.get)(pk=match_id)
    rebuilt = await database_sync_to_async(state.round_rebuild)(match, hand)
    assert rebuilt.snapshot() == replay(hand.record).snapshot()
    # The record's seed is the wall's: the revealed seed mixed with the seats' values.
    assert len(reveal["contributions"]) == 4
    assert hand.record["seed"] == wall_seed(
        reveal["seed"], [(c["seat"], c["value"]) for c in reveal["contributions"]])
    assert latest[4]["observation"] == rebuilt.observation(None)
    for seat in range(4):
        assert latest[seat]["observation"] == rebuilt.observation(seat)

    # Nobody ever saw a tile they may not see: scan every frame against the true hands.
    for viewer_index, frames in enumerate(seen):
        viewer = None if viewer_index == 4 else viewer_index
        for frame in frames:
            truth = await database_sync_to_async(truth_at)(match_id, frame["v"])
            assert_nothing_hidden(frame, viewer, truth)


async def test_bad_messages_get_typed_errors_and_change_nothing(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    comms, latest = await open_all(table)
    dealer = latest[0]["observation"]["dealer"]
    other = (dealer + 1) % 4
    v = latest[0]["v"]
    hand_tile = latest[dealer]["observation"]["me"]["hand"][0]
    absent = next(t for t in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p")
                  if t not in latest[dealer]["observation"]["me"]["hand"]
                  and t != latest[dealer]["observation"]["me"]["drawn"])

    async def expect(comm: WebsocketCommunicator, payload: Any, code: str) -> None:
        if isinstance(payload, str):
            await comm.send_to(text_data=payload)
        else:
            await comm.send_json_to(payload)
        reply = await recv(comm)
        assert reply["type"] == "error" and reply["code"] == code, reply
        assert reply["message"]

    count = await database_sync_to_async(MatchEvent.objects.count)()
    await expect(comms[dealer], "not json", "malformed")
    await expect(comms[dealer], [1, 2], "malformed")
    await expect(comms[dealer], {"type": "fly", "v": v}, "malformed")
    await expect(comms[dealer], {"type": "discard", "tile": "5m"}, "malformed")
    await expect(comms[dealer], {"type": "discard", "tile": "xx", "v": v}, "malformed")
    await expect(comms[dealer], {"type": "discard", "tile": absent, "v": v}, "illegal_action")
    await expect(comms[dealer], {"type": "discard", "tile": hand_tile, "v": v - 1},
                 "stale_version")
    await expect(comms[other], {"type": "discard", "tile": hand_tile, "v": v}, "not_your_turn")
    await expect(comms[4], {"type": "pass", "v": v}, "not_seated")
    await expect(comms[dealer], "x" * 5000, "too_large")
    for comm in comms:
        assert await quiet(comm, 0.2)
    match = await database_sync_to_async(Match.objects.get)(room=table.room)
    assert match.version == v
    assert await database_sync_to_async(MatchEvent.objects.count)() == count

    # A flood of bad messages is rate-limited, and the connection survives it.
    for _ in range(60):
        await comms[other].send_to(text_data="{")
    replies = []
    while not await comms[other].receive_nothing(0.3):
        reply = await comms[other].receive_json_from(TIMEOUT)
        if reply["type"] != "presence":
            replies.append(reply)
    assert len(replies) < 30
    assert any(r["code"] == "rate_limited" for r in replies)
    await comms[other].send_json_to({"type": "hello", "v": v})
    assert (await recv(comms[other]))["v"] == v
    await close_all(comms)


async def test_reconnect_mid_hand_gets_missed_events_or_a_snapshot(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)()
    comms, latest = await open_all(table)
    match_id = latest[0]["table"]["match"]
    await comms[2].disconnect()
    stale = latest[2]
    # Seat 2 is gone; the others play on until it is seat 2's move.
    for _ in range(40):
        seat, move = next(
            (s, m) for s in (0, 1, 3) if (m := choose(latest[s]["observation"])) is not None
        ) if any(choose(latest[s]["observation"]) for s in (0, 1, 3)) else (None, None)
        if seat is None:
            break
        since = await database_sync_to_async(_log_position)(match_id)
        await comms[seat].send_json_to({**move, "v": latest[seat]["v"]})
        present = [None if i == 2 else comm for i, comm in enumerate(comms)]
        for viewer, frame in await frames_after_move(present, latest, match_id, seat, since):
            latest[viewer] = frame
    match = await database_sync_to_async(Match.objects.get)(pk=match_id)
    current = match.views[2]  # seat 2's own version now
    assert current > stale["v"]

    again = connect_as(table.users[2], table.room.code, f"v={stale['v']}")
    assert (await again.connect())[0]
    frame = await recv(again)
    assert frame["type"] == "catchup" and frame["from"] == stale["v"] and frame["v"] == current
    assert {e["v"] for e in frame["events"]} == set(range(stale["v"] + 1, current + 1))
    hand = await database_sync_to_async(match.hands.get)(number=1)
    rebuilt = await database_sync_to_async(state.round_rebuild)(match, hand)
    assert frame["observation"] == rebuilt.observation(2)

    # A page refresh (no version) gets a snapshot and can play on.
    await again.send_json_to({"type": "hello"})
    snap = await recv(again)
    assert snap["type"] == "snapshot" and snap["observation"] == rebuilt.observation(2)
    comms[2], latest[2] = again, snap
    await play_until_hand_ends(comms, latest, match_id)
    await close_all(comms)


async def test_a_lost_last_update_is_caught_up_from_the_database(
    make_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pub/sub is at most once: when a committed move's update is lost (Redis reconnecting,
    a dropped link during COMMIT), every quiet connection finds the match ahead of it and
    catches up from the log, with nothing hidden leaking."""
    monkeypatch.setattr(consumers, "VERSION_CHECK_SECONDS", 0.5)
    table = await database_sync_to_async(make_table)()
    comms, latest = await open_all(table)
    match_id = latest[0]["table"]["match"]
    seat, move = next(
        (s, m) for s in range(4) if (m := choose(latest[s]["observation"])) is not None
    )
    lost: list[str] = []

    def drop(group: str, message: dict[str, Any]) -> None:
        lost.append(group)

    monkeypatch.setattr("apps.matches.frames.group_send", drop)
    await comms[seat].send_json_to({**move, "v": latest[seat]["v"]})
    frames = [await recv(comm) for comm in comms]
    monkeypatch.undo()
    assert f"match_{match_id}" in lost
    current = (await database_sync_to_async(Match.objects.get)(pk=match_id)).version
    assert current > latest[0]["v"]
    for viewer, frame in enumerate(frames):
        assert frame["type"] == "catchup" and frame["from"] == latest[viewer]["v"], frame
        assert frame["v"] == current
    truth = await database_sync_to_async(truth_at)(match_id, current)
    for viewer, frame in enumerate(frames):
        assert_nothing_hidden(frame, viewer if viewer < 4 else None, truth)
    await close_all(comms)


async def test_snapshots_taken_during_moves_show_exactly_one_version(make_table: Any) -> None:
    """Moves run in worker threads and change the process's cached round in place; a
    snapshot asked for meanwhile (a reconnect, a ``hello``) must wait for the move, never
    read a half-applied round: every snapshot equals the replay of the log at its version."""
    table = await database_sync_to_async(make_table)("zigong")
    comms, latest = await open_all(table)
    match_id = latest[0]["table"]["match"]
    watcher = connect_as(table.spectator, table.room.code)
    assert (await watcher.connect())[0]
    await recv(watcher)
    snapshots: list[dict[str, Any]] = []
    for _ in range(25):
        if latest[0]["table"]["stage"] != "hand":
            break
        seat, move = next(
            (s, m) for s in range(4) if (m := choose(latest[s]["observation"])) is not None
        )
        since = await database_sync_to_async(_log_position)(match_id)
        await comms[seat].send_json_to({**move, "v": latest[seat]["v"]})
        await watcher.send_json_to({"type": "hello"})  # races the move just sent
        # A pass in a window others still decide shows them nothing (H2): no frame.
        for viewer, frame in await frames_after_move(comms, latest, match_id, seat, since):
            assert frame["type"] == "update", frame
            latest[viewer] = frame
        watched = await database_sync_to_async(_spectator_version)(match_id)
        seen = -1
        while seen < watched:  # the snapshot, and the move's update if it came later
            frame = await recv(watcher)
            seen = max(seen, frame["v"])
            if frame["type"] == "snapshot":
                snapshots.append(frame)
    assert len(snapshots) >= 10
    for snap in snapshots:
        match = await database_sync_to_async(Match.objects.get)(pk=match_id)
        hand = await database_sync_to_async(match.hands.get)(number=1)
        truth = await database_sync_to_async(state.round_rebuild)(match, hand, upto=snap["v"])
        assert snap["observation"] == truth.observation(None), snap["v"]
    await watcher.disconnect()
    await close_all(comms)


async def test_a_lost_match_start_is_noticed_by_waiting_connections(
    make_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pub/sub may lose the room's ``match_started`` notice: a connection waiting at the
    table finds the new match by its quiet-spell check and shows it."""
    monkeypatch.setattr(consumers, "VERSION_CHECK_SECONDS", 0.5)
    table = await database_sync_to_async(make_table)(start=False)
    comm = connect_as(table.users[1], table.room.code)
    assert (await comm.connect())[0]
    assert (await recv(comm))["type"] == "waiting"
    real_send = group_send
    lost: list[str] = []

    def drop_room_notices(group: str, message: dict[str, Any]) -> None:
        if group.startswith("table_"):
            lost.append(message["type"])
            return
        real_send(group, message)

    monkeypatch.setattr("apps.matches.frames.group_send", drop_room_notices)
    await database_sync_to_async(services.match_start)(room=table.room)
    frame = await recv(comm)
    assert "table.match_started" in lost
    match = await database_sync_to_async(Match.objects.get)(room=table.room)
    assert frame["type"] == "snapshot" and frame["table"]["match"] == match.pk
    assert frame["seat"] == 1 and frame["table"]["next"]["hand"] == 1  # hand 1 committed
    await comm.disconnect()


async def test_a_match_start_found_twice_sends_one_snapshot(
    make_table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a match's start a waiting connection hears the start notice, and its quiet-spell
    check may find the new match too, while the subscription is still being set up (slow
    under load; slowed down here). It gets one snapshot, not one per discovery: with 400
    connections starting together, the second snapshots doubled the start-up's work."""
    from apps.matches import presence

    monkeypatch.setattr(consumers, "VERSION_CHECK_SECONDS", 0.2)
    real_join = presence.presence_join

    def slow_join(*args: Any, **kwargs: Any) -> bool:
        import time

        time.sleep(1.0)
        return real_join(*args, **kwargs)

    monkeypatch.setattr(presence, "presence_join", slow_join)
    table = await database_sync_to_async(make_table)(start=False)
    comm = connect_as(table.users[2], table.room.code)
    assert (await comm.connect())[0]
    assert (await recv(comm))["type"] == "waiting"
    await database_sync_to_async(services.match_start)(room=table.room)
    frame = await recv(comm)
    assert frame["type"] == "snapshot" and frame["seat"] == 2
    assert await quiet(comm, 1.5)
    await comm.disconnect()


async def test_access_rules(make_table: Any) -> None:
    table = await database_sync_to_async(make_table)(allow_spectators=False)
    for refused in (table.outsider, table.spectator):
        comm = connect_as(refused, table.room.code)
        # Accepted, then closed with the code (a refusal before the accept is HTTP 403).
        assert (await comm.connect())[0]
        assert await comm.receive_output() == {"type": "websocket.close", "code": 4403}
        await comm.disconnect()  # the browser side closes too: the refused consumer ends now
    player = connect_as(table.users[1], table.room.code)
    assert (await player.connect())[0]
    frame = await recv(player)
    assert frame["type"] == "snapshot" and frame["seat"] == 1
    assert frame["observation"]["me"]["seat"] == 1
    await player.disconnect()


async def test_full_asgi_stack_checks_origin_and_session(make_table: Any) -> None:
    from django.test import Client

    from config.asgi import application

    table = await database_sync_to_async(make_table)()
    client = Client()
    await database_sync_to_async(client.force_login)(table.users[0])
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    path = f"/ws/rooms/{table.room.code}/"
    good = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie),
                                    (b"host", b"127.0.0.1")]
    )
    assert (await good.connect())[0]
    assert json.loads(await good.receive_from(TIMEOUT))["seat"] == 0
    await good.disconnect()
    evil = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://evil.example"), (b"cookie", cookie)]
    )
    assert not (await evil.connect())[0]
    await evil.disconnect()  # the browser side closes too: the refused consumer ends now
    anonymous = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://127.0.0.1")])
    assert (await anonymous.connect())[0]  # accepted, then closed with the code
    assert await anonymous.receive_output() == {"type": "websocket.close", "code": 4401}
    await anonymous.disconnect()  # the browser side closes too: the refused consumer ends now


async def test_a_player_at_the_table_shows_as_online_in_the_club(make_table: Any) -> None:
    """A seated player's table connection counts as being seen (the member list's 在线);
    a spectator's does not stand in for a seat."""
    table = await database_sync_to_async(make_table)()
    comm = connect_as(table.users[2], table.room.code)
    assert (await comm.connect())[0]
    await recv(comm)
    watcher = connect_as(table.spectator, table.room.code)
    assert (await watcher.connect())[0]
    await recv(watcher)
    player = await database_sync_to_async(User.objects.get)(pk=table.users[2].pk)
    spectator = await database_sync_to_async(User.objects.get)(pk=table.spectator.pk)
    assert player.is_online and spectator.last_seen is None
    await comm.disconnect()
    await watcher.disconnect()
