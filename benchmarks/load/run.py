"""Run the whole load benchmark and (with ``--write-docs``) put its section in
``docs/benchmarks.md``.

    .venv/bin/python -m benchmarks.load.run --write-docs

First the memory of 100 idle players on a fresh daphne process, and that of another fresh
daphne while 1,000 matches are played to the end in batches of 50 new tables (each of new
players, who leave when their match is over). Then, with one daphne process (and its
Celery worker with beat): bare relay and game alternating at 1, 10 and 100 tables at full
speed; 100 tables at 1 s think; the same with a 300 ms claim pause, the bots answering
each window at once, for how late the pauses' timers end them; and the capacity search:
3 s think at 100, 150, 200, 250, 300, 400 tables, stopping at the first whose p99 misses
100 ms. Then, with two daphne processes (and two workers): at 100 tables, bare relay and
game with rooms routed whole (every seat of a table on one process) and game with every
table split over both. After
each game measurement the unfinished matches are dissolved, so that their timers do not
keep playing them during the next one. Each measurement but the capacity search runs
``--repeats`` times (3), in alternation; the report takes medians. Uses a fresh database
(``--database-url``, default ``bench_load`` on the local PostgreSQL, dropped and
re-created: its name must start with ``bench``, any other is refused) and a Redis database
of its own (``--redis-url``, flushed). With ``--write-docs`` the report replaces the load
section of ``docs/benchmarks.md`` and the capacity statement of ``docs/deploy.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import signal
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import psycopg
import redis

from apps.core.collector import collector_tune

from .processes import ROOT, Servers, server_env

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/bench_load"
DEFAULT_REDIS = "redis://127.0.0.1:6379/9"
TABLE_COUNTS = (1, 10, 100)
THINK_TABLES, THINK_SECONDS = 100, 1.0
CAPACITY_TABLES = (100, 150, 200, 250, 300, 400)
"""Table counts of the capacity search (``report.CAPACITY_THINK`` think time)."""
SCALE_TABLES = 100
PAUSE_MS = 300
"""The claim pause of the timer measurement (the tables of the 1 s think run, every
discard holding its window until its timer fires)."""
IDLE_PLAYERS = 100
MEMORY_MATCHES, MEMORY_BATCH = 1000, 50


def fresh_database(url: str) -> None:
    """Drop and re-create the database of ``url`` (on its server's ``postgres`` db)."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name.startswith("bench"):
        raise SystemExit(f"refusing to drop {name!r}: the benchmark's database must be bench*")
    admin = _libpq(parts._replace(path="/postgres").geturl())
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _libpq(url: str) -> str:
    """``url`` as libpq accepts it: ``postgresql://`` and without Django's options."""
    return urlsplit(url)._replace(scheme="postgresql", query="").geturl()


def setup_django(env: dict[str, str]) -> None:
    """Configure this process's Django like the servers' and migrate the database."""
    os.environ.update(env)
    import django  # noqa: PLC0415
    from django.core.management import call_command  # noqa: PLC0415

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)


