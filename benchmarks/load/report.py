"""Formatting the load benchmark's results: console lines and the ``docs/benchmarks.md``
section (between markers, so the rules-engine section above it is kept)."""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path
from typing import Any

from .instrument import SLOW_MOVE_MS
from .scenario import Result, pooled

BEGIN = "<!-- load-benchmark:begin -->"
END = "<!-- load-benchmark:end -->"
DEPLOY_BEGIN = "<!-- load-capacity:begin -->"
DEPLOY_END = "<!-- load-capacity:end -->"
"""The capacity statement of ``docs/deploy.md``, written from the same results."""
RATIO_TABLES = 10
"""One daphne at this many tables, full speed: the game's share of the bare relay."""
CAPACITY_THINK, CAPACITY_P99_MS = 3.0, 100.0
"""The capacity line: tables one daphne serves at this think time within this p99."""
WARMUP_MATCHES = 100
"""The memory figure's warm-up: the matches finished before its reference reading."""
PROBLEMS = ("gaps", "duplicates", "resnapshots", "unanswered")
"""Stream checks that count as an event lost or duplicated (refusals do not)."""


def cpu_model() -> str:
    """The CPU model from ``/proc/cpuinfo`` (or "unknown")."""
    try:
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def line(r: Result) -> str:
    """One result on one console line."""
    return (
        f"{r.kind:4} p={r.processes} {r.routing:5} tables={r.tables:3} think={r.think:.1f}s "
        f"run={r.repeat + 1} "
        f"{r.per_second:8.1f}/s p50={r.percentile(50):7.2f}ms p99={r.percentile(99):7.2f}ms "
        f"app_cpu={r.per_action(r.app_cpu_ms):.2f}ms/act "
        f"store_cpu={r.per_action(r.store_cpu_ms):.2f}ms/act stmts={r.statements} "
        f"gc_full={r.gc_full} gc_max={r.gc_max_ms:.0f}ms "
        f"busy={100 * r.machine_busy:.0f}% "
        f"slow_moves={r.slow_moves}({r.slow_moves_db} db) "
        f"startup={r.startup_seconds:.1f}s problems={r.problems}"
    )


def _fmt(value: float, digits: int = 1) -> str:
    return "—" if math.isnan(value) else f"{value:,.{digits}f}"


Key = tuple[int, str, int, float]
"""(processes, routing, tables, think) of a measurement."""


def _runs(results: list[Result], kind: str, key: Key) -> list[Result]:
    """The repeated runs of one measurement, in order."""
    return sorted((r for r in results if r.kind == kind
                   and (r.processes, r.routing, r.tables, r.think) == key),
                  key=lambda r: r.repeat)


def _keys(results: list[Result], *, thinking: bool) -> list[Key]:
    """The game measurements (full speed, or with think time), in the order first run."""
    return list(dict.fromkeys((r.processes, r.routing, r.tables, r.think) for r in results
                              if r.kind == "game" and (r.think > 0) == thinking))


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _rate(results: list[Result], kind: str, key: Key) -> float:
    return _median([r.per_second for r in _runs(results, kind, key)])


def _ratios(results: list[Result], key: Key) -> list[float]:
    """Game ÷ bare of each repeat, each game run against the bare run just before it."""
    bare = {r.repeat: r for r in _runs(results, "bare", key)}
    return [g.per_second / bare[g.repeat].per_second for g in _runs(results, "game", key)
            if g.repeat in bare and bare[g.repeat].per_second]


def _spread(values: list[float], scale: float = 1.0, digits: int = 0, unit: str = "") -> str:
    """`` (min–max unit)`` of several runs ("" for one)."""
    if len(values) < 2:
        return ""
    return (f" ({_fmt(scale * min(values), digits)}–{_fmt(scale * max(values), digits)}"
            f"{unit})")


def _percent(share: float) -> str:
    return "—" if math.isnan(share) else f"{100 * share:.0f}%"


def _p99s(results: list[Result], key: Key) -> list[float]:
    return [r.percentile(99) for r in _runs(results, "game", key)]


def _capacity_runs(results: list[Result]) -> tuple[list[Result], Result | None]:
    """The capacity search's runs by table count, and the largest count that met the p99
    before the first that missed (``None`` if the first missed)."""
    runs = sorted((r for r in results if r.kind == "game" and r.think == CAPACITY_THINK
                   and r.processes == 1), key=lambda r: r.tables)
    best = None
    for r in runs:
        if not r.percentile(99) < CAPACITY_P99_MS:
            break
        best = r
    return runs, best


