"""Run the whole load benchmark and (with ``--write-docs``) put its tables in
``docs/benchmarks.md``.

    .venv/bin/python -m benchmarks.load.run --write-docs

First the memory of 100 idle players on a fresh daphne process; then, for 1 and then 2
daphne processes (each with a Celery worker, all behind the same Redis and PostgreSQL): the
bare transport and the game at full speed for 1, 10 and 100 tables, and the game at 100
tables with a 1-second think time. After each game measurement the unfinished matches are
dissolved, so their timers do not keep playing them during the next one. Uses a fresh
database (``--database-url``, default ``bench_load`` on the local PostgreSQL, dropped and
re-created) and a Redis database of its own (``--redis-url``).
Each measurement runs `--repeats` times (3), alternating bare and game runs; the report
takes medians. Bounded: about 20 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import uuid
from datetime import UTC, datetime
from urllib.parse import urlsplit

import psycopg
import redis

from apps.core.collector import collector_tune

from .processes import ROOT, Servers, server_env

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/bench_load?conn_max_age=600"
DEFAULT_REDIS = "redis://127.0.0.1:6379/9"
TABLE_COUNTS = (1, 10, 100)
THINK_TABLES, THINK_SECONDS = 100, 1.0
IDLE_PLAYERS = 100


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
    """Parse arguments, run every scenario, print and optionally write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS)
    parser.add_argument("--duration", type=float, default=10.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--tables", type=int, nargs="+", default=list(TABLE_COUNTS))
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each measurement (the report takes medians)")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)

    started = time.monotonic()
    env = prepare(args.database_url, args.redis_url)
    from . import report, scenario, tables  # noqa: PLC0415  (needs Django set up)

    # The bots' process is tuned like the servers: with the default collector settings its
    # own collections (one full collection took 130 ms) paused every bot at once, and each
    # pause counted as server latency for every message in flight.
    collector_tune()

    logs = ROOT / "var" / "bench-load" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    results: list[scenario.Result] = []

    def record(result: scenario.Result, repeat: int) -> None:
        result.repeat = repeat
        results.append(result)
        print(report.line(result), flush=True)

    def play(servers: Servers, count: int, think: float, warmup: float,
             duration: float) -> scenario.Result:
        result, bench, _ = scenario.game(servers, count, think=think, warmup=warmup,
                                         duration=duration, play_on=True, hands_per_match=16)
        tables.tables_abandon(bench)
        return result

    servers = Servers.start(1, env, logs / "memory")
    try:  # on fresh processes: a daphne that served 400 players keeps their memory
        before, after, movers = scenario.idle_memory(servers, IDLE_PLAYERS)
    finally:
        servers.stop()
    memory = {"players": IDLE_PLAYERS, "before": before, "after": after, "movers": movers}
    print(f"memory: {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB", flush=True)
    for processes in args.processes:
        servers = Servers.start(processes, env, logs / f"p{processes}")
        try:
            for repeat in range(args.repeats):
                for count in args.tables:
                    record(scenario.bare(servers, count, warmup=args.warmup,
                                         duration=args.duration), repeat)
                    record(play(servers, count, 0.0, args.warmup, args.duration), repeat)
            for repeat in range(args.repeats):
                record(play(servers, THINK_TABLES, THINK_SECONDS, scenario.THINK_WARMUP,
                            2 * args.duration), repeat)
        finally:
            servers.stop()
    machine = {
        "date": datetime.now(UTC).date().isoformat(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "cpu": report.cpu_model(),
        "minutes": (time.monotonic() - started) / 60,
        "postgres": scenario_server_version(args.database_url),
        "redis": redis.Redis.from_url(args.redis_url).info()["redis_version"],
    }
    text = report.markdown(results, memory, machine, args)
    print(text)
    if args.write_docs:
        report.write(ROOT / "docs" / "benchmarks.md", text)
        print("wrote docs/benchmarks.md", file=sys.stderr)


def scenario_server_version(url: str) -> str:
    """PostgreSQL's version string (major.minor)."""
    with psycopg.connect(_libpq(url)) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]).split()[0] if row else "?"


if __name__ == "__main__":
    main()