def prepare(database: str, redis_url: str, **extra_env: str) -> dict[str, str]:
    """A fresh database and Redis database, the servers' environment (with ``extra_env``),
    and this process's Django configured like theirs; returns that environment."""
    fresh_database(database)
    redis.Redis.from_url(redis_url).flushdb()
    env = server_env(database=database, redis=redis_url,
                     queue=f"bench-{uuid.uuid4().hex[:8]}", unlimited_rate=True)
    env.update(extra_env)
    setup_django(env)
    return env


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run every measurement, print and optionally write the report."""
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        epilog="The database of --database-url is dropped and re-created, so its name must "
               "start with 'bench': any other is refused, to protect real data.")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE,
                        help="PostgreSQL database, dropped and re-created: its name must "
                             "start with 'bench' (any other is refused) (default: %(default)s)")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS,
                        help="a Redis database of the benchmark's own: flushed "
                             "(default: %(default)s)")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="measured seconds (think-time runs: twice this)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds before the window (think-time runs: three times this)")
    parser.add_argument("--tables", type=int, nargs="+", default=list(TABLE_COUNTS),
                        help="table counts at full speed, one daphne")
    parser.add_argument("--think-tables", type=int, default=THINK_TABLES)
    parser.add_argument("--capacity-tables", type=int, nargs="+",
                        default=list(CAPACITY_TABLES))
    parser.add_argument("--scale-tables", type=int, default=SCALE_TABLES,
                        help="table count at full speed, one daphne vs two")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each measurement (the report takes medians)")
    parser.add_argument("--memory-matches", type=int, default=MEMORY_MATCHES,
                        help="matches played to the end on one fresh daphne for its memory "
                             "figure (0: none)")
    parser.add_argument("--memory-batch", type=int, default=MEMORY_BATCH,
                        help="tables (new players) per batch of the memory figure")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    command = shlex.join([".venv/bin/python", "-m", "benchmarks.load.run",
                          *(sys.argv[1:] if argv is None else argv)])
    # A SIGTERM unwinds like Ctrl-C, so the servers started below are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.monotonic()
    env = prepare(args.database_url, args.redis_url)
    from . import report  # noqa: PLC0415  (needs Django set up)

    # The bots' process is tuned like the servers: with the default collector settings its
    # own collections paused every bot at once, and each pause counted as server latency
    # for every message in flight.
    collector_tune()
    results, memory = measure(args, env)
    machine = {
        "date": datetime.now(UTC).date().isoformat(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "cpu": report.cpu_model(),
        "minutes": (time.monotonic() - started) / 60,
        "postgres": scenario_server_version(args.database_url),
        "redis": redis.Redis.from_url(args.redis_url).info()["redis_version"],
        "command": command,
    }
    text = report.markdown(results, memory, machine, args)
    print(text)
    if args.write_docs:
        report.write(ROOT / "docs" / "benchmarks.md", text)
        report.write(ROOT / "docs" / "deploy.md", report.deploy_capacity(results, machine),
                     begin=report.DEPLOY_BEGIN, end=report.DEPLOY_END)
        print("wrote docs/benchmarks.md and the capacity statement of docs/deploy.md",
              file=sys.stderr)


def measure(args: argparse.Namespace, env: dict[str, str]) -> tuple[list[Any], dict[str, int]]:
    """Run every measurement, printing each result; return the results and the memory
    figures."""
    from . import report, scenario, tables  # noqa: PLC0415  (needs Django set up)

    logs = ROOT / "var" / "bench-load" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    results: list[scenario.Result] = []

    def record(result: scenario.Result, repeat: int) -> scenario.Result:
        result.repeat = repeat
        results.append(result)
        print(report.line(result), flush=True)
        return result

    def bare(servers: Servers, count: int, routing: str, repeat: int) -> None:
        record(scenario.bare(servers, count, warmup=args.warmup, duration=args.duration,
                             routing=routing), repeat)

    def play(servers: Servers, count: int, routing: str, repeat: int,
             think: float = 0.0, **settings: Any) -> scenario.Result:
        warmup, duration = ((3 * args.warmup, 2 * args.duration) if think
                            else (args.warmup, args.duration))
        result, bench, _ = scenario.game(servers, count, think=think, warmup=warmup,
                                         duration=duration, routing=routing, play_on=True,
                                         hands_per_match=16, **settings)
        tables.tables_abandon(bench)
        return record(result, repeat)

    servers = Servers.start(1, env, logs / "memory")
    try:  # on a fresh process: a daphne that served 400 players keeps their memory
        before, after = scenario.idle_memory(servers, IDLE_PLAYERS)
    finally:
        servers.stop()
    print(f"memory: {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB", flush=True)
    matches: dict[str, Any] | None = None
    if args.memory_matches:
        servers = Servers.start(1, env, logs / "matches")
        try:
            matches = scenario.match_memory(
                servers, args.memory_matches, batch=args.memory_batch,
                report=lambda text: print(text, flush=True))
        finally:
            servers.stop()

    servers = Servers.start(1, env, logs / "p1")
    try:
        for repeat in range(args.repeats):
            for count in args.tables:
                bare(servers, count, "whole", repeat)
                play(servers, count, "whole", repeat)
        for repeat in range(args.repeats):
            play(servers, args.think_tables, "whole", repeat, THINK_SECONDS)
        play(servers, args.think_tables, "whole", 0, THINK_SECONDS, claim_pause_ms=PAUSE_MS)
        for count in args.capacity_tables:
            result = play(servers, count, "whole", 0, report.CAPACITY_THINK)
            if not result.percentile(99) < report.CAPACITY_P99_MS:
                break
    finally:
        servers.stop()

    servers = Servers.start(2, env, logs / "p2")
    try:
        for repeat in range(args.repeats):
            bare(servers, args.scale_tables, "whole", repeat)
            play(servers, args.scale_tables, "whole", repeat)
            play(servers, args.scale_tables, "split", repeat)
    finally:
        servers.stop()
    return results, {"players": IDLE_PLAYERS, "before": before, "after": after,
                     "matches": matches}


def scenario_server_version(url: str) -> str:
    """PostgreSQL's version string (major.minor)."""
    with psycopg.connect(_libpq(url)) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]).split()[0] if row else "?"


if __name__ == "__main__":
    main()