def _capacity_head(runs: list[Result], best: Result | None) -> str:
    if best is None:
        return (f"fewer than {runs[0].tables} tables per daphne process at "
                f"{CAPACITY_THINK:.0f} s think with p99 < {CAPACITY_P99_MS:.0f} ms")
    return (f"{best.tables} tables per daphne process at {CAPACITY_THINK:.0f} s think "
            f"with p99 < {CAPACITY_P99_MS:.0f} ms")


def capacity(results: list[Result]) -> str:
    """The capacity line: the most tables one daphne served at :data:`CAPACITY_THINK`
    think with p99 < :data:`CAPACITY_P99_MS`, before the first count that missed."""
    runs, best = _capacity_runs(results)
    if not runs:
        return "**Capacity: not measured.**"
    missed = [r for r in runs if best is None or r.tables > best.tables]
    head = f"**Capacity: {_capacity_head(runs, best)}**"
    detail = [f"{r.tables} tables: p99 {_fmt(r.percentile(99))} ms, "
              f"{_fmt(r.per_second)} actions/s" for r in runs]
    tail = (f"{missed[0].tables} tables missed" if missed
            else "the largest count tried; more may fit")
    return (f"{head} (one daphne process, which takes about one core; PostgreSQL, Redis, "
            f"Celery and the bots share the other): {'; '.join(detail)}; {tail}.")


def _figures(results: list[Result], args: argparse.Namespace) -> list[str]:
    """The run's main figures (medians of the repeated runs)."""
    rows = []
    ratios = _ratios(results, (1, "whole", RATIO_TABLES, 0.0))
    rows.append(
        f"- One daphne, {RATIO_TABLES} tables, full speed: game actions/s ÷ bare relay "
        f"messages/s, median of {_count(len(ratios), 'back-to-back pair')}: "
        f"{_percent(_median(ratios))}"
        f"{_spread(ratios, 100, unit='%')}.")
    each = _p99s(results, (1, "whole", args.think_tables, 1.0))
    runs_of = (f" (median of {len(each)} runs, {_fmt(min(each))}–{_fmt(max(each))} ms)"
               if len(each) > 1 else "")
    rows.append(f"- One daphne, {args.think_tables} tables, 1 s think: p99 "
                f"{_fmt(_median(each))} ms{runs_of}.")
    steady = {k: r.steady_statements for k in _keys(results, thinking=False)
              if (r := pooled(_runs(results, "game", k))).steady_statements is not None}
    whole = "/".join(str(v) for v in sorted({v for k, v in steady.items() if k[1] == "whole"}))
    split = "/".join(str(v) for v in sorted({v for k, v in steady.items() if k[1] == "split"}))
    rows.append(
        f"- SQL statements per ordinary move (the most common count; BEGIN, COMMIT and "
        f"savepoints not counted): {whole or '—'} with rooms whole"
        f"{f', {split} with tables split over two daphne' if split else ''}.")
    games = [r for r in results if r.kind == "game"]
    updates = sum(r.match_updates for r in games)
    hot = sum(r.match_hot_updates for r in games)
    rows.append(
        f"- HOT share of match-row updates (the new row version written on its page, no "
        f"index entry), over every game window: {_percent(hot / updates if updates else math.nan)}"
        f" of {updates:,} updates (each measurement's share in the tables below).")
    rows.extend(_timers(results))
    one, two, scale = _scale(results, "game", args.scale_tables)
    bare_one, bare_two, bare_scale = _scale(results, "bare", args.scale_tables)
    alone = _runs(results, "game", (1, "whole", args.scale_tables, 0.0))
    rows.append(
        f"- Two daphne, rooms routed whole, {args.scale_tables} tables, full speed: "
        f"{_fmt(two)} vs {_fmt(one)} actions/s with one = {_fmt(scale, 2)}× (bare relay: "
        f"{_fmt(bare_two)} vs {_fmt(bare_one)} = {_fmt(bare_scale, 2)}×; the machine was "
        f"{_percent(_median([r.machine_busy for r in alone]))} busy with one daphne).")
    runs = _runs(results, "game", (2, "split", args.scale_tables, 0.0))
    lost = {name: sum(r.problems.get(name, 0) for r in runs) for name in PROBLEMS}
    late = sum(r.problems.get("late", 0) for r in runs)
    rows.append(
        f"- Two daphne, every table split over both, {args.scale_tables} tables: "
        f"{', '.join(f'{k} {v}' for k, v in lost.items())} over {_count(len(runs), 'run')} "
        f"(answered after 5 s: {late}); {_fmt(_median([r.per_second for r in runs]))} "
        f"actions/s.")
    return rows


