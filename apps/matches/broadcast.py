"""Channel-layer groups of a table and sending committed updates to them.

Every connection following a match joins its group (``match_<id>``), and everyone at a
room's table page joins ``table_<room id>`` to hear that a match has started there.

A committed change is one message to the match group: its version range and, per audience
(each seat, and spectators), that audience's frame already encoded as JSON. Each connection
forwards only its own audience's text (``TableConsumer.table_update``), so a client never
receives another seat's frame, while the change costs one group send and no encoding on the
event loop. Called only from ``transaction.on_commit``.

A connection that changes a match itself (a player's move, handled in the match's move
process, see :mod:`.movers`) uses :func:`call_then_send`: the committed change's message
comes back from the call and is queued and sent from the event loop, instead of the move
waiting for Redis before the next can start. Each match has its own send queue, drained
in commit order by one task, so the match's next move runs while the previous update is
still being published (three seats passing on one discard at once no longer wait for
each other's publishes).

The layer is Redis pub/sub, so a send is fire-and-forget: one that fails (Redis away) is
logged and dropped. The change is safe in the log, and every connection that forwarded
nothing for a few seconds checks the match's version and catches up
(``TableConsumer._catch_up_if_behind``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from asgiref.sync import async_to_sync
from channels.db import DatabaseSyncToAsync
from channels.layers import get_channel_layer
from django.db import DatabaseError, close_old_connections
from redis.exceptions import RedisError

from . import movers
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


_outbox: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar(
    "broadcast_outbox", default=None
)
MOVE_THREADS = 3
"""Threads that handle moves when there are no move processes (``MOVE_PROCESSES = 0``).
Most of a move's time is spent waiting for PostgreSQL; with several threads, moves of
different matches overlap those waits (one match's moves still run one at a time, see
:func:`call_then_send`)."""
_move_pool = ThreadPoolExecutor(MOVE_THREADS, thread_name_prefix="moves")
SEND_TIMEOUT = 10.0
"""Seconds a committed update may take to reach Redis before it is given up (the
connections' version check delivers it instead). Moves do not wait for sends, so this
only bounds how long a hung Redis holds a match's queue."""
MAX_QUEUED_SENDS = 100
"""Updates a match's send queue holds at most; more (Redis hung) are dropped, and the
connections catch up from the log by their version check."""
Outbox = list[tuple[str, dict[str, Any]]]
_match_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[int, asyncio.Lock]
] = weakref.WeakKeyDictionary()
_send_queues: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[int, deque[Outbox]]
] = weakref.WeakKeyDictionary()
_drainers: set[asyncio.Task[None]] = set()
"""The running send-queue drainers (the event loop keeps only weak references to tasks)."""
T = TypeVar("T")
logger = logging.getLogger(__name__)


def send_updates(match_id: int, updates: dict[int | None, dict[str, Any]]) -> None:
    """Send one committed change (each viewer's ``update`` frame) to the match group, or
    leave it to :func:`call_then_send` when called inside one."""
    first = next(iter(updates.values()))
    message = {
        "type": UPDATE_EVENT,
        "from": first["from"],
        "v": first["v"],
        "texts": {audience(viewer): encode_frame(frame) for viewer, frame in updates.items()},
    }
    outbox = _outbox.get()
    if outbox is not None:
        outbox.append((match_group(match_id), message))
        return
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(match_group(match_id), message)


