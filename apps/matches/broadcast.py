"""Channel-layer groups of a table, sending committed updates to them, and running a
connection's blocking calls on a match one at a time.

Every connection following a match joins its group (``match_<id>``), and everyone at a
room's table page joins ``table_<room id>`` to hear that a match has started there (and the
room's 再来一场 prompt); a seated player's connection also joins ``seat_<room id>_<user id>``,
where a newer tab of the same player replaces it.

A committed change is one message to the match group: per audience (each seat, and
spectators), the range of that audience's own versions it spans and its frame already
encoded as JSON. Each connection
forwards only its own audience's text (``TableConsumer.table_update``), so a client never
receives another seat's frame, while the change costs one publish and no encoding on the
event loop. It is sent from ``transaction.on_commit`` with the channel layer's own
``group_send``. The layer is Redis pub/sub, so a send is at most once: a lost one is caught
up from the log by the connections' version check.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async

from apps.core.groups import group_send, group_sends_to_this_loop

from .protocol import encode_frame

UPDATE_EVENT = "table.update"
MATCH_STARTED_EVENT = "table.match_started"
PRESENCE_EVENT = "table.presence"
"""Sent by a table connection itself (see ``consumers``) when a seat's presence changes."""
PHRASE_EVENT = "table.phrase"
"""Sent by a table connection when its seat sends a quick phrase (快捷语)."""
REPLACED_EVENT = "table.replaced"
"""Sent by a seated player's new table connection to the player's other ones at that table
(:func:`seat_group`): they are replaced, and close (two tabs on one seat)."""

T = TypeVar("T")
_match_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[int, asyncio.Lock]
] = weakref.WeakKeyDictionary()


def match_group(match_id: int) -> str:
    """The group of every connection (seats and spectators) following a match."""
    return f"match_{match_id}"


def room_group(room_id: int) -> str:
    """The group of everyone connected to a room's table endpoint."""
    return f"table_{room_id}"


def seat_group(room_id: int, user_id: int) -> str:
    """The group of one seated player's connections to a room's table (at most one stays)."""
    return f"seat_{room_id}_{user_id}"


def audience(viewer: int | None) -> str:
    """The key of a viewer's frame in an update message: the seat, or ``watch``."""
    return "watch" if viewer is None else str(viewer)


def send_updates(
    match_id: int, updates: dict[int | None, dict[str, Any]], *,
    spans: dict[int | None, tuple[int, int]],
) -> None:
    """Publish one committed change (each viewer's versions ``spans`` and ``update``
    frame) to the match group. An audience without a frame may see nothing of the change."""
    group_send(match_group(match_id), {
        "type": UPDATE_EVENT,
        "spans": {audience(viewer): list(span) for viewer, span in spans.items()},
        "texts": {audience(viewer): encode_frame(frame) for viewer, frame in updates.items()},
    })


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    group_send(room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id})


async def call_in_order(function: Callable[..., T], *, match_id: int, **kwargs: Any) -> T:
    """Run a blocking service call on match ``match_id`` (a move, a snapshot, a catch-up)
    in a worker thread, one at a time per match in this process and in the order they came.

    The match row decides between processes; this lock only keeps one process's calls on
    a match from queueing on the row lock in several threads at once, and keeps its cached
    state in use by one call at a time. The call runs to its end even if the caller is
    cancelled (a closing connection), and the lock passes on only then.
    """
    group_sends_to_this_loop()  # the call's committed update is sent from this loop
    async with _match_lock(match_id):
        work = asyncio.ensure_future(
            database_sync_to_async(function, thread_sensitive=False)(match_id=match_id, **kwargs)
        )
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await work
            raise


def _match_lock(match_id: int) -> asyncio.Lock:
    locks = _match_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    lock = locks.get(match_id)
    if lock is None:
        lock = locks[match_id] = asyncio.Lock()
    return lock