def _timers(results: list[Result]) -> list[str]:
    """How late the claim pauses' timers ended them (the ``timers`` runs)."""
    rows = []
    for r in (r for r in results if r.kind == "timers" and len(r.pause_late_ms) > 1):
        late = r.pause_late_ms
        p95 = statistics.quantiles(late, n=100)[94]
        rows.append(
            f"- Timers under load: one daphne, {r.tables} tables, {r.think:.0f} s think, a "
            f"{r.pause_ms} ms claim pause (every discard holds its window; the bots answer "
            f"a window at once, so the pause's timer ends it): a pause ended late by median "
            f"{_fmt(_median(late), 0)} ms, **p95 {_fmt(p95, 0)} ms**, max "
            f"{_fmt(max(late), 0)} ms over {len(late):,} windows; moves p99 "
            f"{_fmt(r.percentile(99))} ms, {_fmt(r.per_second)} actions/s.")
    return rows


def _scale(results: list[Result], kind: str, tables: int) -> tuple[float, float, float]:
    """Median rates of one daphne and of two with rooms whole, and two ÷ one."""
    one = _rate(results, kind, (1, "whole", tables, 0.0))
    two = _rate(results, kind, (2, "whole", tables, 0.0))
    return one, two, two / one if one else float("nan")


def _busy(r: Result | None) -> str:
    return "—" if r is None else _percent(r.machine_busy)


def _throughput_table(results: list[Result]) -> list[str]:
    rows = [
        "| daphne | routing | tables | game actions/s | bare relay/s | ratio (range) "
        "| p50 / p99 ms (game) | p50 / p99 ms (bare) | app CPU ms/action "
        "| SQL/move steady (mean) | HOT match-row updates | machine busy (game / bare) "
        "| start-up s |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for key in _keys(results, thinking=False):
        game = pooled(_runs(results, "game", key))
        bares = _runs(results, "bare", key)
        ref = pooled(bares) if bares else None
        ratios = _ratios(results, key)
        bare = (f"{_fmt(ref.percentile(50), 2)} / {_fmt(ref.percentile(99), 2)}"
                if ref else "—")
        rows.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {_fmt(_rate(results, 'game', key))} "
            f"| {_fmt(_rate(results, 'bare', key))} "
            f"| {_percent(_median(ratios))}{_spread(ratios, 100, unit='%')} "
            f"| {_fmt(game.percentile(50), 2)} / {_fmt(game.percentile(99), 2)} | {bare} "
            f"| {_fmt(game.per_action(game.app_cpu_ms), 2)} "
            f"| {game.steady_statements} ({_fmt(game.mean_statements, 2)}) "
            f"| {_percent(game.hot_share)} "
            f"| {_busy(game)} / {_busy(ref)} | {_fmt(game.startup_seconds)} |"
        )
    return rows


