"""Channel-layer groups of a table and sending committed updates to them.

Every connection following a match joins its group (``match_<id>``), and everyone at a
room's table page joins ``table_<room id>`` to hear that a match has started there.

A committed change is one message to the match group: its version range and, per audience
(each seat, and spectators), that audience's frame already encoded as JSON. Each connection
forwards only its own audience's text (``TableConsumer.table_update``), so a client never
receives another seat's frame, while the change costs one publish and no encoding on the
event loop. Called only from ``transaction.on_commit``, in the thread that committed
(:func:`apps.core.group_publish.group_publish`).

A connection that changes a match (a player's move) or reads it (a snapshot, a catch-up)
uses :func:`call_in_order`: the call runs in the match's move process (:mod:`.movers`), or
in a move thread, and this process's calls on one match run one at a time, in the order
they came. A move's update is published from the move process right after its commit,
before the match's next call there starts, so one process's updates of a match leave in
commit order.

The layer is Redis pub/sub, so a send is fire-and-forget: one that fails (Redis away) is
logged and dropped. The change is safe in the log, and every connection that forwarded
nothing for a few seconds checks the match's version and catches up
(``TableConsumer._catch_up_if_behind``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from channels.db import DatabaseSyncToAsync
from django.db import DatabaseError, close_old_connections

from apps.core.group_publish import group_publish

from . import movers, rows
from .protocol import MatchError, encode_frame

UPDATE_EVENT = "table.update"
MATCH_STARTED_EVENT = "table.match_started"
PRESENCE_EVENT = "table.presence"
"""Sent by a table connection itself (see ``consumers``) when a seat's presence changes."""


def match_group(match_id: int) -> str:
    """The group of every connection (seats and spectators) following a match."""
    return f"match_{match_id}"


def room_group(room_id: int) -> str:
    """The group of everyone connected to a room's table endpoint."""
    return f"table_{room_id}"


def audience(viewer: int | None) -> str:
    """The key of a viewer's frame in an update message: the seat, or ``watch``."""
    return "watch" if viewer is None else str(viewer)


MOVE_THREADS = 3
"""Threads that handle moves when there are no move processes (``MOVE_PROCESSES = 0``).
Most of a move's time is spent waiting for PostgreSQL; with several threads, moves of
different matches overlap those waits (one match's moves still run one at a time, see
:func:`call_in_order`)."""
_move_pool = ThreadPoolExecutor(MOVE_THREADS, thread_name_prefix="moves")
BUSY_PAUSES = (0.002, 0.005, 0.01, 0.02)
"""Seconds a move process's call on a busy match waits before each new hand-over: these,
then the last one again."""
BUSY_GIVE_UP_SECONDS = 2.0
"""After this long busy, a call is handed over one last time, to wait for the row."""
_match_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[int, asyncio.Lock]
] = weakref.WeakKeyDictionary()
T = TypeVar("T")
logger = logging.getLogger(__name__)


def send_updates(match_id: int, updates: dict[int | None, dict[str, Any]]) -> None:
    """Publish one committed change (each viewer's ``update`` frame) to the match group."""
    first = next(iter(updates.values()))
    group_publish(match_group(match_id), {
        "type": UPDATE_EVENT,
        "from": first["from"],
        "v": first["v"],
        "texts": {audience(viewer): encode_frame(frame) for viewer, frame in updates.items()},
    })


async def call_in_order(function: Callable[..., T], *, match_id: int, **kwargs: Any) -> T:
    """Run a blocking service call on match ``match_id`` (a move, or a read such as a
    snapshot or a catch-up) where its moves run, off the event loop: in the match's move
    process, or a move thread (:mod:`.movers`).

    This process's calls on one match run one at a time, in the order they came (but for
    a busy match, below): the cached round is never read while a move is changing it, the
    updates a move publishes on commit leave before the next move's, and a call in the
    match's move process finds that process's warm cache. Calls on different matches run
    side by side.

    A move process runs its calls one at a time, in the order they were handed to it, so
    calls are handed over at once: three seats passing on one discard cost three calls in
    the child, not three round trips to it one after another. Move threads run several
    calls at once, so there a lock per match keeps the order.

    In a move process a call does not wait for the match's row while another process's
    change holds it (a room whose players are connected to several daphne processes):
    that would hold up every other match the child serves. It is refused there as busy
    (:class:`~.rows.MatchBusyError`, nothing changed) and handed over again after a pause,
    until :data:`BUSY_GIVE_UP_SECONDS`; then once more, waiting for the row. Seats that act
    at once may so be applied in either order, as they could arrive in either.
    """
    if not movers.enabled():
        async with _match_lock(match_id):
            return await _off_loop(function, match_id=match_id, **kwargs)
    give_up_at = time.monotonic() + BUSY_GIVE_UP_SECONDS
    for attempt in itertools.count():
        try:
            return await _off_loop(function, match_id=match_id, wait_for_row=False, **kwargs)
        except rows.MatchBusyError:
            pause = BUSY_PAUSES[min(attempt, len(BUSY_PAUSES) - 1)]
            if time.monotonic() + pause >= give_up_at:
                break
            await asyncio.sleep(pause)
    return await _off_loop(function, match_id=match_id, **kwargs)


def _in_move_process(function: Callable[..., T], kwargs: dict[str, Any],
                     wait_for_row: bool) -> T:
    """``function(**kwargs)`` in a move process, with Django's per-request connection rules
    around it (``DatabaseSyncToAsync`` applies them in a move thread). An unexpected error
    is logged here, where its traceback is: only the exception crosses back."""
    close_old_connections()
    try:
        with contextlib.nullcontext() if wait_for_row else rows.lock_without_waiting():
            return function(**kwargs)
    except (MatchError, DatabaseError, rows.MatchBusyError):
        raise
    except Exception:
        logger.exception("%s failed in a move process", getattr(function, "__name__", function))
        raise
    finally:
        close_old_connections()


def _match_lock(match_id: int) -> asyncio.Lock:
    locks = _match_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    lock = locks.get(match_id)
    if lock is None:
        lock = locks[match_id] = asyncio.Lock()
    return lock


async def _off_loop(function: Callable[..., T], *, match_id: int, wait_for_row: bool = True,
                    **kwargs: Any) -> T:
    """Call ``function`` in the match's move process (or a move thread) and wait for it to
    finish, even when the caller is cancelled (a closing connection): the call runs on
    regardless, and the match's lock must not pass to the next call before it is done."""
    kwargs["match_id"] = match_id
    if movers.enabled():
        call = movers.run(match_id, _in_move_process, function, kwargs, wait_for_row)
    else:
        call = DatabaseSyncToAsync(function, thread_sensitive=False,
                                   executor=_move_pool)(**kwargs)
    work = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await work
        raise


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    group_publish(room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id})
