"""One measured run against started servers: game tables, bare-transport groups, idle
players (memory), or batches of matches played to the end (memory). Clients connect
``split`` (seat ``i`` through daphne ``i mod n``) or with rooms ``whole`` (every seat of
table ``t`` through daphne ``t mod n``): :func:`.bots.port_of`.

Throughput and server-side figures are deltas between two samples taken ``warmup``
seconds after play starts and ``duration`` seconds later (or when the last table finished,
if sooner). Latencies are those of messages sent inside that window.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psutil
import requests

from . import bots, tables, transport
from .processes import Servers

LOGIN_THREADS = 8


@dataclass
class Sample:
    """Counters and CPU times at one moment."""

    at: float
    stats: list[dict[str, Any]]
    app_cpu: float
    machine: Any
    """System-wide CPU times (``psutil.cpu_times()``)."""
    match_updates: tuple[int, int] = (0, 0)
    """Updates and HOT updates of the match table so far (:func:`match_row_updates`)."""
    store_cpu: float = 0.0
    """CPU seconds of the database's PostgreSQL backends and of the Redis server."""

    @classmethod
    def take(cls, servers: Servers) -> Sample:
        """Read every daphne's counters, the CPU time of the processes involved and the
        match table's update counts."""
        stats = [requests.get(f"http://{bots.HOST}:{port}/__bench__/stats", timeout=10).json()
                 for port in servers.ports]
        return cls(time.monotonic(), stats, _cpu(servers.pids), psutil.cpu_times(),
                   match_row_updates(), _cpu(store_pids()))


def store_pids() -> list[int]:
    """Process IDs of the PostgreSQL backends connected to this database (the servers'
    pooled connections) and of the Redis server."""
    from django.db import connection  # noqa: PLC0415  (needs Django set up)

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            backends = [int(row[0]) for row in cursor.fetchall()]
    finally:
        connection.close()
    servers = [p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == "redis-server"]
    return backends + servers


def match_row_updates() -> tuple[int, int]:
    """Updates and HOT updates (in place on the row's page, no new index entries) of the
    match table so far, from PostgreSQL's ``pg_stat_user_tables``. Each server connection
    reports its counts at the end of a transaction at most once a second (an idle one
    within a second too), so a window's delta is late by up to a second at both ends."""
    from django.db import connection  # noqa: PLC0415  (needs Django set up)

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                           "WHERE relname = 'matches_match'")
            row = cursor.fetchone()
    finally:
        connection.close()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def _cpu(pids: list[int]) -> float:
    """CPU seconds of the server processes."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


@dataclass
class Result:
    """The figures of one run."""

    kind: str
    processes: int
    tables: int
    think: float
    seconds: float
    actions: int
    latencies_ms: list[float]
    routing: str = "split"
    """``split`` or ``whole`` (:func:`.bots.port_of`); the same with one daphne."""
    app_cpu_ms: float = 0.0
    """CPU time of the daphne and Celery processes during the window."""
    store_cpu_ms: float = 0.0
    """CPU time of PostgreSQL (the database's backends) and Redis during the window."""
    statements: dict[int, int] = field(default_factory=dict)
    gc_full: int = 0
    """Full garbage collections in the daphne processes during the window."""
    gc_max_ms: float = 0.0
    """The longest garbage-collector pause of any daphne process during the window."""
    slow_moves: int = 0
    """Accepted messages whose ``match_act`` took over ``instrument.SLOW_MOVE_MS``."""
    slow_moves_db: int = 0
    """Those of them that spent most of that time waiting for the database."""
    repeat: int = 0
    """Which of the repeated runs of the same measurement this is (0 first)."""
    startup_seconds: float = float("nan")
    """From the last match started to every table's first confirmed action (game only)."""
    problems: dict[str, int] = field(default_factory=dict)
    machine_busy: float = float("nan")
    """Fraction of the machine's CPU time (all cores) not idle during the window."""
    match_updates: int = 0
    """Updates of match rows during the window (PostgreSQL's count)."""
    match_hot_updates: int = 0
    """Those of them that were HOT: the new row version on the same page, no index entry."""
    pause_ms: int = 0
    """The tables' claim pause (``timers`` runs)."""
    pause_late_ms: list[float] = field(default_factory=list)
    """How late each pause of the window ended (:func:`pause_lateness`)."""

    @property
    def hot_share(self) -> float:
        """The share of the window's match-row updates that were HOT."""
        return (self.match_hot_updates / self.match_updates if self.match_updates
                else float("nan"))

    @property
    def per_second(self) -> float:
        """Actions (or bare broadcasts) per second."""
        return self.actions / self.seconds if self.seconds > 0 else 0.0

    def percentile(self, q: float) -> float:
        """The ``q``-th percentile latency in ms (nearest rank) of the window."""
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]

    def per_action(self, value: float) -> float:
        """``value`` divided by the number of actions."""
        return value / self.actions if self.actions else float("nan")

    @property
    def steady_statements(self) -> int | None:
        """The most common number of SQL statements per accepted action."""
        return max(self.statements, key=lambda k: self.statements[k]) if self.statements else None

    @property
    def mean_statements(self) -> float:
        """Mean SQL statements per accepted action (hand starts and ends included)."""
        total = sum(self.statements.values())
        return sum(k * v for k, v in self.statements.items()) / total if total else float("nan")