def _think_table(results: list[Result]) -> list[str]:
    rows = [
        "| daphne | tables | think | actions/s | p50 ms | p99 ms, median (each run) "
        f"| slow moves > {SLOW_MOVE_MS:.0f} ms (waiting on the database) | start-up s "
        "| app CPU ms/action | SQL/move steady (mean) | HOT match-row updates "
        "| full GCs (longest pause) | machine busy |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for key in _keys(results, thinking=True):
        runs = _runs(results, "game", key)
        r = pooled(runs)
        each = [run.percentile(99) for run in runs]
        rows.append(
            f"| {key[0]} | {key[2]} | {key[3]:.0f} s | {_fmt(_rate(results, 'game', key))} "
            f"| {_fmt(r.percentile(50), 2)} "
            f"| {_fmt(_median(each), 2)} ({' / '.join(_fmt(v, 1) for v in each)}) "
            f"| {r.slow_moves} ({r.slow_moves_db}) | {_fmt(r.startup_seconds)} "
            f"| {_fmt(r.per_action(r.app_cpu_ms), 2)} "
            f"| {r.steady_statements} ({_fmt(r.mean_statements, 2)}) "
            f"| {_percent(r.hot_share)} "
            f"| {r.gc_full} ({_fmt(r.gc_max_ms, 0)} ms) | {_busy(r)} |"
        )
    return rows


def _problems(results: list[Result]) -> list[str]:
    rows = []
    for r in results:
        bad = {k: v for k, v in r.problems.items() if v}
        if bad:
            rows.append(f"- {r.kind}, {r.processes} daphne {r.routing}, {r.tables} tables, "
                        f"think {r.think:.0f} s, run {r.repeat + 1}: {bad}")
    return rows or ["- none (no gaps, duplicates, re-snapshots, late or unanswered messages, "
                    "refusals or stalls)"]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _mib(value: int) -> str:
    return f"{value / 2**20:,.1f} MiB"


def _memory(memory: dict[str, Any]) -> list[str]:
    """The memory figures: idle players, and matches played to the end."""
    delta = (memory["after"] - memory["before"]) / memory["players"] * 100
    rows = [
        f"- Idle players: one fresh daphne process, {_mib(memory['before'])} resident, "
        f"{_mib(memory['after'])} with {memory['players']} idle players connected to their "
        f"started matches ({delta / 2**20:.1f} MiB per 100 idle players).",
    ]
    matches = memory.get("matches")
    if not matches or not matches["batches"]:
        stopped = f" ({matches['error']})" if matches and matches.get("error") else ""
        return [*rows, f"- Matches played to the end: not measured{stopped}."]
    batches = matches["batches"]
    first = next((b for b in batches if b["matches"] >= WARMUP_MATCHES), batches[0])
    last = batches[-1]
    growth = last["rss"] - first["rss"]
    stopped = f" The run stopped there: {matches['error']}." if matches.get("error") else ""
    rows += [
        f"- Matches played to the end ({matches['hands']} hands each, batches of "
        f"{matches['batch']} new tables of new players at full speed), resident memory of "
        f"another fresh daphne process: {_mib(matches['fresh'])} fresh; "
        f"**{_mib(first['rss'])} after the first {first['matches']:,}** (the warm-up); "
        f"**{_mib(last['rss'])} after {last['matches']:,}**; "
        f"{_mib(matches['after_gc'])} after a full garbage collection at the end "
        f"({matches['collected']:,} objects found unreachable).",
        f"- Growth from {first['matches']:,} to {last['matches']:,} finished matches: "
        f"**{growth / 2**20:+,.1f} MiB**"
        + (f" ({growth / 2**20 / (last['matches'] - first['matches']) * 100:+,.1f} MiB per "
           "100)" if last["matches"] > first["matches"] else "")
        + ". After each batch: "
        + ", ".join(f"{b['matches']:,}: {b['rss'] / 2**20:,.0f}" for b in batches)
        + f" MiB.{stopped}",
    ]
    return rows


def markdown(results: list[Result], memory: dict[str, Any], machine: dict[str, Any],
             args: argparse.Namespace) -> str:
    """The load section of ``docs/benchmarks.md``."""
    lines = [
        BEGIN,
        "# Load benchmark",
        "",
        capacity(results),
        "",
        f"Generated by `{machine['command']}` on "
        f"{machine['date']} in {machine['minutes']:.0f} minutes: {machine['cpu']}, "
        f"{machine['cpus']} cores, {machine['system']}, Python {machine['python']}, "
        f"PostgreSQL {machine['postgres']}, Redis {machine['redis']}, everything (the bots "
        "too) on this machine, on 127.0.0.1. Rerun it to refresh this section (and the "
        "capacity statement of `docs/deploy.md`).",
        "",
        "## Figures",
        "",
        *_figures(results, args),
        "",
        "## Full speed (think time 0): game vs. bare relay",
        "",
        *_throughput_table(results),
        "",
        "## With think time",
        "",
        *_think_table(results),
        "",
        "## Memory",
        "",
        *_memory(memory),
        "",
        "## Method",
        "",
        "- Servers: `daphne benchmarks.load.asgi:application` (the platform's ASGI app, plus "
        "the bare relay, a counters endpoint and a garbage-collection endpoint) and one "
        "Celery worker (two processes as in production, `--beat`: the timer sweep) per "
        "daphne, on one PostgreSQL database (psycopg's pool) and one Redis database; "
        "production settings except MD5 passwords, plain-HTTP cookies and "
        "no per-connection message limit (`benchmarks/load/settings.py`, `instrument.py`). "
        "The database (`--database-url`) is dropped and re-created, so its name must start "
        "with `bench` (any other is refused: it protects real data).",
        "- Routing: *whole* sends every seat of table *t* to daphne *t* mod *n* (as nginx "
        "`hash` on the room path does); *split* sends seat *i* to daphne *i* mod *n*, so "
        "every table is spread over the processes. One daphne: both are the same.",
        "- Bots (`bots.py`) log in over HTTP and play from their own observation (a win when "
        "offered, else a random legal action), one message in flight each; rooms alternate "
        "duyun / zigong, 16 hands per match, and a finished match is followed by another. "
        "Latency: a message sent → the frame confirming it. Each bot checks its stream: "
        "no event it may see missing from its frames (*gaps*: a skipped version, checked against "
        "the log, held one; H2 lets a seat skip versions it may see nothing of), versions "
        "never repeated (*duplicates*), no second snapshot of "
        "a match (*re-snapshots*), every message answered within 5 s (else *late*), and "
        "after the run, against the log, every message sent either refused or applied "
        "(else *unanswered*: a message lost).",
        "- Bare relay (`bare.py`, `transport.py`): groups of 4 connections routed like the "
        "tables, through the same channel layer, taking turns with one message in flight; "
        "ratio = game actions/s ÷ bare relay/s, run back to back at the same table count.",
        "- Actions/s: messages accepted by `match_act`, counted in the servers. SQL/move: "
        "statements Django sent during one accepted `match_act` (BEGIN, COMMIT and "
        "savepoints not counted); steady = the most common count, i.e. an ordinary move; "
        "the mean includes deals and hand ends. App CPU: daphne and Celery processes.",
        "- HOT match-row updates: the window's change of `n_tup_hot_upd` ÷ that of "
        "`n_tup_upd` for `matches_match` in `pg_stat_user_tables` (each server connection "
        "reports its counts at most once a second, so both ends lag by up to a second). "
        "An update is HOT when no index names a column it changes and the new row version "
        "fits on the row's page; PostgreSQL prunes a page's old versions only once no "
        "transaction on the server, in any database, is older than them.",
        f"- Every measurement but the capacity search runs {_times(args.repeats)}, bare and "
        "game alternating; rates and ratios are medians of runs (range in brackets), "
        "latency percentiles are over all runs' moves, the think-time p99 is the median of "
        "the runs' own. A game run starts its tables, waits until each has had a move "
        "confirmed (*start-up*), then warms up "
        f"{args.warmup:.0f} s and measures {args.duration:.0f} s (with think time: "
        f"{3 * args.warmup:.0f} s and {2 * args.duration:.0f} s). Capacity: one run each at "
        f"{', '.join(map(str, args.capacity_tables))} tables, {CAPACITY_THINK:.0f} s think, "
        "stopping at the first that misses.",
        "- Memory: resident set size (RSS) of a daphne process (psutil). Idle players: a "
        "fresh process, then with the players connected for 3 s. Matches played to the end: "
        "another fresh process (and its worker); each batch creates new tables and players, "
        "who log in, play their one match at full speed to its end and close their sockets; "
        "the memory is read 3 s after the batch's last socket closed, and at the end again "
        "after `gc.collect()` in the process (`GET /__bench__/gc`).",
        "- The machine may be shared: *machine busy* is the share of all its CPU time in use "
        "during the window.",
        "",
        "## Stream checks during the runs",
        "",
        *_problems(results),
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


def deploy_capacity(results: list[Result], machine: dict[str, Any]) -> str:
    """The capacity statement of ``docs/deploy.md``, between its markers."""
    runs, best = _capacity_runs(results)
    if not runs:
        statement = "not measured by the last load benchmark run"
    else:
        tried = "; ".join(f"{r.tables} tables: p99 {_fmt(r.percentile(99))} ms, "
                          f"{_fmt(r.per_second)} actions/s" for r in runs)
        statement = (f"**{_capacity_head(runs, best)}**, measured by the load benchmark "
                     f"(`{machine['command']}`, {machine['date']}, {machine['cpus']} cores "
                     f"shared by daphne, its Celery worker, PostgreSQL, Redis and the bots: "
                     f"{tried})")
    return "\n".join([
        DEPLOY_BEGIN,
        f"- Capacity: {statement}. Actions per second and latency per process: "
        "`docs/benchmarks.md` (load section).",
        DEPLOY_END,
    ]) + "\n"


def write(path: Path, section: str, *, begin: str = BEGIN, end: str = END) -> None:
    """Replace the section of ``path`` between ``begin`` and ``end`` (the load section's
    markers unless told), or append it, keeping everything else."""
    text = path.read_text()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + section + (("\n" + tail) if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
