"""Move processes (``apps.matches.movers``): routing by match, refusals crossing the process
boundary intact, a dead child replaced, a child outliving its parent exiting, and updates of
a failed call still sent."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from django.conf import settings
from django.test import override_settings

from apps.matches import broadcast, movers, rows
from apps.matches.protocol import MatchError


def refuse(*, match_id: int) -> None:
    """A call that is refused the way a move is (runs in a move process)."""
    raise MatchError("not_your_turn", f"第 {match_id} 局: 还没轮到你")


def explode(*, match_id: int) -> None:
    """A call that fails unexpectedly (a bug)."""
    raise RuntimeError(f"bug in match {match_id}")


def pid_of(match_id: int) -> int:
    """The process a call on ``match_id`` ran in."""
    return os.getpid()


@pytest.fixture
def two_movers() -> Iterator[None]:
    with override_settings(MOVE_PROCESSES=2):
        yield
        movers.stop()


@pytest.mark.usefixtures("two_movers")
def test_calls_on_one_match_always_reach_the_same_child() -> None:
    async def pids() -> list[int]:
        return [await movers.run(m, pid_of, m) for m in (6, 8, 6, 7, 9)]

    first, second, again, odd, odd_again = asyncio.run(pids())
    assert first == second == again  # 6 and 8 share slot 0
    assert odd == odd_again != first  # 7 and 9 go to the other child
    assert os.getpid() not in {first, odd}
    assert sorted(movers.children()) == sorted({first, odd})


def echo(match_id: int, data: bytes) -> bytes:
    """Stands for a call with a large argument and result: returns ``data`` reversed."""
    return data[::-1]


@pytest.mark.usefixtures("two_movers")
def test_calls_and_results_larger_than_a_pipe_arrive_whole_and_in_order() -> None:
    """A call the pipe cannot take at once is buffered and written as the child reads;
    results come back in pieces and are put together. Several such calls on one child,
    and small ones between them, each get their own answer."""
    sizes = [3 << 20, 10, 1 << 20, 0, 200_000]
    payloads = [bytes([n + 1]) * size + bytes(range(n + 1)) for n, size in enumerate(sizes)]

    async def calls() -> list[bytes]:
        return list(await asyncio.gather(*(movers.run(2, echo, 2, p) for p in payloads)))

    assert asyncio.run(asyncio.wait_for(calls(), 60)) == [p[::-1] for p in payloads]


def unpicklable(match_id: int) -> Any:
    """A call whose result cannot cross back (a local function)."""
    return lambda: match_id


@pytest.mark.usefixtures("two_movers")
def test_a_result_that_cannot_cross_back_fails_the_call_and_the_child_goes_on() -> None:
    async def calls() -> tuple[BaseException | Any, int, int]:
        pid = await movers.run(3, pid_of, 3)
        failed = (await asyncio.gather(movers.run(3, unpicklable, 3),
                                       return_exceptions=True))[0]
        return failed, pid, await movers.run(3, pid_of, 3)

    failed, before, after = asyncio.run(asyncio.wait_for(calls(), 30))
    assert isinstance(failed, RuntimeError) and "unpicklable" in str(failed)
    assert before == after  # the same child answered the next call


class NeedsTwoArgumentsError(Exception):
    """An exception that pickles but cannot be rebuilt from its pickle."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")


def raise_unrebuildable(match_id: int) -> None:
    raise NeedsTwoArgumentsError("x", f"match {match_id}")


@pytest.mark.usefixtures("two_movers")
def test_an_outcome_that_cannot_be_rebuilt_fails_only_its_own_call() -> None:
    async def calls() -> list[Any]:
        return list(await asyncio.gather(movers.run(3, raise_unrebuildable, 3),
                                         movers.run(3, pid_of, 3), return_exceptions=True))

    failed, pid = asyncio.run(asyncio.wait_for(calls(), 30))
    assert isinstance(failed, RuntimeError) and "unreadable outcome" in str(failed)
    assert isinstance(pid, int) and pid != os.getpid()


_handled: list[int] = []


def handle_in_turn(*, match_id: int, n: int) -> list[int]:
    """Stands for a move: the first one is slow; returns the order the child ran them in."""
    if n == 0:
        time.sleep(0.3)
    _handled.append(n)
    return list(_handled)


@pytest.mark.usefixtures("two_movers")
def test_one_matchs_calls_run_in_the_order_they_came() -> None:
    """Calls are handed to the move process at once (daphne holds no lock per match) and it
    runs them one at a time in that order: a later call never overtakes a slow one."""

    async def calls() -> list[list[int]]:
        return await asyncio.gather(*(broadcast.call_in_order(handle_in_turn, match_id=4, n=n)
                                      for n in range(8)))

    done = asyncio.run(calls())
    assert done[-1][-8:] == list(range(8))
    assert all(len(done[n]) == len(done[0]) + n for n in range(8))


@pytest.mark.usefixtures("two_movers")
def test_a_refusal_comes_back_with_its_code_and_message() -> None:
    with pytest.raises(MatchError) as refused:
        asyncio.run(broadcast.call_in_order(refuse, match_id=3))
    assert refused.value.code == "not_your_turn"
    assert refused.value.message == "第 3 局: 还没轮到你"