def pooled(runs: list[Result]) -> Result:
    """The repeated runs of one measurement as one: their windows, actions, latencies,
    CPU and counts added up (so rates and per-action figures are over all of them), the
    machine's busy share and start-up as medians."""
    first = runs[0]
    out = Result(first.kind, first.processes, first.tables, first.think,
                 sum(r.seconds for r in runs), sum(r.actions for r in runs),
                 [lat for r in runs for lat in r.latencies_ms], first.routing)
    for name in ("app_cpu_ms", "store_cpu_ms", "gc_full", "slow_moves", "slow_moves_db",
                 "match_updates", "match_hot_updates"):
        setattr(out, name, sum(getattr(r, name) for r in runs))
    out.gc_max_ms = max(r.gc_max_ms for r in runs)
    statements: Counter[int] = Counter()
    problems: Counter[str] = Counter()
    for r in runs:
        statements.update(r.statements)
        problems.update(r.problems)
    out.statements = dict(sorted(statements.items()))
    out.problems = dict(problems)
    for name in ("machine_busy", "startup_seconds"):
        setattr(out, name, statistics.median(getattr(r, name) for r in runs))
    return out


def _fill_server_figures(result: Result, first: Sample, last: Sample) -> None:
    result.app_cpu_ms = (last.app_cpu - first.app_cpu) * 1000
    result.store_cpu_ms = (last.store_cpu - first.store_cpu) * 1000
    result.match_updates = last.match_updates[0] - first.match_updates[0]
    result.match_hot_updates = last.match_updates[1] - first.match_updates[1]
    total = sum(last.machine) - sum(first.machine)
    idle = (last.machine.idle + last.machine.iowait) - (first.machine.idle + first.machine.iowait)
    result.machine_busy = 1 - idle / total if total > 0 else float("nan")
    histogram: Counter[int] = Counter()
    for before, after in zip(first.stats, last.stats, strict=True):
        for key, count in after["statements_per_accepted"].items():
            histogram[int(key)] += count - before["statements_per_accepted"].get(key, 0)
        result.gc_full += after["gc_full"] - before["gc_full"]
        result.gc_max_ms = max(result.gc_max_ms, after["gc_max_ms"])
        result.slow_moves += after["slow_moves"] - before["slow_moves"]
        result.slow_moves_db += after["slow_moves_db"] - before["slow_moves_db"]
    result.statements = {k: v for k, v in sorted(histogram.items()) if v}


def _window(latencies: list[tuple[float, float]], start: float, end: float) -> list[float]:
    return [lat * 1000 for sent, lat in latencies if start <= sent <= end]


Beside = Callable[[Servers, list[tables.BenchTable]], Awaitable[None]]
"""Another load run beside a game's bots (:func:`game`)."""

STARTUP_LIMIT = 120.0
"""At most this many seconds are waited for every table's first confirmed action."""
REMATCH_POLL = 0.1
"""Seconds between checks for finished matches to restart (``play_on``)."""


def login_all(servers: Servers, bench: list[tables.BenchTable], *,
              whole: bool = False) -> list[list[str]]:
    """Log every seat in over HTTP, through the daphne it will play on."""
    ports = servers.ports
    with ThreadPoolExecutor(LOGIN_THREADS) as pool:
        futures = [[pool.submit(bots.login, bots.port_of(ports, i, s, whole=whole), name)
                    for s, name in enumerate(t.usernames)] for i, t in enumerate(bench)]
        return [[f.result() for f in row] for row in futures]


