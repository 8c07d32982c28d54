"""What one ordinary discard runs through on the server: the platform's modules, functions
and decision points, from the table socket's receive to the last seat's frame.

    .venv/bin/python -m benchmarks.move_trace [--moves 5] [--write-docs]

Started 都匀 tables on a fresh PostgreSQL database (``bench_trace``) and a Redis database
of its own, each table's four seats connected over the table consumer in this process
(channels' ``WebsocketCommunicator``, the real routing and the Redis pub/sub channel
layer). After three warm-up discards, the traced discard is one seat's message until
every seat has its update. Connections close only after the last trace. Each
connection's heartbeat (a timer of its own that checks the version after a quiet spell,
not part of a move) is held off for the run. Traced, in every thread (the move's worker
thread is started after tracing starts): the functions entered (``sys.setprofile``) and
the branch points taken (coverage.py's branch arcs: a line with more than one way out,
counted once however often it ran) in ``apps/`` (the platform) and ``majiang/`` (the
rules). One traced discard per table, the figures the median over ``--moves`` tables.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from .load.run import prepare

DATABASE = "postgres://postgres@127.0.0.1:5432/bench_trace"
REDIS = "redis://127.0.0.1:6379/9"
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- move-trace:begin -->", "<!-- move-trace:end -->"


def _package(filename: str) -> str | None:
    path = Path(filename)
    for package in ("apps", "majiang"):
        root = ROOT / package
        if path.is_relative_to(root):
            return package
    return None


class Trace:
    """Functions entered in ``apps/`` and ``majiang/``, in every thread, while it runs."""

    def __init__(self) -> None:
        self.functions: set[tuple[str, str, int]] = set()

    def _profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if _package(code.co_filename) is not None:
                self.functions.add((code.co_filename, code.co_qualname, code.co_firstlineno))

    def start(self) -> None:
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)


def _decision_points(cov: Any) -> dict[str, list[int]]:
    """Per file, the branch lines (more than one way out) that ran at least once."""
    from coverage.python import PythonFileReporter  # noqa: PLC0415

    data = cov.get_data()
    taken: dict[str, list[int]] = {}
    for filename in data.measured_files():
        arcs = data.arcs(filename) or []
        exits = PythonFileReporter(filename, cov).exit_counts()
        ran = {start for start, _ in arcs if start > 0}
        taken[filename] = sorted(line for line in ran if exits.get(line, 0) > 1)
    return taken


async def _traced_discards(moves: int, verbose: bool) -> list[dict[str, Any]]:
    """``moves`` tables; on each, warm up, then trace one discard; one summary each."""
    summaries, opened = [], []
    for _ in range(moves):
        summary, conns = await _traced_discard(verbose)
        summaries.append(summary)
        opened += conns
    for conn in opened:  # a closing connection's clean-up is not part of a move
        await conn.disconnect()
    return summaries


async def _traced_discard(verbose: bool) -> tuple[dict[str, Any], list[Any]]:
    """On a new table, warm up, then trace one discard and summarise it."""
    from asgiref.sync import sync_to_async  # noqa: PLC0415

    from apps.matches import consumers  # noqa: PLC0415
    from majiang import get_variant  # noqa: PLC0415
    from tests.matches.driving import choose  # noqa: PLC0415
    from tests.support import factories  # noqa: PLC0415
    from tests.support.ws import connect_as  # noqa: PLC0415

    setattr(consumers, "VERSION_CHECK_SECONDS", 3600)  # noqa: B010 (heartbeats: not a move)
    hands = max(get_variant("duyun").schema["hands_per_match"].choices)
    table = await sync_to_async(factories.table)("duyun", hands_per_match=hands, turn_seconds=60)
    conns = [connect_as(user, table.room.code) for user in table.players]
    latest: list[dict[str, Any]] = []
    for conn in conns:
        assert (await conn.connect())[0]
        snapshot = await _frame(conn, "snapshot")
        assert snapshot is not None
        latest.append(snapshot)

    async def move(seat: int, message: dict[str, Any]) -> None:
        """Send one seat's move; wait for its update and for the others' (a seat that may
        see nothing of the change gets none)."""
        await conns[seat].send_json_to({**message, "v": latest[seat]["v"]})
        for other, conn in enumerate(conns):
            frame = await _frame(conn, "update", timeout=10 if other == seat else 0.5)
            if frame is not None:
                latest[other] = frame

    def due(kind: str | None) -> tuple[int, dict[str, Any]] | None:
        for seat, frame in enumerate(latest):
            message = choose(frame["observation"])
            if message is not None and (kind is None or message["type"] == kind):
                return seat, message
        return None

    async def play_until_discard() -> tuple[int, dict[str, Any]]:
        """Make the other moves (claim windows) until some seat may discard."""
        for _ in range(50):
            discard = due("discard")
            if discard is not None:
                return discard
            other = due(None)
            assert other is not None, "nobody has a move"
            await move(*other)
        raise RuntimeError("no discard came")

    for _ in range(3):  # warm-up: caches, connections, the pub/sub subscription
        await move(*await play_until_discard())
    seat, discard = await play_until_discard()
    trace, points = await _traced(move(seat, discard))
    if verbose:
        for f, name, _ in sorted(trace.functions):
            print(Path(f).relative_to(ROOT).as_posix(), name)
        for f, lines in sorted(points.items()):
            if lines:
                print(Path(f).relative_to(ROOT).as_posix(), len(lines), "decision lines:",
                      *lines)
    modules = {f for f, _, _ in trace.functions} | {f for f, n in points.items() if n}
    return {
        "modules": {p: sorted(Path(f).relative_to(ROOT).as_posix() for f in modules
                              if _package(f) == p) for p in ("apps", "majiang")},
        "functions": {p: sum(1 for f, _, _ in trace.functions if _package(f) == p)
                      for p in ("apps", "majiang")},
        "points": {p: sum(len(n) for f, n in points.items() if _package(f) == p)
                   for p in ("apps", "majiang")},
    }, conns


async def _traced(work: Any) -> tuple[Trace, dict[str, list[int]]]:
    """Await ``work`` traced: the functions it entered and the decision points it took."""
    import coverage  # noqa: PLC0415

    cov = coverage.Coverage(branch=True, data_file=None,
                            source=[str(ROOT / "apps"), str(ROOT / "majiang")])
    trace = Trace()
    cov.start()
    trace.start()
    # Worker threads started now are traced from their birth.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=4))
    await work
    trace.stop()
    cov.stop()
    return trace, _decision_points(cov)


async def _frame(conn: Any, kind: str, timeout: float = 10) -> dict[str, Any] | None:
    """The next frame of type ``kind`` (others, such as presence, are skipped); ``None``
    if none comes within ``timeout`` seconds."""
    while True:
        if await conn.receive_nothing(timeout=timeout):  # a timed-out receive would end it
            return None
        frame: dict[str, Any] = await conn.receive_json_from()
        if frame["type"] == kind:
            return frame


def _report(summaries: list[dict[str, Any]], command: str) -> str:
    def median(key: str, package: str) -> float:
        return float(statistics.median(s[key][package] for s in summaries))

    def module_count(package: str) -> float:
        return statistics.median(len(s["modules"][package]) for s in summaries)

    union = sorted({m for s in summaries for m in s["modules"]["apps"]})
    lines = [
        BEGIN,
        "## What one discard runs through",
        "",
        f"`{command}` ({datetime.now(UTC).date().isoformat()}, {len(summaries)} traced discards, "
        "median): one 都匀 discard from the table socket's receive until all four seats have "
        "their update, traced in every thread (the connections' heartbeats held off). "
        "Decision points: lines with more than one way "
        "out that ran (coverage.py's branch arcs), each counted once.",
        "",
        "| code | modules | functions | decision points |",
        "| --- | ---: | ---: | ---: |",
        f"| platform (`apps/`) | {module_count('apps'):g} | {median('functions', 'apps'):g} "
        f"| {median('points', 'apps'):g} |",
        f"| rules (`majiang/`) | {module_count('majiang'):g} "
        f"| {median('functions', 'majiang'):g} | {median('points', 'majiang'):g} |",
        "",
        "Platform modules on the path: " + ", ".join(f"`{m}`" for m in union) + ".",
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, trace, print and optionally write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--database-url", default=DATABASE,
                        help="dropped and re-created: its name must start with 'bench'")
    parser.add_argument("--redis-url", default=REDIS)
    parser.add_argument("--verbose", action="store_true",
                        help="print each traced function and each file's decision points")
    parser.add_argument("--write-docs", action="store_true",
                        help=f"replace the section between {BEGIN} and {END} in {DOCS}")
    args = parser.parse_args()
    prepare(args.database_url, args.redis_url)
    summaries = asyncio.run(_traced_discards(args.moves, args.verbose))
    command = ".venv/bin/python -m benchmarks.move_trace" + (
        f" --moves {args.moves}" if args.moves != 5 else "")
    report = _report(summaries, command)
    print(report)
    if args.write_docs:
        text = DOCS.read_text()
        if BEGIN in text:
            head, rest = text.split(BEGIN, 1)
            text = head + report + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n" + report + "\n"
        DOCS.write_text(text)


if __name__ == "__main__":
    main()