async def call_then_send(function: Callable[..., T], *, match_id: int, **kwargs: Any) -> T:
    """Run a blocking service call on match ``match_id`` off the event loop (in the match's
    move process, or a move thread: :mod:`.movers`), then queue the updates its commits
    produced on the match's send queue.

    This process's calls on one match run one at a time, in the order they came, and the
    queue sends their updates in that order, so that match's updates leave in commit
    order; calls on different matches run side by side. Returns once the call is done,
    without waiting for the send.
    """
    async with _match_lock(match_id):
        outcome = await _off_loop(function, match_id=match_id, **kwargs)
        if outcome.outbox:
            _queue_send(match_id, outcome.outbox)
        if outcome.error is not None:
            raise outcome.error
        return cast(T, outcome.result)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a call off the loop left: its result or exception, and the updates it sent."""

    result: Any
    error: Exception | None
    outbox: Outbox


def _collecting(function: Callable[..., Any], kwargs: dict[str, Any]) -> _Outcome:
    """Call ``function(**kwargs)``, keeping the updates it sends (:func:`send_updates`)
    instead of sending them. Updates of commits made before an exception are kept too."""
    outbox: Outbox = []
    token = _outbox.set(outbox)
    try:
        return _Outcome(function(**kwargs), None, outbox)
    except Exception as exc:
        return _Outcome(None, exc, outbox)
    finally:
        _outbox.reset(token)


def _collecting_in_mover(function: Callable[..., Any], kwargs: dict[str, Any]) -> _Outcome:
    """:func:`_collecting` in a move process, with Django's per-request connection rules
    around it (``DatabaseSyncToAsync`` applies them in a move thread). An unexpected error
    is logged here, where its traceback is: only the exception crosses back."""
    close_old_connections()
    try:
        outcome = _collecting(function, kwargs)
    finally:
        close_old_connections()
    if outcome.error is not None and not isinstance(outcome.error,
                                                    (MatchError, DatabaseError)):
        logger.error("%s failed in a move process", getattr(function, "__name__", function),
                     exc_info=outcome.error)
    return outcome


def _queue_send(match_id: int, outbox: Outbox) -> None:
    """Append ``outbox`` to the match's send queue, starting its drainer if idle."""
    loop = asyncio.get_running_loop()
    queues = _send_queues.setdefault(loop, {})
    queue = queues.get(match_id)
    if queue is None:
        queue = queues[match_id] = deque()
        drainer = loop.create_task(_drain(match_id, queue, queues))
        _drainers.add(drainer)
        drainer.add_done_callback(_drainers.discard)
    if len(queue) >= MAX_QUEUED_SENDS:
        logger.warning("match %s: send queue full, update v%s not sent",
                       match_id, outbox[0][1].get("v"))
        return
    queue.append(outbox)


async def _drain(match_id: int, queue: deque[Outbox], queues: dict[int, deque[Outbox]]) -> None:
    """Send the queued updates of one match in order, until its queue is empty."""
    try:
        while queue:
            try:
                await _send_all(queue[0])
            except Exception:
                logger.exception("match %s: update v%s not sent", match_id, queue[0][0][1].get("v"))
            queue.popleft()
    finally:
        # Nothing else runs between the empty check and here (one event loop thread), so
        # no update can have been queued on a queue that is being dropped.
        queues.pop(match_id, None)


async def call_in_order(function: Callable[..., T], *, match_id: int, **kwargs: Any) -> T:
    """Run a blocking read of match ``match_id`` (a snapshot, a catch-up) where its moves
    run, between them: the cached round is never read while a move is changing it, and a
    read in the match's move process finds that process's warm cache."""
    async with _match_lock(match_id):
        outcome = await _off_loop(function, match_id=match_id, **kwargs)
        if outcome.error is not None:
            raise outcome.error
        return cast(T, outcome.result)


def _match_lock(match_id: int) -> asyncio.Lock:
    locks = _match_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    lock = locks.get(match_id)
    if lock is None:
        lock = locks[match_id] = asyncio.Lock()
    return lock


async def _off_loop(function: Callable[..., Any], *, match_id: int,
                    **kwargs: Any) -> _Outcome:
    """Call ``function`` in the match's move process (or a move thread) and wait for it to
    finish, even when the caller is cancelled (a closing connection): the call runs on
    regardless, and the match's lock must not pass to the next call, nor its commits go
    unsent, before it is done."""
    kwargs["match_id"] = match_id
    if movers.enabled():
        call = movers.run(match_id, _collecting_in_mover, function, kwargs)
    else:
        call = DatabaseSyncToAsync(_collecting, thread_sensitive=False,
                                   executor=_move_pool)(function, kwargs)
    work = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await work
        raise


async def _send_all(outbox: Outbox) -> None:
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    for group, message in outbox:
        try:
            # A Redis that hangs instead of refusing must not hold this match's next move.
            await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)
        except (RedisError, OSError, TimeoutError):
            logger.warning("%s: update v%s not sent (Redis unreachable)", group, message.get("v"))


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS must be configured"
    async_to_sync(layer.group_send)(
        room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id}
    )
