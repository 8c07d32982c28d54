"""Where the CPU of one accepted action goes, without sockets: ``match_act`` in-process.

    .venv/bin/python -m benchmarks.action_profile [--tables 10] [--actions 2000] [--profile]

Builds ``--tables`` started tables on a fresh PostgreSQL database (``bench_profile``) and a
Redis database of its own, then plays random legal actions through
:func:`apps.matches.services.match_act` round-robin over the tables, each in its own
transaction with its ``on_commit`` effects (state cached, update published) as in production. A
pub/sub ``PUBLISH`` costs the sender the same whoever subscribes, so no connection listens.
Prints the median CPU and wall time per action and, with ``--profile``, the top of a
cProfile of the loop. The load benchmark (:mod:`benchmarks.load`) measures the whole path
over real sockets; this isolates the server's own work per action.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import statistics
import time
from typing import Any

from .load.run import prepare

DATABASE = "postgres://postgres@127.0.0.1:5432/bench_profile"
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

    prepare(args.database_url, args.redis_url)
    from channels.db import database_sync_to_async  # noqa: PLC0415
    from django.db import connection, transaction  # noqa: PLC0415

    from apps.matches import consumers, services, state  # noqa: PLC0415
    from apps.matches.frames import view_version  # noqa: PLC0415
    from apps.matches.models import Match  # noqa: PLC0415
    from benchmarks.load.instrument import TRANSACTION_CONTROL  # noqa: PLC0415
    from majiang import get_variant  # noqa: PLC0415
    from tests.security.helpers import build_table  # noqa: PLC0415

    variants = ["duyun" if i % 2 else "zigong" for i in range(args.tables)]
    tables = [build_table(v, turn_seconds=30,
                          hands_per_match=max(get_variant(v).schema["hands_per_match"].choices))
              for v in variants]

    rng = random.Random(1)
    thread_cpu: list[float] = []
    step_cpu: list[float] = []
    queries: list[int] = []
    held: list[float] = []
    by_kind: dict[str, list[float]] = {}
    profiler = cProfile.Profile(time.thread_time) if args.profile else None

    def act(**kwargs: object) -> None:
        """``match_act`` in the database thread, measured (and profiled) there."""
        counted: list[str] = []

        def count(run: Any, sql: str, *rest: Any) -> Any:
            if not sql.lstrip().upper().startswith(TRANSACTION_CONTROL):
                if not counted:  # the row lock is taken by the first statement
                    taken = time.perf_counter()
                    transaction.on_commit(lambda: held.append(time.perf_counter() - taken))
                counted.append(sql)
            return run(sql, *rest)

        c0 = time.thread_time()
        if profiler:
            profiler.enable()
        with connection.execute_wrapper(count):
            services.match_act(**kwargs)  # type: ignore[arg-type]
        if profiler:
            profiler.disable()
        spent = time.thread_time() - c0
        thread_cpu.append(spent)
        queries.append(len(counted))
        by_kind.setdefault(_kind(kwargs["payload"], len(counted)), []).append(spent)

    def next_move(t: object) -> tuple[int, object, dict[str, object]] | None:
        match = Match.objects.get(pk=t.match.pk)  # type: ignore[attr-defined]
        if match.status != Match.Status.PLAYING:
            return None
        rows = state.state_checkout(match)
        state.state_checkin(rows)  # for the move, which takes it again
        if match.stage != Match.Stage.HAND:
            for seat in range(4):
                act(match_id=match.pk, user_id=t.users[seat].pk,  # type: ignore[attr-defined]
                    payload={"type": "ready_next"})
            return None
        assert rows.rnd is not None
        seat = next(s for s in range(4) if rows.rnd.legal_actions(s))
        payload = {**rng.choice(rows.rnd.legal_actions(seat)).to_json(),
                   "v": view_version(match.views, seat)}
        payload.pop("seat", None)
        return match.pk, t.users[seat].pk, payload  # type: ignore[attr-defined]

    async def play(count: int) -> None:
        """Like ``TableConsumer``: the service in the database thread, then the send."""
        i, idle = 0, 0
        while len(thread_cpu) < count:
            t = tables[i % len(tables)]
            i += 1
            move = await database_sync_to_async(next_move)(t)
            if move is None:
                idle += 1
                if idle > 2 * len(tables):
                    raise SystemExit("every match is over: use more --tables")
                continue
            idle = 0
            c0 = time.process_time()
            await consumers.call_in_order(act, match_id=move[0], user_id=move[1],
                                          payload=move[2])
            step_cpu.append(time.process_time() - c0)

    asyncio.run(play(50))  # warm up: caches, connections, code
    thread_cpu.clear(), step_cpu.clear(), queries.clear(), held.clear(), by_kind.clear()
    if profiler:
        profiler = cProfile.Profile(time.thread_time)
    asyncio.run(play(args.actions))
    print(f"{len(thread_cpu)} actions over {len(tables)} tables: match_act CPU median "
          f"{statistics.median(thread_cpu) * 1e3:.2f} ms (database thread), whole step "
          f"{statistics.median(step_cpu) * 1e3:.2f} ms (with the send), "
          f"SQL median {statistics.median(queries)}")
    cuts = statistics.quantiles(thread_cpu, n=100)
    print(f"match_act CPU p90 {cuts[89] * 1e3:.2f} ms, p99 {cuts[98] * 1e3:.2f} ms, "
          f"max {max(thread_cpu) * 1e3:.2f} ms; SQL max {max(queries)}")
    held_cuts = statistics.quantiles(held, n=100)
    print(f"match row locked (first statement to the end of COMMIT, wall): median "
          f"{statistics.median(held) * 1e3:.2f} ms, p90 {held_cuts[89] * 1e3:.2f} ms")
    print("by kind (the SQL count tells ordinary moves from hand ends and deals):")
    for kind, spent in sorted(by_kind.items(), key=lambda item: -max(item[1])):
        print(f"  {kind:<28} {len(spent):>5}  median {statistics.median(spent) * 1e3:6.2f} ms"
              f"  max {max(spent) * 1e3:6.2f} ms")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(70)


def _kind(payload: object, statements: int) -> str:
    """An action's type with its SQL statement count, e.g. ``discard/3``."""
    kind = payload.get("type", "?") if isinstance(payload, dict) else "?"
    return f"{kind}/{statements}"


if __name__ == "__main__":
    main()
