"""What forwarding a move to its match's owner costs (``apps.matches.owners``).

    .venv/bin/python -m benchmarks.owners_forward [--moves 3000] [--repeats 5]

Two routers on one event loop stand in for two daphne processes, with only Redis between
them (``--redis-url``, default database 9), and a move that does nothing. Measured, CPU and
wall time per move, the median of ``--repeats`` runs of ``--moves`` each:

- *forwarded*: a move from the router that does not own the match, so both sides of the
  forward are in this process (publish the move, receive it, make it, publish the answer,
  receive that);
- *reference*: one ``PUBLISH`` on the lean link and its arrival on a subscribed link, in
  the same process; a forwarded move is two of these plus its own work;
- *local*: a move from the owner itself (its cost is a dictionary lookup).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_REDIS = "redis://127.0.0.1:6379/9"
MATCH_ID = 987_654_321


async def _timed(moves: int, one: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """CPU and wall microseconds per call of ``one``, over ``moves`` calls."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(moves):
        await one()
    return (1e6 * (time.process_time() - cpu) / moves,
            1e6 * (time.perf_counter() - wall) / moves)


async def measure(url: str, moves: int, repeats: int) -> dict[str, list[tuple[float, float]]]:
    """Every run's (CPU, wall) per move, by kind."""
    from apps.core.redis_link import RedisLink  # noqa: PLC0415  (needs Django set up)
    from apps.matches.owners import Router  # noqa: PLC0415

    async def nothing(match_id: int, user_id: int, payload: Any) -> int:
        return 1

    owner, sender = Router(url, nothing), Router(url, nothing)
    for router in (owner, sender):
        await asyncio.wait_for(router.listening.wait(), 5)
    payload = {"type": "discard", "tile": "5m", "v": 123}
    await owner.act(match_id=MATCH_ID, user_id=1, payload=payload)

    arrived = asyncio.Event()
    listener = await RedisLink.open(url, timeout=2,
                                    on_message=lambda channel, data: arrived.set())
    await listener.command("SUBSCRIBE", "owners-forward-bench")
    publisher = await RedisLink.open(url, timeout=2)

    async def reference() -> None:
        arrived.clear()
        await publisher.command("PUBLISH", "owners-forward-bench", "x" * 80)
        await arrived.wait()

    kinds: dict[str, Callable[[], Awaitable[Any]]] = {
        "forwarded": lambda: sender.act(match_id=MATCH_ID, user_id=2, payload=payload),
        "reference": reference,
        "local": lambda: owner.act(match_id=MATCH_ID, user_id=1, payload=payload),
    }
    runs: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
    for _ in range(repeats):
        for kind, one in kinds.items():
            runs[kind].append(await _timed(moves, one))
    for link in (listener, publisher):
        link.close()
    for router in (owner, sender):
        await router.close()
    return runs


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, measure, print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=DEFAULT_REDIS)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django  # noqa: PLC0415

    django.setup()
    runs = asyncio.run(measure(args.redis_url, args.moves, args.repeats))
    reference_cpu = statistics.median(cpu for cpu, _ in runs["reference"])
    print("| kind | CPU µs/move, median (runs) | wall µs/move, median | CPU ÷ reference |")
    print("| --- | ---: | ---: | ---: |")
    for kind, values in runs.items():
        cpu = statistics.median(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        each = ", ".join(f"{c:.0f}" for c, _ in values)
        print(f"| {kind} | {cpu:.0f} ({each}) | {wall:.0f} | {cpu / reference_cpu:.2f}× |")


if __name__ == "__main__":
    main()
