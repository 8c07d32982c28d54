"""What the usual fire of a match's decision timer costs: early, the players having acted.

    .venv/bin/python -m benchmarks.timer_fire [--tables 20] [--repeats 7]

A table whose players act in time keeps one live timer per turn length: it fires at the
deadline it was armed for, finds the players acted since, and re-arms for the new deadline
(:func:`apps.matches.services.match_timeout_fire`). At a real club's pace (a move every few
seconds, 15-second turns) that is one fire per table every 15 s, beside 3-5 moves: the
worker's share of the database's writes.

Builds ``--tables`` started tables on a fresh PostgreSQL database (``bench_timer``), then,
``--repeats`` times, makes every table's live timer one that is due now and fires it,
in-process, with its ``on_commit`` timer publish (Celery's ``send_task`` to a queue no
worker reads). Measured per fire, the median over the runs of each run's mean: CPU and wall
time, the SQL statements sent, and how many of them ran while the fire held the match row's
lock. The reference, in the same process and run, is one ``SELECT 1`` round trip.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from .load.run import prepare

DATABASE = "postgres://postgres@127.0.0.1:5432/bench_timer?conn_max_age=600"
REDIS = "redis://127.0.0.1:6379/8"


def _timed(calls: list[Callable[[], Any]]) -> tuple[float, float]:
    """CPU and wall microseconds per call, over ``calls``."""
    cpu, wall = time.process_time(), time.perf_counter()
    for call in calls:
        call()
    return (1e6 * (time.process_time() - cpu) / len(calls),
            1e6 * (time.perf_counter() - wall) / len(calls))


def main() -> None:
    """Parse arguments, build the tables, fire their timers, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--database-url", default=DATABASE)
    parser.add_argument("--redis-url", default=REDIS)
    args = parser.parse_args()

    prepare(args.database_url, args.redis_url, MOVE_PROCESSES="0")  # fires in this process
    from tests.security.helpers import build_table  # noqa: PLC0415

    match_ids = [build_table("duyun" if i % 2 else "zigong").match.pk
                 for i in range(args.tables)]
    runs = measure(match_ids, args.repeats)
    print(f"{args.tables} tables, {args.repeats} runs (medians of the runs' means)")
    print(report(runs, len(match_ids)))


class Runs(NamedTuple):
    """Each measured run's figures."""

    fires: list[tuple[float, float]]
    """CPU and wall µs per early fire."""
    references: list[tuple[float, float]]
    """CPU and wall µs per ``SELECT 1``."""
    statements: list[list[str]]
    """The SQL the fires sent."""


def measure(match_ids: list[int], repeats: int) -> Runs:
    """Fire every match's timer early, ``repeats`` times after a warm-up run."""
    from django.db import connection  # noqa: PLC0415
    from django.utils import timezone  # noqa: PLC0415

    from apps.matches import services  # noqa: PLC0415
    from apps.matches.change import timer_token  # noqa: PLC0415
    from apps.matches.models import Match  # noqa: PLC0415

    sent: list[str] = []

    def count(run: Any, sql: str, *rest: Any) -> Any:
        sent.append(sql)
        return run(sql, *rest)

    def fired_early(match_id: int) -> Callable[[], Any]:
        """Make the match's live timer one due now (its deadline is later), and return
        its fire."""
        due = timezone.now().replace(microsecond=0)
        Match.objects.filter(pk=match_id).update(timer_due=due)
        token = timer_token(due)

        def fire() -> None:
            if services.match_timeout_fire(match_id=match_id, token=token):
                raise SystemExit(f"match {match_id}: a fire before the deadline acted")
        return fire

    def select_one() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    runs = Runs([], [], [])
    for repeat in range(repeats + 1):  # the first run warms up
        calls = [fired_early(match_id) for match_id in match_ids]
        sent.clear()
        with connection.execute_wrapper(count):
            fire = _timed(calls)
        batch = list(sent)
        reference = _timed([select_one] * len(match_ids))
        if repeat:
            runs.fires.append(fire)
            runs.references.append(reference)
            runs.statements.append(batch)
    for match_id in match_ids:
        stored = Match.objects.get(pk=match_id)
        assert stored.timer_due is not None and stored.timer_due > timezone.now(), \
            "a fire did not re-arm"
    return runs


def report(runs: Runs, tables: int) -> str:
    """The figures as a Markdown table."""
    per_fire = [len(batch) / tables for batch in runs.statements]
    locked = [sum("FOR UPDATE" in sql for sql in batch) / tables for batch in runs.statements]
    fire_cpu = statistics.median(cpu for cpu, _ in runs.fires)
    fire_wall = statistics.median(wall for _, wall in runs.fires)
    ref_cpu = statistics.median(cpu for cpu, _ in runs.references)
    ref_wall = statistics.median(wall for _, wall in runs.references)
    fire_runs = ", ".join(f"{cpu:.0f}" for cpu, _ in runs.fires)
    ref_runs = ", ".join(f"{cpu:.0f}" for cpu, _ in runs.references)
    return "\n".join([
        "| kind | CPU µs, median (runs) | wall µs, median | CPU ÷ reference "
        "| SQL statements | row locks taken |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| early fire | {fire_cpu:.0f} ({fire_runs}) | {fire_wall:.0f} | "
        f"{fire_cpu / ref_cpu:.1f}× | {statistics.median(per_fire):g} "
        f"| {statistics.median(locked):g} |",
        f"| reference: `SELECT 1` | {ref_cpu:.0f} ({ref_runs}) | {ref_wall:.0f} | 1.0× "
        "| 1 | 0 |",
    ])


if __name__ == "__main__":
    main()