async def _play(servers: Servers, bench: list[tables.BenchTable], cookies: list[list[str]],
                *, think: float, warmup: float, duration: float, play_on: bool,
                whole: bool, beside: Beside | None = None, quick_claims: bool = False,
                ) -> tuple[list[bots.Bot], Sample, Sample, float]:
    ports = servers.ports
    far = time.monotonic() + 3600
    players = [
        bots.Bot(bots.port_of(ports, i, s, whole=whole), t.code, cookies[i][s], s,
                 think=think, stop_at=far, seed=1000 * i + s, play_on=play_on,
                 connect_after=(4 * i + s) * bots.CONNECT_SPACING, quick_claims=quick_claims)
        for i, t in enumerate(bench) for s in range(4)
    ]
    tasks = [asyncio.create_task(p.run()) for p in players]
    await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in players)), 120)
    await asyncio.to_thread(tables.tables_start, bench)
    started = time.monotonic()

    async def until(moment: float) -> None:
        while time.monotonic() < moment and not all(t.done() for t in tasks):
            if play_on:
                await asyncio.to_thread(tables.tables_rematch, bench)
            await asyncio.sleep(REMATCH_POLL)

    # The start-up (every seat's snapshot, every table's first deal and move) is a burst of
    # its own, longer than any warm-up with 100 tables on 2 cores; the window measures the
    # play that follows, and the start-up is reported apart (``Result.startup_seconds``).
    while (time.monotonic() - started < STARTUP_LIMIT
           and not all(any(p.log.latencies for p in players[i:i + 4])
                       for i in range(0, len(players), 4))):
        await asyncio.sleep(REMATCH_POLL)
    startup = time.monotonic() - started
    others = asyncio.create_task(beside(servers, bench)) if beside is not None else None
    await until(time.monotonic() + warmup)
    first = await asyncio.to_thread(Sample.take, servers)
    stop_at = first.at + duration
    for p in players:
        p.stop_at = stop_at
    await until(stop_at)
    last = await asyncio.to_thread(Sample.take, servers)
    if others is not None:
        others.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await others
    await asyncio.gather(*tasks)
    return players, first, last, startup


def game(servers: Servers, count: int, *, think: float, warmup: float, duration: float,
         routing: str = "split", play_on: bool = False, beside: Beside | None = None,
         **settings: Any) -> tuple[Result, list[tables.BenchTable], list[bots.Bot]]:
    """Play ``count`` tables of 4 bots, connected as ``routing`` says; measure the window
    after ``warmup``. With ``play_on``, a table whose match finishes starts another
    (``tables.tables_rematch``). ``beside`` runs from the start of play to the end of the
    window, beside the bots (another client's load). With a ``claim_pause_ms`` setting the
    bots answer windows at once and the result is of kind ``timers``, with how late each
    pause in the window ended (:func:`pause_lateness`)."""
    pause_ms = int(settings.get("claim_pause_ms", 0))
    whole = _whole(routing)
    bench = tables.tables_create(count, **settings)
    cookies = login_all(servers, bench, whole=whole)
    players, first, last, startup = asyncio.run(
        _play(servers, bench, cookies, think=think, warmup=warmup, duration=duration,
              play_on=play_on, whole=whole, beside=beside, quick_claims=bool(pause_ms))
    )
    accepted = sum(a["accepted"] - b["accepted"] for b, a in zip(first.stats, last.stats,
                                                                  strict=True))
    latencies = [lat for p in players for lat in p.log.latencies]
    result = Result("timers" if pause_ms else "game", len(servers.ports), count, think,
                    last.at - first.at, accepted, _window(latencies, first.at, last.at),
                    routing)
    if pause_ms:
        wall = time.time() - time.monotonic()  # monotonic moment + wall = wall-clock moment
        result.pause_ms = pause_ms
        result.pause_late_ms = pause_lateness(
            bench, pause_ms=pause_ms, since=datetime.fromtimestamp(first.at + wall, UTC),
            until=datetime.fromtimestamp(last.at + wall, UTC))
    result.startup_seconds = startup
    _fill_server_figures(result, first, last)
    logs = [p.log for p in players]
    result.problems = {
        **{f"refused {code}": n
           for code, n in sum((log.refused for log in logs), Counter()).items()},
        "late": sum(log.late for log in logs),
        "unanswered": unanswered(players),
        "gaps": lost_events(players),
        "duplicates": sum(log.duplicates for log in logs),
        "resnapshots": sum(log.resnapshots for log in logs),
    }
    return result, bench, players


