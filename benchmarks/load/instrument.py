"""Server-side counters of the benchmark's daphne processes, read over HTTP.

- Accepted and refused client messages (calls of :func:`apps.matches.services.match_act`).
- SQL statements issued by Django while handling each accepted message (a
  ``connection.execute_wrapper`` on every connection), as a histogram; statements outside
  ``match_act`` (logins, connects, snapshots) are counted separately.
- Connection health check pings (``CONN_HEALTH_CHECKS``' ``SELECT 1``, which bypasses execute
  wrappers; ``apps.core.postgresql`` pings only a connection whose socket is readable).
- Garbage-collector pauses: full (generation 2) collections, total pause time, and the
  longest pause since the previous read (a stop-the-world pause delays every move in
  flight, so it shows in the latency tail).
- Slow moves: accepted messages whose ``match_act`` took more than :data:`SLOW_MOVE_MS` of
  wall time, and how many of those spent most of it waiting for the database (from
  statement sent to result read), so that a latency tail can be told apart: the database
  (a commit that waited for the disk), the move's own work, or neither (the delay was
  outside the move: a busy event loop, a queue, the bots).

``GET /__bench__/stats`` returns them as JSON. Only :mod:`benchmarks.load.asgi` installs
this; the platform's own ASGI application has neither the counters nor the endpoint.
"""

from __future__ import annotations

import functools
import gc
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

from apps.matches import consumers, movers, services
from apps.matches.protocol import MatchError

from . import trace

STATS_PATH = "/__bench__/stats"
SLOW_MOVE_MS = 50.0
"""A move slower than this (wall time of ``match_act``) is counted as slow."""

_lock = threading.Lock()
_local = threading.local()
_stats: dict[str, Any] = {
    "accepted": 0,
    "refused": 0,
    "statements_per_accepted": Counter(),
    "statements_other": 0,
    "health_checks": 0,
    "gc_full": 0,
    "gc_ms": 0.0,
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
        _stats["gc_ms"] += ms
        _stats["gc_max_ms"] = max(_stats["gc_max_ms"], ms)
        if info["generation"] == 2:
            _stats["gc_full"] += 1


def _count_statement(execute: Callable[..., Any], sql: str, params: Any, many: bool,
                     context: dict[str, Any]) -> Any:
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
    # Named like the original: with move processes it is pickled by that name, and each
    # move process resolves the name to its own counted version (install_in_mover).
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


def _counted_is_usable(original: Callable[[BaseDatabaseWrapper], bool]) -> Callable[..., bool]:
    def is_usable(self: BaseDatabaseWrapper) -> bool:
        with _lock:
            _stats["health_checks"] += 1
        return original(self)

    return is_usable


def install(*, unlimited_rate: bool) -> None:
    """Start counting (and tracing, :mod:`.trace`) in this daphne process;
    ``unlimited_rate`` lifts the per-connection limit.

    The table endpoint allows each connection 10 messages/s (burst 40); a saturating bot
    plays faster than that, so saturation runs lift it to measure capacity, not policy.
    """
    _install_counters()
    trace.install(mover=False)
    if unlimited_rate:
        consumers.TableConsumer.messages_per_second = 1e9
        consumers.TableConsumer.message_burst = 1e9


def install_in_mover() -> None:
    """Start counting (and tracing, :mod:`.trace`) in a move process
    (``MOVE_PROCESS_SETUP``)."""
    _install_counters()
    trace.install(mover=True)


def _install_counters() -> None:
    """Count statements, health checks and collector pauses in this process."""
    from django.db.backends.postgresql.base import DatabaseWrapper  # noqa: PLC0415

    connection_created.connect(_wrap_connection, dispatch_uid="bench.count_statements")
    services.match_act = _counted_match_act(services.match_act)
    DatabaseWrapper.is_usable = _counted_is_usable(DatabaseWrapper.is_usable)
    gc.callbacks.append(_time_gc)


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


def _merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Counters of several processes as one: sums, the histogram added up, the longest
    pause."""
    out: dict[str, Any] = dict(parts[0])
    histogram: Counter[str] = Counter(out["statements_per_accepted"])
    for part in parts[1:]:
        for key in ("accepted", "refused", "statements_other", "health_checks", "gc_full",
                    "gc_ms", "slow_moves", "slow_moves_db"):
            out[key] += part[key]
        out["gc_max_ms"] = max(out["gc_max_ms"], part["gc_max_ms"])
        histogram.update(part["statements_per_accepted"])
    out["statements_per_accepted"] = {
        k: histogram[k] for k in sorted(histogram, key=int)
    }
    return out


async def stats_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI endpoint answering ``GET`` with the counters of this daphne process and its
    move processes (:func:`snapshot` in each), merged, as JSON."""
    parts = [snapshot()]
    if movers.enabled():
        parts += await movers.run_everywhere(snapshot)
    body = json.dumps(_merged(parts)).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
