"""Where the CPU of one accepted action goes, without sockets: ``match_act`` in-process.

    .venv/bin/python -m benchmarks.action_profile [--tables 10] [--actions 2000] [--profile]

Builds ``--tables`` started tables on a fresh PostgreSQL database (``bench_profile``) and a
Redis database of its own, subscribes four fake connections to every match's group (so each
``group_send`` delivers, as with real players), then plays random legal actions through
:func:`apps.matches.services.match_act` round-robin over the tables, each in its own
transaction with its ``on_commit`` effects (broadcast, timer publish) as in production.
Prints the median CPU and wall time per action and, with ``--profile``, the top of a
cProfile of the loop. The load benchmark (:mod:`benchmarks.load`) measures the whole path
over real sockets; this isolates the server's own work per action.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import time
import uuid

from .load.processes import server_env
from .load.run import fresh_database

DATABASE = "postgres://postgres@127.0.0.1:5432/bench_profile?conn_max_age=600"
REDIS = "redis://127.0.0.1:6379/8"


def main() -> None:  # noqa: PLR0915 (one linear script)
    """Parse arguments, build the tables, play, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--database-url", default=DATABASE)
    parser.add_argument("--redis-url", default=REDIS)
    args = parser.parse_args()

    fresh_database(args.database_url)
    os.environ.update(server_env(database=args.database_url, redis=args.redis_url,
                                 queue=f"bench-{uuid.uuid4().hex[:8]}", unlimited_rate=True))
    import django  # noqa: PLC0415

    django.setup()
    import redis  # noqa: PLC0415
    from asgiref.sync import async_to_sync  # noqa: PLC0415
    from channels.layers import get_channel_layer  # noqa: PLC0415
    from django.core.management import call_command  # noqa: PLC0415
    from django.db import connection  # noqa: PLC0415

    from apps.matches import broadcast, services, state  # noqa: PLC0415
    from apps.matches.models import Match  # noqa: PLC0415
    from tests.security.helpers import build_table  # noqa: PLC0415

    redis.Redis.from_url(args.redis_url).flushdb()
    call_command("migrate", interactive=False, verbosity=0)
    tables = [build_table("duyun" if i % 2 else "zigong", turn_seconds=30)
              for i in range(args.tables)]
    layer = get_channel_layer()
    for t in tables:
        group = broadcast.match_group(t.match.pk)
        for seat in range(4):
            async_to_sync(layer.group_add)(group, f"specific.fake!{group}_{seat}")

    rng = random.Random(1)
    cpu: list[float] = []
    wall: list[float] = []
    queries: list[int] = []

    def one(t: object) -> None:
        match = Match.objects.get(pk=t.match.pk)  # type: ignore[attr-defined]
        if match.status != Match.Status.PLAYING:
            return
        rows = state.writer_checkout(match)
        state.writer_checkin(match.pk, match.version, rows)
        if match.stage != Match.Stage.HAND:
            for seat in range(4):
                services.match_act(match_id=match.pk, user=t.users[seat],  # type: ignore[attr-defined]
                                   payload={"type": "ready_next"})
            return
        rnd = rows.rnd
        assert rnd is not None
        seat = next(s for s in range(4) if rnd.legal_actions(s))
        action = rng.choice(rnd.legal_actions(seat))
        payload = {**action.to_json(), "v": match.version}
        payload.pop("seat", None)
        counted: list[str] = []
        c0, w0 = time.process_time(), time.perf_counter()
        with connection.execute_wrapper(lambda run, sql, *a: counted.append(sql) or run(sql, *a)):
            services.match_act(match_id=match.pk, user=t.users[seat], payload=payload)  # type: ignore[attr-defined]
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        queries.append(len(counted))

    for _ in range(50):  # warm up: caches, connections, code
        one(rng.choice(tables))
    cpu.clear(), wall.clear(), queries.clear()
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    if profiler:
        profiler.enable()
    i = 0
    while len(cpu) < args.actions:
        one(tables[i % len(tables)])
        i += 1
    if profiler:
        profiler.disable()
    print(f"{len(cpu)} actions over {len(tables)} tables: CPU median "
          f"{statistics.median(cpu) * 1e3:.2f} ms (mean {statistics.mean(cpu) * 1e3:.2f}), "
          f"wall median {statistics.median(wall) * 1e3:.2f} ms, "
          f"SQL median {statistics.median(queries)}")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(70)


if __name__ == "__main__":
    main()