@pytest.mark.usefixtures("two_movers")
def test_an_unexpected_error_comes_back_as_itself() -> None:
    with pytest.raises(RuntimeError, match="bug in match 5"):
        asyncio.run(broadcast.call_in_order(explode, match_id=5))


@pytest.mark.django_db  # the move process's connection rules run around the call
def test_an_unexpected_error_is_logged_with_its_traceback_where_it_happened(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Only the exception crosses back to daphne, so the move process logs the traceback;
    a refusal is an answer, not an error, and is not logged."""
    with pytest.raises(RuntimeError) as failed:
        broadcast._in_move_process(explode, {"match_id": 5}, True)
    with pytest.raises(MatchError):
        broadcast._in_move_process(refuse, {"match_id": 5}, True)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage() for r in errors] == ["explode failed in a move process"]
    assert errors[0].exc_info is not None and errors[0].exc_info[1] is failed.value


def pid_after(seconds: float) -> int:
    """The process a call ran in, answered after ``seconds``."""
    time.sleep(seconds)
    return os.getpid()


@pytest.mark.usefixtures("two_movers")
def test_a_dead_move_process_fails_the_call_it_held_then_is_replaced() -> None:
    async def scenario() -> tuple[int, BaseException | int, int]:
        old = await movers.run(4, pid_of, 4)
        held = asyncio.ensure_future(movers.run(4, pid_after, 30.0))
        await asyncio.sleep(0.5)  # the call is in the child now
        os.kill(old, signal.SIGKILL)
        outcome = (await asyncio.gather(held, return_exceptions=True))[0]
        return old, outcome, await movers.run(4, pid_of, 4)

    old, held, new = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert isinstance(held, movers.MoveProcessError)
    assert new != old
    assert psutil.Process(new).is_running()


@pytest.mark.usefixtures("two_movers")
def test_a_call_after_a_child_died_idle_goes_to_a_new_one() -> None:
    """Nothing was lost with a child that died between calls: no refusal."""
    old = asyncio.run(movers.run(4, pid_of, 4))
    os.kill(old, signal.SIGKILL)
    _wait_gone(old)
    time.sleep(0.5)  # the pool has seen its worker die
    new = asyncio.run(movers.run(4, pid_of, 4))
    assert new != old


CHILD_SCRIPT = """
import asyncio, os, sys, time
import django
django.setup()
from django.test import override_settings
from apps.matches import movers
from tests.matches.test_movers import pid_of
with override_settings(MOVE_PROCESSES=1):
    print(asyncio.run(movers.run(1, pid_of, 1)), flush=True)
    time.sleep(60)
"""


def test_a_move_process_exits_when_its_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", CHILD_SCRIPT], text=True,
                              stdout=subprocess.PIPE, cwd=settings.BASE_DIR)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert psutil.pid_exists(child)
    finally:
        parent.kill()
        parent.wait(10)
    _wait_gone(child, 10)
    assert not _alive(child), "the move process outlived its killed parent"


def _wait_gone(pid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.django_db  # a move thread closes stale connections around each call
def test_updates_of_commits_before_a_failure_are_still_sent(monkeypatch: Any) -> None:
    """A call that committed a change and then failed has already published that change:
    updates leave at commit, not when the call returns."""
    published: list[tuple[str, int]] = []
    monkeypatch.setattr(broadcast, "group_publish",
                        lambda group, message: published.append((group, message["v"])) or True)

    def commit_then_fail(*, match_id: int) -> None:
        broadcast.send_updates(match_id, {0: {"type": "update", "from": 4, "v": 5}})
        raise RuntimeError("after the commit")

    with pytest.raises(RuntimeError, match="after the commit"):
        asyncio.run(broadcast.call_in_order(commit_then_fail, match_id=11))
    assert published == [("match_11", 5)]


@pytest.mark.parametrize("busy_for", [2, 1000])
def test_a_busy_match_is_handed_over_again_then_waited_for(
    monkeypatch: pytest.MonkeyPatch, busy_for: int
) -> None:
    """A call that finds its match's row held by another process is handed to the move
    process again after a pause, without waiting for the row there; after
    ``BUSY_GIVE_UP_SECONDS`` it is handed over once more to wait for it."""
    attempts: list[bool] = []

    async def off_loop(function: Any, *, match_id: int, wait_for_row: bool = True,
                       **kwargs: Any) -> str:
        attempts.append(wait_for_row)
        if not wait_for_row and len(attempts) <= busy_for:
            raise rows.MatchBusyError(f"match {match_id} is locked")
        return f"done {kwargs['n']}"

    monkeypatch.setattr(movers, "enabled", lambda: True)
    monkeypatch.setattr(broadcast, "_off_loop", off_loop)
    monkeypatch.setattr(broadcast, "BUSY_GIVE_UP_SECONDS", 0.2)
    assert asyncio.run(broadcast.call_in_order(pid_of, match_id=3, n=5)) == "done 5"
    if busy_for == 2:
        assert attempts == [False, False, False]
    else:
        assert attempts[-1] is True and set(attempts[:-1]) == {False} and len(attempts) >= 5