def pause_lateness(bench: list[tables.BenchTable], *, pause_ms: int, since: datetime,
                   until: datetime) -> list[float]:
    """How late (ms) the claim pause of each discard the tables logged between ``since``
    and ``until`` ended: the entry of the window's release by its timer (the next public
    entry) minus the discard's entry and ``pause_ms``. With the pause on, every discard
    holds its window (H4). The discard's entry is written a moment after the pause starts
    (the move's own work), so the figure is low by that much."""
    from apps.matches.models import MatchEvent  # noqa: PLC0415  (needs Django set up)

    late: list[float] = []
    entries = (MatchEvent.objects.filter(match__room_id__in=[t.room_id for t in bench],
                                         created_at__gte=since)
               .order_by("match_id", "seq").values_list("match_id", "payload", "views",
                                                        "created_at"))
    opened: tuple[int, int, datetime] | None = None  # match, public version, time
    for match, payload, views, at in entries:
        if opened is not None and (match != opened[0] or views[-1] > opened[1]):
            if match == opened[0] and payload.get("release"):
                late.append((at - opened[2]).total_seconds() * 1000 - pause_ms)
            opened = None
        if at <= until and payload.get("action", {}).get("type") == "discard":
            opened = (match, views[-1], at)
    return late


def lost_events(players: list[bots.Bot]) -> int:
    """Skipped versions that held an event the bot's seat may see: events lost on the way.
    A seat gets no frame for a change it may see nothing of (H2), so a skip alone is not a
    loss; the log says whether one was."""
    from apps.matches.models import MatchEvent  # noqa: PLC0415  (needs Django set up)
    from majiang.actions import logged_for_viewer  # noqa: PLC0415

    lost = 0
    for player in players:
        for match, after, upto in player.log.skips:
            entries = MatchEvent.objects.filter(match_id=match, seq__gt=after, seq__lte=upto)
            if any(logged_for_viewer(logged, player.seat) is not None
                   for entry in entries for logged in entry.payload["events"]):
                lost += 1
    return lost


def unanswered(players: list[bots.Bot]) -> int:
    """Messages the server neither refused nor applied: each bot's sent messages less its
    refusals and the log entries its messages made (its seat's actions that were not
    timeouts, its ``contributed`` and ``ready_next``) in the matches it followed. A late
    answer (after :data:`.bots.CONFIRM_TIMEOUT`) is an answer. Counted either way, so
    that a miscount cannot hide a dropped message."""
    from apps.matches.models import MatchEvent  # noqa: PLC0415  (needs Django set up)

    applied: Counter[tuple[int, int | None]] = Counter()
    matches = set().union(*(p.log.matches for p in players))
    for match, seat, payload in MatchEvent.objects.filter(match_id__in=matches).values_list(
            "match_id", "seat", "payload"):
        if "action" in payload:
            applied[match, seat] += not payload["timeout"]
            continue
        for logged in payload["events"]:
            public = logged.get("public", {})
            if public.get("type") in ("contributed", "ready_next"):
                applied[match, public["seat"]] += 1
    return sum(
        abs(p.log.sent - p.log.refused.total()
            - sum(applied[match, p.seat] for match in p.log.matches))
        for p in players
    )


def _whole(routing: str) -> bool:
    if routing not in ("split", "whole"):
        raise ValueError(f"routing is split or whole, not {routing!r}")
    return routing == "whole"


