"""Formatting the load benchmark's results: console lines and the ``docs/benchmarks.md``
section (between markers, so the rules-engine section above it is kept)."""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path
from typing import Any

from .instrument import SLOW_MOVE_MS
from .scenario import THINK_WARMUP, Result, pooled

BEGIN = "<!-- load-benchmark:begin -->"
END = "<!-- load-benchmark:end -->"
LATENCY_GOAL_MS = 50.0
RATIO_GOAL = 0.5
STATEMENTS_GOAL = 3


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
        f"{r.kind:4} p={r.processes} tables={r.tables:3} think={r.think:.1f}s "
        f"run={r.repeat + 1} "
        f"{r.per_second:8.1f}/s p50={r.percentile(50):7.2f}ms p99={r.percentile(99):7.2f}ms "
        f"app_cpu={r.per_action(r.app_cpu_ms):.2f}ms/act stmts={r.statements} "
        f"health={r.health_checks} gc_full={r.gc_full} gc_max={r.gc_max_ms:.0f}ms "
        f"busy={100 * r.machine_busy:.0f}% load={r.load:.1f} "
        f"slow_moves={r.slow_moves}({r.slow_moves_db} db) "
        f"startup={r.startup_seconds:.1f}s problems={r.problems}"
    )


def _fmt(value: float, digits: int = 1) -> str:
    return "—" if math.isnan(value) else f"{value:,.{digits}f}"


def _runs(results: list[Result], kind: str, processes: int, tables: int,
          think: float = 0.0) -> list[Result]:
    """The repeated runs of one measurement, in order."""
    return sorted((r for r in results if (r.kind, r.processes, r.tables, r.think)
                   == (kind, processes, tables, think)), key=lambda r: r.repeat)


def _measurements(results: list[Result], *, thinking: bool) -> list[tuple[int, int, float]]:
    """(processes, tables, think) of each game measurement, in the order first run."""
    keys = [(r.processes, r.tables, r.think) for r in results
            if r.kind == "game" and (r.think > 0) == thinking]
    return list(dict.fromkeys(keys))


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _ratios(results: list[Result], processes: int, tables: int) -> list[float]:
    """Game ÷ bare of each repeat, each game run against the bare run just before it."""
    bare = {r.repeat: r for r in _runs(results, "bare", processes, tables)}
    return [g.per_second / bare[g.repeat].per_second
            for g in _runs(results, "game", processes, tables)
            if g.repeat in bare and bare[g.repeat].per_second]


def _spread(values: list[float], scale: float = 1.0, digits: int = 0, unit: str = "") -> str:
    """`` (min–max unit)`` of several runs ("" for one)."""
    if len(values) < 2:
        return ""
    return (f" ({_fmt(scale * min(values), digits)}–{_fmt(scale * max(values), digits)}"
            f"{unit})")


def _throughput_table(results: list[Result]) -> list[str]:
    rows = [
        "| daphne | tables | game actions/s | bare broadcasts/s | ratio (range) "
        "| p50 / p99 ms (game) | p50 / p99 ms (bare) | app CPU ms/action "
        "| Redis+PG CPU ms/action | SQL/action steady (mean) | health checks/action "
        "| machine busy (game / bare) | load avg (game / bare) | start-up s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: |",
    ]
    for processes, tables, _ in _measurements(results, thinking=False):
        games = _runs(results, "game", processes, tables)
        bares = _runs(results, "bare", processes, tables)
        game = pooled(games)
        ref = pooled(bares) if bares else None
        ratios = _ratios(results, processes, tables)
        bare = (f"{_fmt(ref.percentile(50), 2)} / {_fmt(ref.percentile(99), 2)}"
                if ref else "—")
        rows.append(
            f"| {processes} | {tables} | {_fmt(_median([g.per_second for g in games]))} "
            f"| {_fmt(_median([b.per_second for b in bares]))} "
            f"| {_fmt(100 * _median(ratios), 0)}%{_spread(ratios, 100, unit=' %')} "
            f"| {_fmt(game.percentile(50), 2)} / {_fmt(game.percentile(99), 2)} | {bare} "
            f"| {_fmt(game.per_action(game.app_cpu_ms), 2)} "
            f"| {_fmt(game.per_action(game.services_cpu_ms), 2)} "
            f"| {game.steady_statements} ({_fmt(game.mean_statements, 2)}) "
            f"| {_fmt(game.per_action(game.health_checks), 2)} "
            f"| {_busy(game)} / {_busy(ref)} "
            f"| {_fmt(game.load)} / {_fmt(ref.load) if ref else '—'} "
            f"| {_fmt(game.startup_seconds)} |"
        )
    return rows


