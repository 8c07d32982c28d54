"""One abusive account beside the tables of its process: their move latency alone, beside
an account that opens many spectator sockets to one of their rooms and sends ``hello`` on
each several times a second, and beside the same account with the socket limits lifted
(the reference, in the same run). Puts its section in ``docs/benchmarks.md`` with
``--write-docs``.

    .venv/bin/python -m benchmarks.abuse --write-docs

One daphne process (and its Celery worker), 10 tables of 4 bots at 1 s think, the
platform's own per-connection message budget. The account asks for 40 sockets and sends 9
``hello`` a second on each it gets, the attack of a review (every ``hello`` answers with a
snapshot; 9 a second stays within one socket's budget of 10). With the limit it gets 12
(:mod:`apps.matches.socket_limits`). Uses a fresh database ``bench_abuse`` on the local
PostgreSQL and Redis database 8. About 8 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from .load.processes import ROOT, Servers
from .load.run import prepare

BEGIN, END = "<!-- socket-abuse:begin -->", "<!-- socket-abuse:end -->"
TABLES, THINK = 10, 1.0
HOST = "127.0.0.1"
CONNECT_SPACING = 0.02
"""Seconds between the flood's handshakes (as the bots space theirs)."""


@dataclass
class Flood:
    """One account's sockets to one room, each sending ``hello`` at ``rate`` a second."""

    cookie: str
    sockets: int
    rate: float
    admitted: int = 0
    refused: int = 0
    sent: int = 0
    frames: int = 0
    seconds: float = 0.0
    closes: list[int] = field(default_factory=list)

    async def __call__(self, servers: Servers, bench: list[Any]) -> None:
        port = servers.ports[0]
        url = f"ws://{HOST}:{port}/ws/rooms/{bench[0].code}/"
        started = time.monotonic()
        try:
            await asyncio.gather(*(self._one(url, port, i) for i in range(self.sockets)))
        finally:
            self.seconds = time.monotonic() - started

    async def _one(self, url: str, port: int, index: int) -> None:
        await asyncio.sleep(index * CONNECT_SPACING)
        try:
            async with connect(url, origin=f"http://{HOST}:{port}", compression=None,
                               max_size=None, additional_headers={"Cookie": self.cookie},
                               ping_interval=None, open_timeout=60) as ws:
                await ws.recv()  # the first frame: the table took the socket
                self.admitted += 1
                reader = asyncio.create_task(self._read(ws))
                try:
                    while True:
                        await ws.send('{"type":"hello"}')
                        self.sent += 1
                        await asyncio.sleep(1 / self.rate)
                finally:
                    reader.cancel()
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else 1006
            self.refused += code == 4429
            self.closes.append(code)

    async def _read(self, ws: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                self.frames += 1


def abuser_create(room_id: int) -> str:
    """A member of the room's club who holds no seat (a spectator); its username."""
    from django.contrib.auth.hashers import make_password  # noqa: PLC0415

    from apps.accounts.models import User  # noqa: PLC0415
    from apps.clubs.models import Membership, Room  # noqa: PLC0415

    from .load.tables import PASSWORD  # noqa: PLC0415

    user = User.objects.create(username=f"flood{uuid.uuid4().hex[:8]}", display_name="刷屏者",
                               password=make_password(PASSWORD))
    Membership.objects.create(club=Room.objects.get(pk=room_id).club, user=user)
    return user.username


def measure(servers: Servers, args: argparse.Namespace, *, flood: bool) -> dict[str, Any]:
    """One run of the tables, alone or beside a flood; its latency figures."""
    from .load import bots, scenario, tables  # noqa: PLC0415  (needs Django set up)

    beside: Flood | None = None

    async def start_flood(servers: Servers, bench: list[Any]) -> None:
        nonlocal beside
        name = await asyncio.to_thread(abuser_create, bench[0].room_id)
        cookie = await asyncio.to_thread(bots.login, servers.ports[0], name)
        beside = Flood(cookie, args.sockets, args.rate)
        await beside(servers, bench)

    result, bench, _ = scenario.game(
        servers, TABLES, think=THINK, warmup=3 * args.warmup, duration=2 * args.duration,
        routing="whole", play_on=True, hands_per_match=16,
        beside=start_flood if flood else None,
    )
    tables.tables_abandon(bench)
    figures = {"p50": result.percentile(50), "p99": result.percentile(99),
               "actions": result.actions / result.seconds}
    if beside is not None:
        figures.update(admitted=beside.admitted, refused=beside.refused,
                       hellos=beside.sent / beside.seconds)
    print({k: round(v, 1) for k, v in figures.items()}, flush=True)
    return figures


def markdown(runs: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> str:
    """The section: medians of each kind of run, and the ratios to the tables alone."""
    def median(kind: str, key: str) -> float:
        return statistics.median(run[key] for run in runs[kind])

    alone = median("alone", "p50")
    rows = [
        ("tables alone", "alone"),
        ("beside the flood, limits on", "limited"),
        ("beside the flood, limits lifted (reference)", "unlimited"),
    ]
    lines = [
        BEGIN,
        "## One account's socket flood beside the tables",
        "",
        f"`.venv/bin/python -m benchmarks.abuse` ({datetime.now(UTC).date().isoformat()}, "
        f"{args.repeats} runs of each, medians): one daphne, {TABLES} tables of 4 bots at "
        f"{THINK:g} s think, the platform's message budget per socket. The flood: one "
        f"account asks for {args.sockets} spectator sockets to one of the rooms and sends "
        f"{args.rate:g} `hello` a second on each it gets (each answered with a snapshot).",
        "",
        "| run | sockets it got | `hello`/s sent | move p50 ms | ×alone | move p99 ms | "
        "actions/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, kind in rows:
        got = f"{median(kind, 'admitted'):.0f}" if kind != "alone" else "–"
        sent = f"{median(kind, 'hellos'):.0f}" if kind != "alone" else "–"
        lines.append(
            f"| {label} | {got} | {sent} | {median(kind, 'p50'):.1f} | "
            f"{median(kind, 'p50') / alone:.2f} | {median(kind, 'p99'):.1f} | "
            f"{median(kind, 'actions'):.1f} |")
    lines += ["", END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run the three kinds of run in turn, print and optionally write the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_abuse",
                        help="dropped and re-created: its name must start with 'bench'")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--sockets", type=int, default=40)
    parser.add_argument("--rate", type=float, default=9.0)
    parser.add_argument("--duration", type=float, default=10.0,
                        help="measured seconds are twice this")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds before the window are three times this")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    env = prepare(args.database_url, args.redis_url, BENCH_UNLIMITED_RATE="0")
    logs = ROOT / "var" / "bench-abuse" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    runs: dict[str, list[dict[str, Any]]] = {"alone": [], "limited": [], "unlimited": []}
    servers = Servers.start(1, env, logs / "limited")
    try:
        for _ in range(args.repeats):
            runs["alone"].append(measure(servers, args, flood=False))
            runs["limited"].append(measure(servers, args, flood=True))
    finally:
        servers.stop()
    servers = Servers.start(1, {**env, "BENCH_UNLIMITED_SOCKETS": "1"}, logs / "unlimited")
    try:
        for _ in range(args.repeats):
            runs["unlimited"].append(measure(servers, args, flood=True))
    finally:
        servers.stop()
    text = markdown(runs, args)
    print(text)
    if args.write_docs:
        from .load import report  # noqa: PLC0415  (needs Django set up)

        report.write(ROOT / "docs" / "benchmarks.md", text, begin=BEGIN, end=END)
        print("wrote docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main()
