"""Move processes: the match writer runs beside the socket process, not inside it.

A daphne process relays every frame of its connections on one interpreter lock. A move's
own work (lock the row, apply the rules, write the log, build each seat's frame) took about
half of that process's CPU, so moves and relays queued behind each other on one core while
the machine's other core idled. With ``MOVE_PROCESSES`` = N > 0 each daphne process starts
N child processes of its own (spawned, each a fresh Django process) and hands every call on
match ``m`` to child ``m % N``:

- one match's calls always reach the same child, so that child's writer cache
  (:mod:`apps.matches.state`) stays warm, and they run there one at a time;
- different matches on different children run in parallel, on other cores.

The child publishes the updates of the changes it commits itself, right after each commit
(:func:`apps.core.group_publish.group_publish`), and returns the call's result (or its
refusal) to the socket process (:func:`apps.matches.broadcast.call_in_order`). With
``MOVE_PROCESSES = 0`` calls run in the socket process's move threads instead; in-process
tests do that, since a child cannot see a test's uncommitted database.

A child that dies (killed, out of memory) fails the calls it held with
:class:`MoveProcessError`, which the table endpoint reports as ``unavailable``: a call that
was cut off may or may not have committed, and the client's resync shows which. Later
calls on that slot go to a new child. A child whose parent dies exits on its own.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from django.conf import settings
from django.db import OperationalError
from django.utils.module_loading import import_string

from apps.core.collector import collector_tune

T = TypeVar("T")
PARENT_CHECK_SECONDS = 1.0
"""How often a child checks that the socket process that started it is still alive."""

_pools: dict[int, ProcessPoolExecutor] = {}
_pools_lock = threading.Lock()


class MoveProcessError(OperationalError):
    """A move process died while it held the call, or could not be started.

    An :class:`~django.db.OperationalError`: like a lost database link, the change may or
    may not have been saved, and callers already answer that with ``unavailable``.
    """


def enabled() -> bool:
    """Whether calls on matches run in move processes (``MOVE_PROCESSES`` > 0)."""
    return int(settings.MOVE_PROCESSES) > 0


def start() -> None:
    """Start every move process that is not running, in the background (each takes about
    a second to set Django up). Called as players connect, so that the first moves after a
    restart do not wait for it."""
    for slot in range(int(settings.MOVE_PROCESSES)):
        _pool(slot)


async def run(match_id: int, function: Callable[..., T], *args: Any) -> T:
    """Call ``function(*args)`` in the move process of match ``match_id`` and return its
    result (or raise its exception).

    ``function`` and ``args`` cross a process boundary: ``function`` must be importable by
    name, and everything must pickle. A child found dead before the call was sent is
    replaced and the call goes to the new one; raises :class:`MoveProcessError` when the
    child died holding the call.
    """
    slot = match_id % int(settings.MOVE_PROCESSES)
    pool = _pool(slot)
    try:
        future: Future[T] = pool.submit(function, *args)
    except BrokenProcessPool:  # refused before sending: nothing of this call ran
        _discard(slot, pool)
        pool = _pool(slot)
        future = pool.submit(function, *args)
    try:
        return await asyncio.wrap_future(future)
    except BrokenProcessPool as exc:
        _discard(slot, pool)
        raise MoveProcessError(f"the move process of match {match_id} stopped") from exc


async def run_everywhere(function: Callable[[], T]) -> list[T]:
    """Call ``function()`` once in every move process (to read per-process counters)."""
    futures = [_pool(slot).submit(function) for slot in range(int(settings.MOVE_PROCESSES))]
    return list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))


def stop() -> None:
    """Stop every move process, after the calls they hold (tests; an exiting process's
    pools stop on their own)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=True)


def children() -> list[int]:
    """The process IDs of this process's live move processes."""
    with _pools_lock:
        pools = list(_pools.values())
    # ``_processes`` is the executor's own table of its workers; there is no public one.
    return [pid for pool in pools for pid in (pool._processes or {})]


def _pool(slot: int) -> ProcessPoolExecutor:
    with _pools_lock:
        pool = _pools.get(slot)
        if pool is None:
            pool = _pools[slot] = ProcessPoolExecutor(
                max_workers=1,
                # Not ``fork``: this process runs an event loop, threads and open sockets.
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_boot,
                initargs=(os.getpid(),),
            )
            pool.submit(_ready)
        return pool


def _discard(slot: int, pool: ProcessPoolExecutor) -> None:
    """Forget a broken pool (once, whichever of its failed calls gets here first)."""
    with _pools_lock:
        if _pools.get(slot) is pool:
            del _pools[slot]
    pool.shutdown(wait=False, cancel_futures=True)


def _ready() -> None:
    """Nothing: submitted to a new pool to make it start its child now."""


def _boot(parent: int) -> None:
    """Set a new move process up: Django, the collector tuning of the socket process, the
    configured set-up hooks (``MOVE_PROCESS_SETUP``), and a watch on the parent."""
    import django  # noqa: PLC0415  (a spawned child starts bare)

    # Ctrl-C in a terminal reaches the whole process group; the parent decides when its
    # children stop (it shuts the pool down as it exits).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    django.setup()
    for path in settings.MOVE_PROCESS_SETUP:
        import_string(path)()
    threading.Thread(target=_exit_with, args=(parent,), daemon=True,
                     name="parent-watch").start()
    collector_tune()  # as the daphne process does (config/asgi.py)


def _exit_with(parent: int) -> None:
    """Exit as soon as the parent is gone. The child holds both ends of its call pipe, so
    a killed parent would otherwise leave it waiting for calls forever."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)