def _busy(r: Result | None) -> str:
    return "—" if r is None else f"{_fmt(100 * r.machine_busy, 0)}%"


def _think_table(results: list[Result]) -> list[str]:
    rows = [
        "| daphne | tables | think | actions/s | p50 ms | p99 ms, median (each run) "
        "| p99 < 50 ms | slow moves (waiting on the database) | start-up s "
        "| p99 ms during start-up | app CPU ms/action | SQL/action steady (mean) "
        "| full GCs (longest pause) | machine busy | load avg |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: |",
    ]
    for processes, tables, think in _measurements(results, thinking=True):
        runs = _runs(results, "game", processes, tables, think)
        r = pooled(runs)
        each = [run.percentile(99) for run in runs]
        p99 = _median(each)
        rows.append(
            f"| {processes} | {tables} | {think:.0f} s "
            f"| {_fmt(_median([run.per_second for run in runs]))} "
            f"| {_fmt(r.percentile(50), 2)} "
            f"| {_fmt(p99, 2)} ({' / '.join(_fmt(v, 1) for v in each)}) "
            f"| {'yes' if p99 < LATENCY_GOAL_MS else 'no'} "
            f"| {r.slow_moves} ({r.slow_moves_db}) "
            f"| {_fmt(r.startup_seconds)} | {_fmt(r.percentile(99, warmup=True), 2)} "
            f"| {_fmt(r.per_action(r.app_cpu_ms), 2)} "
            f"| {r.steady_statements} ({_fmt(r.mean_statements, 2)}) "
            f"| {r.gc_full} ({_fmt(r.gc_max_ms, 0)} ms) "
            f"| {_busy(r)} | {_fmt(r.load)} |"
        )
    return rows


def _goals(results: list[Result]) -> list[str]:
    """Each goal with its measured figures and whether this run met it (on the median of
    the repeated runs)."""
    rows = []
    for processes, tables, _ in _measurements(results, thinking=False):
        ratios = _ratios(results, processes, tables)
        if not ratios:
            continue
        ratio = _median(ratios)
        rows.append(
            f"- Game ≥ {RATIO_GOAL:.0%} of bare transport, {processes} daphne, "
            f"{tables} tables: median of {len(ratios)} back-to-back pairs "
            f"{ratio:.0%}{_spread(ratios, 100, unit=' %')}: "
            f"**{'met' if ratio >= RATIO_GOAL else 'not met'}**"
        )
    for processes, tables, think in _measurements(results, thinking=True):
        each = [run.percentile(99) for run in _runs(results, "game", processes, tables, think)]
        p99 = _median(each)
        rows.append(
            f"- p99 < {LATENCY_GOAL_MS:.0f} ms at {tables} tables, {think:.0f} s think, "
            f"{processes} daphne: median of {len(each)} runs {_fmt(p99, 1)} ms"
            f"{_spread(each, digits=1, unit=' ms')}: "
            f"**{'met' if p99 < LATENCY_GOAL_MS else 'not met'}**"
        )
    for processes in sorted({r.processes for r in results if r.kind == "game"}):
        steady = {count for r in results if r.kind == "game" and r.processes == processes
                  and (count := r.steady_statements) is not None}
        if steady:
            met = max(steady) <= STATEMENTS_GOAL
            rows.append(
                f"- ≤ {STATEMENTS_GOAL} SQL statements per ordinary action, {processes} "
                f"daphne: steady count {'/'.join(map(str, sorted(steady)))}: "
                f"**{'met' if met else 'not met'}**"
            )
    return rows


def _problems(results: list[Result]) -> list[str]:
    rows = []
    for r in results:
        bad = {k: v for k, v in r.problems.items() if v}
        if bad:
            rows.append(f"- {r.kind}, {r.processes} daphne, {r.tables} tables, think "
                        f"{r.think:.0f} s, run {r.repeat + 1}: {bad}")
    return rows or ["- none (no gaps, duplicates, re-snapshots, refusals or stalls)"]


