"""Match owners (``apps.matches.owners``): one process makes a match's moves, the others
forward theirs to it over Redis, and a gone owner, a silent one or a missing Redis never
loses a move silently.

Each test runs two routers on one event loop, standing in for two daphne processes: each has
its own inbox and leases, and only Redis between them. Their "move" is a stand-in that
records where it ran."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis
from django.db import OperationalError

from apps.matches import owners
from apps.matches.owners import OwnerFailedError, OwnerUnavailableError, Router
from apps.matches.protocol import MatchError


class Process:
    """A router and the moves it made itself, as ``(match, user, payload)``."""

    def __init__(self, url: str, name: str, outcome: Callable[[], Any] | None = None) -> None:
        self.name, self.made = name, []
        self.outcome = outcome
        self.router = Router(url, self._act_here)

    async def _act_here(self, match_id: int, user_id: int, payload: Any) -> int:
        self.made.append((match_id, user_id, payload))
        if self.outcome is not None:
            result = self.outcome()
            if asyncio.iscoroutine(result):
                await result
        return 100 + len(self.made)

    async def ready(self) -> Process:
        await asyncio.wait_for(self.router.listening.wait(), 5)
        return self


def new_match_id() -> int:
    """A match id no other test (nor an earlier run, whose leases may live on) has used."""
    return random.randrange(10**12, 10**13)


async def owned_match(url: str) -> tuple[Process, Process, int]:
    """Two processes, the first owning a new match (it made the first move there)."""
    owner = await Process(url, "owner").ready()
    sender = await Process(url, "sender").ready()
    match = new_match_id()
    await owner.router.act(match_id=match, user_id=1, payload={})
    return owner, sender, match


async def close(*processes: Process) -> None:
    for process in processes:
        await process.router.close()


def owner_in_redis(url: str, match_id: int) -> str | None:
    value = redis.Redis.from_url(url).get(f"owners:match:{match_id}")
    return value.decode() if value else None


def run(url: str, scenario: Callable[..., Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(url), 30))


def test_the_first_process_to_act_owns_the_match_and_the_other_forwards_to_it(
        redis_url: str) -> None:
    async def scenario(url: str) -> None:
        first, second = [await Process(url, n).ready() for n in ("first", "second")]
        match = new_match_id()
        assert await first.router.act(match_id=match, user_id=1, payload={"type": "ready"}) == 101
        answered = await second.router.act(match_id=match, user_id=2,
                                           payload={"type": "discard", "tile": "1m"})
        assert answered == 102  # the owner's version, made there
        assert first.made == [(match, 1, {"type": "ready"}),
                              (match, 2, {"type": "discard", "tile": "1m"})]
        assert second.made == []
        assert owner_in_redis(url, match) == first.router.inbox
        await close(first, second)

    run(redis_url, scenario)


def test_matches_are_owned_where_they_were_first_played(redis_url: str) -> None:
    async def scenario(url: str) -> None:
        first, second = [await Process(url, n).ready() for n in ("first", "second")]
        mine, theirs = new_match_id(), new_match_id()
        await first.router.act(match_id=mine, user_id=1, payload={})
        await second.router.act(match_id=theirs, user_id=2, payload={})
        await first.router.act(match_id=theirs, user_id=3, payload={})
        assert first.made == [(mine, 1, {})]
        assert second.made == [(theirs, 2, {}), (theirs, 3, {})]
        await close(first, second)

    run(redis_url, scenario)


def test_a_refusal_by_the_owner_reaches_the_sender_with_its_code_and_message(
        redis_url: str) -> None:
    def refuse() -> None:
        raise MatchError("not_your_turn", "还没轮到你 (第 3 巡)")

    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        owner.outcome = refuse
        with pytest.raises(MatchError) as refused:
            await sender.router.act(match_id=match, user_id=2, payload={"type": "pass"})
        assert (refused.value.code, refused.value.message) == ("not_your_turn",
                                                               "还没轮到你 (第 3 巡)")
        assert sender.made == []
        await close(owner, sender)

    run(redis_url, scenario)


def test_an_owner_without_its_database_answers_unavailable(redis_url: str) -> None:
    def lose_database() -> None:
        raise OperationalError("server closed the connection unexpectedly")

    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        owner.outcome = lose_database
        with pytest.raises(OwnerUnavailableError) as error:
            await sender.router.act(match_id=match, user_id=2, payload={})
        assert isinstance(error.value, OperationalError)  # the endpoint says "unavailable"
        await close(owner, sender)

    run(redis_url, scenario)


def test_a_bug_in_the_owners_move_is_logged_there_and_fails_the_senders_call(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    def bug() -> None:
        raise KeyError("seat")

    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        owner.outcome = bug
        with pytest.raises(OwnerFailedError):
            await sender.router.act(match_id=match, user_id=2, payload={})
        await close(owner, sender)

    with caplog.at_level(logging.ERROR, logger="apps.matches.owners"):
        run(redis_url, scenario)
    assert any(r.exc_info and r.exc_info[0] is KeyError for r in caplog.records)


def test_when_the_owner_is_gone_the_sender_takes_the_match_over(redis_url: str) -> None:
    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        await sender.router.act(match_id=match, user_id=2, payload={})  # learns the owner
        await owner.router.close()  # its process stopped: nobody listens on its inbox
        assert await sender.router.act(match_id=match, user_id=2, payload={"n": 2}) == 101
        assert sender.made == [(match, 2, {"n": 2})]
        assert owner_in_redis(url, match) == sender.router.inbox
        await sender.router.close()

    run(redis_url, scenario)


def test_a_forwarded_move_with_no_answer_is_unavailable(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(owners, "ANSWER_TIMEOUT_SECONDS", 0.3)

    async def scenario(url: str) -> None:
        stuck = asyncio.Event()
        owner, sender, match = await owned_match(url)
        owner.outcome = stuck.wait  # the owner's move never finishes
        with pytest.raises(OwnerUnavailableError):
            await sender.router.act(match_id=match, user_id=2, payload={})
        assert sender.made == []  # it may have been made by the owner: not made twice
        assert sender.router.waiting == {}
        stuck.set()
        await close(owner, sender)

    run(redis_url, scenario)


def test_the_owner_keeps_the_match_while_its_own_players_act(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(owners, "LEASE_SECONDS", 1.0)
    monkeypatch.setattr(owners, "RECHECK_SECONDS", 0.05)

    async def scenario(url: str) -> None:
        owner = await Process(url, "owner").ready()
        sender = await Process(url, "sender").ready()
        match = new_match_id()
        for _ in range(5):  # past the lease: it holds only if renewed as it goes
            await owner.router.act(match_id=match, user_id=1, payload={})
            await asyncio.sleep(0.3)
            assert owner_in_redis(url, match) == owner.router.inbox
        await sender.router.act(match_id=match, user_id=2, payload={})
        assert sender.made == []
        assert owner.made[-1] == (match, 2, {})
        await close(owner, sender)

    run(redis_url, scenario)


def test_a_match_passes_to_where_its_players_act_once_the_owners_lease_runs_out(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(owners, "LEASE_SECONDS", 0.4)
    monkeypatch.setattr(owners, "RECHECK_SECONDS", 0.1)

    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        for _ in range(10):  # only the other process's players act from now on
            await sender.router.act(match_id=match, user_id=2, payload={})
            await asyncio.sleep(0.1)
        forwarded = len(owner.made) - 1
        assert 1 <= forwarded < 10
        assert len(sender.made) == 10 - forwarded
        assert owner_in_redis(url, match) == sender.router.inbox
        await close(owner, sender)

    run(redis_url, scenario)


def test_without_redis_moves_are_made_where_they_arrive() -> None:
    async def scenario(url: str) -> None:
        alone = Process(url, "alone")
        match = new_match_id()
        assert await alone.router.act(match_id=match, user_id=1, payload={}) == 101
        assert await alone.router.act(match_id=match, user_id=2, payload={}) == 102
        assert alone.made == [(match, 1, {}), (match, 2, {})]
        await alone.router.close()

    run("redis://127.0.0.1:1/0", scenario)  # nothing listens on port 1


def test_a_malformed_message_on_an_inbox_is_dropped_and_the_inbox_goes_on(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(url: str) -> None:
        owner, sender, match = await owned_match(url)
        publisher = redis.Redis.from_url(url)
        for junk in (b"not json", b"[1, 2]", b'{"kind": "move", "call": 1}',
                     b'{"kind": "answer", "call": "x"}', b'{"kind": "other"}'):
            assert publisher.publish(owner.router.inbox, junk) == 1
        assert await sender.router.act(match_id=match, user_id=2, payload={"n": 2}) == 102
        assert owner.made[-1] == (match, 2, {"n": 2})
        await close(owner, sender)

    with caplog.at_level(logging.WARNING, logger="apps.matches.owners"):
        run(redis_url, scenario)
    assert sum("malformed" in r.getMessage() for r in caplog.records) == 5