def bare(servers: Servers, count: int, *, warmup: float, duration: float,
         routing: str = "split") -> Result:
    """Run ``count`` bare-transport groups of 4 at full speed, connected as ``routing``
    says; measure after ``warmup``."""

    async def main() -> tuple[transport.BareRun, Sample, Sample]:
        run = transport.BareRun(servers.ports, count, uuid.uuid4().hex[:8],
                                whole=_whole(routing))
        task = asyncio.create_task(run.run())
        await asyncio.wait_for(run.ready.wait(), 120)
        await asyncio.sleep(warmup)
        first = await asyncio.to_thread(Sample.take, servers)
        await asyncio.sleep(duration)
        last = await asyncio.to_thread(Sample.take, servers)
        run.stop_at = last.at
        await task
        return run, first, last

    run, first, last = asyncio.run(main())
    latencies = _window([x for log in run.logs for x in log.latencies], first.at, last.at)
    result = Result("bare", len(servers.ports), count, 0.0, last.at - first.at,
                    len(latencies), latencies, routing)
    _fill_server_figures(result, first, last)
    result.problems = {"stalls": sum(log.stalls for log in run.logs)}
    return result


async def _idle(servers: Servers, bench: list[tables.BenchTable], cookies: list[list[str]],
                settle: float) -> int:
    far = time.monotonic() + 3600
    players = [bots.Idle(servers.ports[0], t.code, cookies[i][s], stop_at=far,
                         connect_after=(4 * i + s) * bots.CONNECT_SPACING)
               for i, t in enumerate(bench) for s in range(4)]
    tasks = [asyncio.create_task(p.run()) for p in players]
    await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in players)), 120)
    await asyncio.to_thread(tables.tables_start, bench)
    await asyncio.sleep(settle)
    for p in players:
        p.stop_at = time.monotonic()
    rss = int(psutil.Process(servers.daphnes[0].proc.pid).memory_info().rss)
    await asyncio.gather(*tasks)
    return rss


def idle_memory(servers: Servers, players: int, *, settle: float = 3.0) -> tuple[int, int]:
    """Resident memory (bytes) of the first daphne before and with ``players`` idle players
    connected (their matches started, nobody acting)."""
    bench = tables.tables_create(players // 4)
    cookies = login_all(servers, bench)
    before = psutil.Process(servers.daphnes[0].proc.pid).memory_info().rss
    with_players = asyncio.run(_idle(servers, bench, cookies, settle))
    tables.tables_abandon(bench)
    return before, with_players


MEMORY_BATCH_LIMIT = 900.0
"""At most this many seconds for one batch of matches to be played to the end."""
MEMORY_SETTLE = 3.0
"""Seconds after a batch's players have closed their sockets before memory is read."""


def _rss(servers: Servers) -> int:
    return int(psutil.Process(servers.daphnes[0].proc.pid).memory_info().rss)


def match_memory(servers: Servers, matches: int, *, batch: int,
                 report: Callable[[str], None] = print) -> dict[str, Any]:
    """Resident memory (bytes) of the first daphne while ``matches`` matches are played to
    the end, in batches of ``batch`` new tables of new players, at full speed and with
    the rooms' fewest hands per match; each batch's players close their sockets when
    their match is over. Returns the memory when fresh, after each batch (with the
    matches finished so far), and after a full garbage collection in the process at the
    end (``/__bench__/gc``). A batch that fails ends the figure there (``error``)."""
    fresh = _rss(servers)
    batches: list[dict[str, Any]] = []
    finished, error = 0, None
    while finished < matches:
        try:
            result, bench, _ = game(servers, min(batch, matches - finished), think=0.0,
                                    warmup=0.0, duration=MEMORY_BATCH_LIMIT)
        except Exception as exc:  # reported with the figure
            error = f"{type(exc).__name__} in the batch after {finished} matches"
            report(f"memory: {error}")
            tables.tables_abandon_all()  # the failed batch's, which its timers would play on
            break
        done = sum(m.status == "finished" for m in tables.matches_of(bench))
        tables.tables_abandon(bench)
        if not done:
            error = f"no match of the batch after {finished} matches finished"
            break
        finished += done
        time.sleep(MEMORY_SETTLE)
        batches.append({"matches": finished, "rss": _rss(servers),
                        "actions_per_second": result.per_second})
        report(f"memory: {finished} matches finished, "
               f"{batches[-1]['rss'] / 2**20:.1f} MiB ({result.per_second:.0f} actions/s)")
    port = servers.ports[0]
    collected = requests.get(f"http://{bots.HOST}:{port}/__bench__/gc", timeout=60).json()
    return {"fresh": fresh, "batches": batches, "batch": batch, "error": error,
            "collected": collected["collected"], "after_gc": _rss(servers),
            "hands": tables.room_settings(tables.VARIANTS[0])["hands_per_match"]}
