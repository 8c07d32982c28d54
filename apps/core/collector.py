"""Garbage-collector tuning for long-lived server processes (daphne, its move processes)."""

import gc
from typing import Any

COLLECT_EVERY = 400
"""Connections (requests and sockets) that end between two full collections in daphne."""


def collector_tune() -> None:
    """Freeze what is loaded now and collect the young generation less often.

    Call once the application is loaded. What is loaded by then (Django, the apps, the
    rules package) lives as long as the process; frozen out of the cyclic collector's
    reach, it is no longer walked by every full collection: under load those came every
    half minute or so and paused the event loop for 90-170 ms, about half of it spent on
    these objects (docs/benchmarks.md).

    A move builds thousands of short-lived containers (five observations and their
    frames). With the default first threshold (700) young collections ran mid-move and
    promoted the move's live temporaries, whose growth then triggered a full collection
    every 15-20 s at 100 tables (80-110 ms pauses). Collecting the young generation every
    20,000 net allocations lets them die young; full collections become rare and young
    ones stay short.
    """
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


class CollectAfterConnections:
    """ASGI middleware: a full collection each time :data:`COLLECT_EVERY` more connections
    have ended.

    A closed WebSocket leaves about a hundred objects in reference cycles (daphne's
    protocol and HTTP channel, Twisted's transport, their Deferreds), an aborted request
    its traceback's frames. They lived as long as their connection, so they have reached
    the oldest generation, which only a full collection frees; with the thresholds of
    :func:`collector_tune` full collections are rare, and the memory the garbage held
    until the next one stayed with the process. Collecting after a few hundred
    connections keeps that garbage, and each collection's pause, small.
    """

    def __init__(self, inner: Any, *, every: int = COLLECT_EVERY) -> None:
        self.inner = inner
        self.every = every
        self.ended = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        try:
            return await self.inner(scope, receive, send)
        finally:
            self.ended += 1
            if self.ended % self.every == 0:
                gc.collect()
