"""Where one action's time goes: a timestamp at each step, across the processes.

    .venv/bin/python -m benchmarks.load.trace [--duration 8]

Plays one table at full speed on one daphne with ``BENCH_TRACE`` set (at more tables the
moves of different tables overlap, and none would count). Every server process then
stamps the steps of each move with ``time.monotonic()``, which all processes of the
machine share, into a file of its own (:func:`install`):

- daphne: a client message received, handed to the move process, the update received
  from Redis, the seat's frame sent, the move's result back;
- the move process: ``match_act`` started, rules applied (the frames start), the frames
  built, the conditional write sent and committed, the publish started and answered,
  ``match_act`` done.

The bots' own log gives when each message was sent and confirmed. :func:`chains` keeps the
actions that nothing overlapped (no other message in flight from this one's send to its
confirmation) and :func:`main` prints the median time of each step after the send. Tracing slows
the path by about a tenth (a write per stamp); its use is the shape, not the rate.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import os
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

from .processes import ROOT, Servers

TRACE_ENV = "BENCH_TRACE"
"""The environment variable holding the path prefix of the trace files (unset: no trace)."""

STEPS = (
    ("sent", "the bot sends its message"),
    ("received", "daphne receives it"),
    ("handed", "daphne hands it to the move process"),
    ("started", "the move process starts match_act"),
    ("frames", "rules applied; the frames start"),
    ("framed", "five frames built"),
    ("write", "the conditional write is sent"),
    ("committed", "committed"),
    ("publish", "the publish starts"),
    ("published", "Redis answered the publish"),
    ("done", "match_act returns"),
    ("update", "daphne has the update"),
    ("relayed", "the last seat's frame is sent"),
    ("answered", "daphne has the move's result"),
    ("confirmed", "the bot has the frame that confirms it"),
)
"""The steps of one move, in the order they usually come, with what each means."""
REQUIRED = {step for step, _ in STEPS} - {"sent", "confirmed", "answered"}
"""The servers' steps an action must show to count. The result's way back to daphne is not
on the player's path and may come after the confirmation."""

_out: list[TextIO] = []


def _stamp(step: str) -> None:
    _out[0].write(f"{time.monotonic():.6f} {step}\n")


def _around(function: Callable[..., Any], before: str, after: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def traced(*args: Any, **kwargs: Any) -> Any:
        _stamp(before)
        try:
            return function(*args, **kwargs)
        finally:
            _stamp(after)

    return traced


def _around_async(function: Callable[..., Awaitable[Any]], before: str,
                  after: str | None) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(function)
    async def traced(*args: Any, **kwargs: Any) -> Any:
        _stamp(before)
        try:
            return await function(*args, **kwargs)
        finally:
            if after is not None:
                _stamp(after)

    return traced


def install(*, mover: bool) -> None:
    """Stamp this process's steps if ``BENCH_TRACE`` is set: a move process's with
    ``mover``, else a daphne process's. Call after the counters are installed."""
    prefix = os.environ.get(TRACE_ENV)
    if not prefix or _out:
        return
    from apps.matches import broadcast, consumers, frames, rows, services  # noqa: PLC0415

    _out.append(Path(f"{prefix}.{os.getpid()}").open("a", buffering=1))  # noqa: SIM115
    if mover:
        services.match_act = _around(services.match_act, "started", "done")
        frames.updates_for = _around(frames.updates_for, "frames", "framed")
        rows.change_write_if = _around(rows.change_write_if, "write", "committed")
        broadcast.group_publish = _around(  # type: ignore[attr-defined]
            broadcast.group_publish, "publish", "published")  # type: ignore[attr-defined]
        return
    table = consumers.TableConsumer
    # Patched in place, like the counters (:mod:`.instrument`): the types do not follow.
    table.websocket_receive = _around_async(  # type: ignore[method-assign,assignment]
        table.websocket_receive, "received", None)
    table.table_update = _around_async(  # type: ignore[method-assign,assignment]
        table.table_update, "update", "relayed")
    broadcast.call_in_order = _around_async(  # type: ignore[assignment]
        broadcast.call_in_order, "handed", "answered")


def chains(paths: list[Path], sends: list[tuple[float, float]]) -> dict[str, list[float]]:
    """Seconds after the send of each step, over the actions that nothing overlapped.

    ``sends`` are the bots' ``(sent at, seconds to confirmation)``. An action counts when no
    other message was in flight at any moment from its send to its confirmation, and every
    step of :data:`REQUIRED` was stamped once in between (``update`` and ``relayed`` once
    per seat: the first update and the last relay count). ``answered`` counts when it came
    before the confirmation.
    """
    stamps: list[tuple[float, str]] = []
    for path in paths:
        for line in path.read_text().splitlines():
            moment, step = line.split()
            stamps.append((float(moment), step))
    stamps.sort()
    times = [at for at, _ in stamps]
    flights = sorted((sent, sent + seconds) for sent, seconds in sends)
    out: dict[str, list[float]] = {step: [] for step, _ in STEPS}
    latest_end = float("-inf")
    for i, (sent, confirmed) in enumerate(flights):
        alone = latest_end <= sent and (i + 1 == len(flights) or flights[i + 1][0] >= confirmed)
        latest_end = max(latest_end, confirmed)
        if not alone:
            continue
        seen = _steps_between(stamps[bisect.bisect_left(times, sent):
                                     bisect.bisect_right(times, confirmed)])
        if seen is None or not seen.keys() >= REQUIRED:
            continue
        seen |= {"sent": sent, "confirmed": confirmed}
        for name, at in seen.items():
            out[name].append(at - sent)
    return out


def _steps_between(stamps: list[tuple[float, str]]) -> dict[str, float] | None:
    """Each step's moment among one action's stamps, or ``None`` if a step came twice (not
    counting the per-seat ``update`` and ``relayed``)."""
    seen: dict[str, float] = {}
    for at, step in stamps:
        if step == "relayed" or step not in seen:
            seen[step] = at
        elif step != "update":
            return None
    return seen


def main(argv: list[str] | None = None) -> None:
    """Run the traced game and print the median of each step."""
    from .run import DEFAULT_DATABASE, DEFAULT_REDIS, prepare  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=8.0, help="measured seconds")
    args = parser.parse_args(argv)

    run_dir = ROOT / "var" / "bench-load" / f"trace-{uuid.uuid4().hex[:8]}"
    run_dir.mkdir(parents=True)
    env = prepare(DEFAULT_DATABASE, DEFAULT_REDIS, **{TRACE_ENV: str(run_dir / "stamps")})
    from . import scenario, tables  # noqa: PLC0415  (needs Django set up)

    servers = Servers.start(1, env, run_dir)
    try:
        result, bench, players = scenario.game(
            servers, 1, think=0.0, warmup=2.0, duration=args.duration,
            play_on=True, hands_per_match=16,
        )
        tables.tables_abandon(bench)
    finally:
        servers.stop()
    sends = [lat for bot in players for lat in bot.log.latencies]
    steps = chains(sorted(run_dir.glob("stamps.*")), sends)
    print(f"one table, {result.per_second:.0f} actions/s traced; "
          f"{len(steps['sent'])} actions that nothing overlapped; median ms after the send:")
    for step, meaning in STEPS:
        if steps[step]:
            print(f"  {statistics.median(steps[step]) * 1000:7.3f}  {meaning}")


if __name__ == "__main__":
    main()
