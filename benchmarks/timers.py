"""How late a match's timers act: the end of a claim pause, each match's own timer against
the once-a-second sweep alone (the reference, in the same run). Puts its section in
``docs/benchmarks.md`` with ``--write-docs``.

    .venv/bin/python -m benchmarks.timers --write-docs

Builds ``--tables`` started 都匀 tables with ``claim_pause_ms`` on a fresh PostgreSQL
database (``bench_timers``) and Redis database 8, starts one Celery worker with its beat
(the sweep, every second; two worker processes, as in production), and plays in this
process: a random discard at each table whose turn it is, and a pass for every seat that
could claim it. With the pause on, every discard holds its window (H4), which only a timer
ends. Half the tables send their match's timer
as every change does (:mod:`apps.matches.timers`); at the other half it is not sent, so
only the sweep ends their pauses, as before timers existed. A window's lateness is the
moment of its first public log entry after the discard (the next seat's draw, written by
the worker) minus the moment the pause ended (:func:`apps.matches.pacing.hold_until`), both
from the server's clock. About a minute on a 2-core machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from typing import Any
from unittest import mock

from .load.processes import ROOT, start_worker
from .load.run import prepare

BEGIN, END = "<!-- timer-lateness:begin -->", "<!-- timer-lateness:end -->"
MODES = ("timer", "sweep")
POLL_SECONDS = 0.02
"""Pause between rounds over the tables, so this process leaves the worker its CPU (the
lateness is read from the log, not from when this process notices it)."""


def main(argv: list[str] | None = None) -> None:  # noqa: PLR0915 (one linear script)
    """Build the tables, start the worker, play until enough windows closed, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url",
                        default="postgres://postgres@127.0.0.1:5432/bench_timers",
                        help="dropped and re-created: its name must start with 'bench'")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--windows", type=int, default=300, help="closed windows per mode")
    parser.add_argument("--pause-ms", type=int, default=300)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    env = prepare(args.database_url, args.redis_url)

    from apps.matches import pacing, services, timers  # noqa: PLC0415  (needs Django set up)
    from apps.matches.frames import view_version  # noqa: PLC0415
    from apps.matches.models import Match, MatchEvent  # noqa: PLC0415
    from majiang import get_variant  # noqa: PLC0415
    from tests.security.helpers import build_table  # noqa: PLC0415
    from tests.support.rounds import round_now  # noqa: PLC0415

    hands = max(get_variant("duyun").schema["hands_per_match"].choices)
    tables = [build_table("duyun", claim_pause_ms=args.pause_ms, hands_per_match=hands)
              for _ in range(args.tables)]
    mode_of = {t.match.pk: MODES[i % 2] for i, t in enumerate(tables)}
    send = timers.timer_set

    def timer_set(match_id: int, due: datetime) -> None:
        if mode_of.get(match_id) == "timer":
            send(match_id, due)

    rng = random.Random(1)
    late: dict[str, list[float]] = {mode: [] for mode in MODES}
    # Per table: the discard's log entry and when its pause ended, while its window is held.
    open_windows: dict[int, tuple[int, datetime]] = {}

    def act(match: Any, seat: int, payload: dict[str, Any]) -> None:
        user = match.players.get(seat=seat).user_id
        services.match_act(match_id=match.pk, user_id=user,
                           payload={**payload, "v": view_version(match.views, seat)})

    def step(table: Any) -> None:
        match = Match.objects.get(pk=table.match.pk)
        if match.status != Match.Status.PLAYING:
            return
        if match.pk in open_windows:
            seq, ended = open_windows[match.pk]
            opened = MatchEvent.objects.get(match=match, seq=seq).views[-1]
            release = (MatchEvent.objects.filter(match=match, seq__gt=seq)
                       .order_by("seq").values_list("created_at", "views"))
            public = next((at for at, views in release if views[-1] > opened), None)
            if public is None:
                return  # still held
            late[mode_of[match.pk]].append((public - ended).total_seconds())
            del open_windows[match.pk]
            match.refresh_from_db()
        if match.stage != Match.Stage.HAND:
            for seat in range(4):
                if seat not in match.ready_seats:
                    act(match, seat, {"type": "ready_next"})
                    match.refresh_from_db()
            return
        rnd = round_now(match)
        if rnd.window is not None:  # every seat that could claim passes, within the pause
            for seat in rnd.pending():
                act(match, seat, {"type": "pass"})
                match.refresh_from_db()
            return
        for seat in rnd.pending():
            legal = [a.to_json() for a in rnd.legal_actions(seat)]
            move = rng.choice([a for a in legal if a["type"] == "discard"])
            move.pop("seat", None)
            act(match, seat, move)
            match.refresh_from_db()
            held = round_now(match)
            ended = pacing.hold_until(match, held)
            if ended is not None:
                open_windows[match.pk] = (match.version, ended)
            for other in held.pending():  # at once, well within the pause
                act(match, other, {"type": "pass"})
                match.refresh_from_db()

    logs = ROOT / "var" / "bench-timers" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    worker = start_worker("worker0", env, logs)
    started = time.monotonic()
    try:
        with mock.patch.object(timers, "timer_set", timer_set):
            while min(len(v) for v in late.values()) < args.windows:
                for table in tables:
                    step(table)
                time.sleep(POLL_SECONDS)
    finally:
        worker.stop()
    text = markdown(late, args, time.monotonic() - started)
    print(text)
    if args.write_docs:
        from .load import report  # noqa: PLC0415  (needs Django set up)

        report.write(ROOT / "docs" / "benchmarks.md", text, begin=BEGIN, end=END)
        print("wrote docs/benchmarks.md", file=sys.stderr)


def markdown(late: dict[str, list[float]], args: argparse.Namespace, seconds: float) -> str:
    """The section: lateness per mode in milliseconds, and each median against the sweep's."""
    def ms(values: list[float], q: int | None = None) -> float:
        if q is None:
            return statistics.median(values) * 1000
        return statistics.quantiles(values, n=100)[q - 1] * 1000

    reference = ms(late["sweep"])
    rows = [
        f"| {label} | {len(late[mode])} | {ms(late[mode]):.0f} | "
        f"{ms(late[mode]) / reference:.2f} | {ms(late[mode], 95):.0f} | "
        f"{max(late[mode]) * 1000:.0f} |"
        for mode, label in (("timer", "the match's timer (this tree)"),
                            ("sweep", "the sweep alone (reference)"))
    ]
    return "\n".join([
        BEGIN,
        "## How late a pause ends",
        "",
        f"`.venv/bin/python -m benchmarks.timers` ({datetime.now(UTC).date().isoformat()}, "
        f"{seconds:.0f} s): {args.tables} 都匀 tables with a {args.pause_ms} ms claim pause, "
        "one Celery worker (2 processes) with its beat sweeping every second; this process "
        "discards at once and passes every seat that could claim. Lateness: the window's "
        "next public log entry minus the moment its pause ended, from the server's clock.",
        "",
        "| timers | windows | median ms | ×sweep | p95 ms | max ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        END,
    ])


if __name__ == "__main__":
    main()