def markdown(results: list[Result], memory: dict[str, Any], machine: dict[str, Any],
             args: argparse.Namespace) -> str:
    """The load section of ``docs/benchmarks.md``."""
    best = {p: max((_median([r.per_second for r in _runs(results, "game", p, t)])
                    for q, t, _ in _measurements(results, thinking=False) if q == p),
                   default=0.0)
            for p in sorted({q for q, _, _ in _measurements(results, thinking=False)})}
    lines = [
        BEGIN,
        "# Load benchmark",
        "",
        "Generated by `.venv/bin/python -m benchmarks.load.run --write-docs` (about "
        f"{machine['minutes']:.0f} minutes); rerun it to refresh this section. Method and "
        "definitions: `benchmarks/load/` and the notes below.",
        "",
        "## Method",
        "",
        "- Servers: `daphne benchmarks.load.asgi:application` (the platform's ASGI app plus "
        "the bare-transport consumer and a counters endpoint) with its two move processes "
        "(`apps/matches/movers.py`), and one Celery worker (solo pool) per daphne, all on "
        "one Redis database and one PostgreSQL database "
        "(`DATABASE_URL` with `conn_max_age=600`). Seat *i* of every table logs in over "
        "HTTP (login form, CSRF) and connects through daphne *i* mod *n*, so with two "
        "processes every table is split over both.",
        "- Bots (`benchmarks/load/bots.py`) play from their own observation: a win when "
        "offered, else a random legal action; `ready_next` between hands; one message in "
        "flight. Latency: sending a message → receiving the frame whose events confirm it. "
        "Rooms alternate duyun / zigong, 16 hands per match, 15-second turns. A table "
        "whose match finishes starts another with the same players (a full-speed table "
        "plays 16 hands in about 3 s), so every table plays through the whole window.",
        "- Bare transport (`benchmarks/load/bare.py`): the same number of groups of 4 "
        "connections on the same processes and Redis, through the same channel layer "
        "(Redis pub/sub, `config/settings.py`); a consumer that `group_send`s each "
        "received frame to its group; the members take turns, one message in flight per "
        "group, like a table. Ratio = game actions/s ÷ bare broadcasts/s at the same "
        "table count and process count.",
        "- Actions/s: client messages accepted by `match_act` (server-side count), per "
        "second of the measured window. SQL/action: statements Django sent while handling "
        "one accepted message (`connection.execute_wrapper`), steady state = the most "
        "common count (ordinary actions), mean includes deals and settlements. Health "
        "check pings (`CONN_HEALTH_CHECKS`' `SELECT 1`, which `apps/core/postgresql` sends "
        "only when a reused connection's socket shows that something arrived) are listed "
        "apart. BEGIN/COMMIT are not counted.",
        "- App CPU: user+system CPU of the daphne processes (with their move processes) and "
        "the Celery processes over the window ÷ "
        "actions. Redis+PG CPU: all `redis-server` and `postgres` processes of the machine "
        "(which other work may share).",
        "- GC: full (generation 2) garbage collections in the daphne processes during the "
        "window, and the longest collector pause of any generation; a pause stops the "
        "event loop (or a move process), so it shows in the latency tail. Counted in each "
        "daphne process and in its move processes.",
        "- Configuration: production settings (`DEBUG=0`) except that the benchmark's "
        "settings (`benchmarks/load/settings.py`) use an MD5 password hasher (400 PBKDF2 "
        "logins would take minutes), plain-HTTP cookies and no static manifest, and the "
        "per-connection limit of 10 messages/s is lifted so that saturation measures "
        "capacity, not policy. After each game measurement the unfinished matches are "
        "dissolved so that their timers stop playing them.",
        "- Memory: resident set size of a fresh daphne process after 100 players have logged "
        "in, then with those 100 players connected to 25 started matches and idle for 3 s "
        "(first connections also load code that the process had not used yet).",
        "",
        "## Machine",
        "",
        f"- Date: {machine['date']}; {machine['cpu']}, {machine['cpus']} cores; "
        f"{machine['system']}; Python {machine['python']}",
        f"- PostgreSQL {machine['postgres']}, Redis {machine['redis']}, all on 127.0.0.1; "
        "the bots run on the same machine and share its 2 cores with the servers.",
        f"- Each measurement is run {args.repeats} times, and the runs of each table count "
        "alternate: bare, game, bare, game, … at 1, 10 and 100 tables in turn, then the "
        "think-time runs. A rate is the median of its runs, a ratio the median of the "
        "back-to-back pairs (range in brackets), a goal is judged on the median; latency "
        "percentiles, CPU and SQL per action are over all runs' actions together, except "
        "the think-time p99, a median of the runs' own. Each game run: first the "
        "*start-up*, from the last match started until every table has had an action "
        "confirmed (every seat's snapshot, every first deal; its length is listed as "
        "*start-up s*, and the p99 of the actions sent before the window apart). Then "
        f"{args.warmup:.0f} s warm-up (think-time runs: {THINK_WARMUP:.0f} s) and "
        f"{args.duration:.0f} s measured (think-time runs: {2 * args.duration:.0f} s). "
        f"Bare transport: {args.warmup:.0f} s warm-up, then {args.duration:.0f} s.",
        "- Slow moves: accepted messages whose `match_act` took over "
        f"{SLOW_MOVE_MS:.0f} ms in the server "
        "(`benchmarks/load/instrument.py`), and in brackets those that spent most of it "
        "waiting for PostgreSQL: where a think-time tail comes from. A tail with no slow "
        "moves was spent outside the move (an event loop, a queue, the bots' process).",
        "- The machine is shared: other work (for example another engineer's test suite) may "
        "run at the same time and take CPU from the servers and from the bare reference "
        "alike. Each row lists how busy the whole machine was during its window and the "
        "one-minute load average at its end; with 2 cores a load above 2 means processes were "
        "waiting for a CPU. Rates are then low and noisy; the game/bare ratio (measured "
        "back to back) and CPU per action are the steadier figures.",
        "",
        "## Goals",
        "",
        *_goals(results),
        "",
        "## Full speed (think time 0): game vs. bare transport",
        "",
        *_throughput_table(results),
        "",
        "## 100 tables, 1-second think time",
        "",
        *_think_table(results),
        "",
        "## Scale-out and memory",
        "",
        *[f"- Game throughput at saturation with {p} daphne (best table count, median of "
          f"its runs): {_fmt(v)} actions/s"
          for p, v in best.items()],
    ]
    if len(best) == 2 and best.get(1):
        lines.append(f"- Two processes vs. one: {best.get(2, 0.0) / best[1]:.2f}×")
    if memory:
        delta = (memory["after"] - memory["before"]) / memory["players"] * 100
        lines.append(
            f"- Resident memory of one daphne: {memory['before'] / 2**20:.1f} MiB before, "
            f"{memory['after'] / 2**20:.1f} MiB with {memory['players']} idle players "
            f"connected (their matches started): {delta / 2**20:.1f} MiB per 100 idle players."
        )
        lines.append(
            f"- Its move processes (`MOVE_PROCESSES`, 2) together: "
            f"{memory.get('movers', 0) / 2**20:.1f} MiB resident, whatever the number of "
            "players (they hold the cached rounds of the matches being played)."
        )
    lines += [
        "",
        "## Reproduce",
        "",
        "- Needs PostgreSQL (the default `--database-url` is "
        "`postgres://postgres@127.0.0.1:5432/bench_load?conn_max_age=600`; the database, "
        "whose name must start with `bench`, is dropped and re-created) and Redis (default "
        "`redis://127.0.0.1:6379/9`, flushed). Nothing else should use the machine if the "
        "rates are to mean anything.",
        "- Everything: `.venv/bin/python -m benchmarks.load.run --write-docs` (omit "
        "`--write-docs` to only print). Subsets: `--processes 1`, `--tables 1 10`, "
        "`--duration 5 --warmup 2`. Server logs go to `var/bench-load/<timestamp>/`.",
        "- Where one action's time goes, step by step across the processes (one table, one "
        "daphne, traced): `.venv/bin/python -m benchmarks.load.trace`.",
        "- Correctness at small scale (2 tables over 2 daphne processes and 2 workers, no "
        "timing asserted): `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test "
        "REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python -m pytest "
        "tests/load/test_load_small.py`.",
        "",
        "## Stream checks during the runs",
        "",
        *_problems(results),
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


def write(path: Path, section: str) -> None:
    """Replace the load section of ``path`` (or append it), keeping everything else."""
    text = path.read_text()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + (("\n" + tail) if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
