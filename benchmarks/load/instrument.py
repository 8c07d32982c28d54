"""Server-side counters of the benchmark's daphne processes, read over HTTP.

- Accepted and refused client messages (calls of :func:`apps.matches.services.match_act`).
- SQL statements Django sends while handling each accepted message (a
  ``connection.execute_wrapper`` on every connection; a connection taken from psycopg's pool
  sends ``connection_created`` each time, and the wrapper is added once), as a histogram.
  Transaction control is not counted: BEGIN and COMMIT never pass through an execute wrapper
  (psycopg opens the transaction itself, Django commits on the connection), and savepoint
  statements, which do, are skipped. Statements outside ``match_act`` (logins, connects,
  snapshots) are counted apart.
- Garbage-collector pauses: full (generation 2) collections, and the longest pause since
  the previous read (a stop-the-world pause delays every move in flight).
- Slow moves: accepted messages whose ``match_act`` took more than :data:`SLOW_MOVE_MS` of
  wall time, and how many of those spent most of it waiting for the database, so that a
  latency tail can be told apart: the database, the move's own work, or neither (the delay
  was outside the move: a busy event loop, the thread pool, the bots).

``GET /__bench__/stats`` returns them as JSON; ``GET /__bench__/gc`` runs a full garbage
collection in the process and returns what it collected and the process's resident memory
after it (the memory scenario). Only :mod:`benchmarks.load.asgi` installs this; the
platform's own ASGI application has neither the counters nor the endpoints.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

from apps.matches import consumers, services, socket_limits
from apps.matches.protocol import MatchError

STATS_PATH = "/__bench__/stats"
GC_PATH = "/__bench__/gc"
SLOW_MOVE_MS = 50.0
"""A move slower than this (wall time of ``match_act``) is counted as slow."""
TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT")
"""Statements that are not counted (savepoints are the only ones a wrapper sees)."""

_lock = threading.Lock()
_local = threading.local()
_stats: dict[str, Any] = {
    "accepted": 0,
    "refused": 0,
    "statements_per_accepted": Counter(),
    "statements_other": 0,
    "gc_full": 0,
    "gc_max_ms": 0.0,
    "slow_moves": 0,
    "slow_moves_db": 0,
}
_gc_started = [0.0]


def _time_gc(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
        return
    ms = (time.perf_counter() - _gc_started[0]) * 1000
    with _lock:
        _stats["gc_max_ms"] = max(_stats["gc_max_ms"], ms)
        _stats["gc_full"] += info["generation"] == 2


def _count_statement(execute: Callable[..., Any], sql: str, params: Any, many: bool,
                     context: dict[str, Any]) -> Any:
    if sql.lstrip().upper().startswith(TRANSACTION_CONTROL):
        return execute(sql, params, many, context)
    if getattr(_local, "statements", None) is None:
        with _lock:
            _stats["statements_other"] += 1
        return execute(sql, params, many, context)
    _local.statements += 1
    started = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        _local.sql_seconds += time.perf_counter() - started


def _wrap_connection(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    if _count_statement not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count_statement)


def _counted_match_act(original: Callable[..., int]) -> Callable[..., int]:
    @functools.wraps(original)
    def match_act(**kwargs: Any) -> int:
        _local.statements, _local.sql_seconds = 0, 0.0
        started = time.perf_counter()
        try:
            version = original(**kwargs)
        except MatchError:
            with _lock:
                _stats["refused"] += 1
                _stats["statements_other"] += _local.statements
            raise
        finally:
            statements, _local.statements = _local.statements, None
        wall = time.perf_counter() - started
        with _lock:
            _stats["accepted"] += 1
            _stats["statements_per_accepted"][statements] += 1
            if wall * 1000 > SLOW_MOVE_MS:
                _stats["slow_moves"] += 1
                _stats["slow_moves_db"] += _local.sql_seconds > wall / 2
        return version

    return match_act


def install(*, unlimited_rate: bool, unlimited_sockets: bool = False) -> None:
    """Start counting in this daphne process; ``unlimited_rate`` lifts the per-connection
    limit, ``unlimited_sockets`` the limit of table connections per account and address
    (the reference of ``benchmarks.abuse``).

    The table endpoint allows each connection 10 messages/s (burst 40); a saturating bot
    plays faster than that, so saturation runs lift it to measure capacity, not policy.
    """
    connection_created.connect(_wrap_connection, dispatch_uid="bench.count_statements")
    services.match_act = _counted_match_act(services.match_act)
    gc.callbacks.append(_time_gc)
    if unlimited_rate:
        consumers.TableConsumer.messages_per_second = 1e9
        consumers.TableConsumer.message_burst = 1e9
    if unlimited_sockets:
        socket_limits.SOCKETS_PER_USER = socket_limits.SOCKETS_PER_ADDRESS = 10**9


def snapshot() -> dict[str, Any]:
    """The counters so far (the histogram keyed by statement count, as strings); the
    longest GC pause is that since the previous snapshot."""
    with _lock:
        out = dict(_stats)
        _stats["gc_max_ms"] = 0.0
        out["statements_per_accepted"] = {
            str(k): v for k, v in sorted(_stats["statements_per_accepted"].items())
        }
    return out


def collect() -> dict[str, Any]:
    """Run a full garbage collection; what it found unreachable and the resident memory
    (bytes, from ``/proc/self/statm``) after it."""
    collected = gc.collect()
    resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
    return {"collected": collected, "rss": resident_pages * os.sysconf("SC_PAGE_SIZE")}


async def stats_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI endpoint answering ``GET`` with this process's counters as JSON (or, at
    :data:`GC_PATH`, with what a full garbage collection freed)."""
    body = json.dumps(collect() if scope["path"] == GC_PATH else snapshot()).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
