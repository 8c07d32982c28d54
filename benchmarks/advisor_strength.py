"""Strength and speed of the advisor (:mod:`majiang.advisor`): a scoreboard by duplicate
deals, and a fork study of its decisions.

Run: ``nice -n 10 .venv/bin/python -m benchmarks.advisor_strength --hands 10000 --forks 400
--levels standard,easy --baselines greedy,heuristic --jobs 2 --write-docs`` (about 25 minutes
on 2 cores).

**Scoreboard.** For each game (都匀 4p, 自贡 4p, default settings) and each pairing, every wall
is played once per seat, the dealer fixed at seat 0 and the tested policy moved to each seat
in turn, the other seats playing the baseline (duplicate deals, seats rotated: every seat
sees the same walls, so the luck of the deal cancels out). Both directions are played: the
policy alone among three baselines, and the baseline alone among three copies of the policy.
A hand's figure is the lone seat's points; a wall's figure is the mean of its rotations, and
the 95 % interval is mean ± 1.96 standard errors over walls. Baselines, written here:

- ``random``: take any win offered, else a uniformly random legal action;
- ``greedy`` (tile efficiency): take any win; discard the tile that leaves the lowest
  shanten, then the most unseen useful tiles; pass every claim; never 杠 or declare;
- ``heuristic`` (variant-aware): greedy's discards, but it declares 报听 (都匀, D9) with any
  live wait and 报叫 (自贡, Z19) with at least six live winning tiles, makes every kong that
  does not raise the shanten, 碰 when that lowers the shanten, keeps the first 幺鸡 while not
  ready (D17), and when not ready prefers tiles already safe against a declared seat.

**Fork study.** Hands with the advisor (标准) in every seat. At the first decision of each
kind in a hand where the simple alternative differs from the advisor's choice, the round is
copied and both choices are played out, the advisor deciding everything after. The figure
is the decider's points with its choice minus with the alternative (positive: the advisor's
choice was better), with a 95 % interval over forks. Kinds and their alternative: 报听/报叫
(declare ↔ not), 杠 (kong ↔ the best other action), 碰 (碰 ↔ pass) and the discard (the
greedy baseline's discard).

Decision time is wall-clock time per advisor decision (observation built beforehand),
median and 99th percentile, on a shared machine. ``--jobs N`` plays the pairings in N
processes (the same deals and the same figures as one process; the decision times then
share the cores).

``--write-docs`` replaces this benchmark's own section of ``docs/benchmarks.md`` (between
its markers), keeping every other section. This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import datetime as dt
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from majiang import Action, ActionType, Round, Tile, get_variant
from majiang.advisor import choose, unseen_counts, useful_tiles
from majiang.tiles import parse_tile

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- advisor-strength:begin -->", "<!-- advisor-strength:end -->"
NAMES = {"duyun": "都匀捉鸡 4p", "zigong": "自贡麻将 4p"}

Policy = Callable[[Round, int, random.Random], Action]
TIMES: dict[str, list[float]] = {}


def advisor(level: str, times: list[float]) -> Policy:
    """The advisor at ``level``, each decision's time appended to ``times``."""

    def play(rnd: Round, seat: int, rng: random.Random) -> Action:
        observation = rnd.observation(seat)
        legal = rnd.legal_actions(seat)
        start = time.perf_counter()
        action = choose(observation, legal, seed=rng.randrange(1 << 30), level=level)
        times.append(time.perf_counter() - start)
        return action

    return play


def _win(legal: Sequence[Action]) -> Action | None:
    return next((a for a in legal if a.type is ActionType.WIN), None)


def random_legal(rnd: Round, seat: int, rng: random.Random) -> Action:
    """Win when offered, else a uniformly random legal action."""
    legal = rnd.legal_actions(seat)
    return _win(legal) or rng.choice(legal)


def _counts(me: Mapping[str, Any]) -> list[int]:
    counts = [0] * 27
    for code in [*me["hand"], *([me["drawn"]] if me.get("drawn") else [])]:
        counts[parse_tile(code)] += 1
    return counts


class _Seat:
    """What a baseline reads from its seat's observation."""

    def __init__(self, rnd: Round, seat: int) -> None:
        self.obs = rnd.observation(seat)
        me = self.obs["me"]
        self.counts = _counts(me)
        self.melds = len(self.obs["seats"][seat]["melds"])
        self.unseen = unseen_counts(self.obs)

    def after(self, counts: Sequence[int], melds: int) -> tuple[int, int]:
        """(shanten, unseen useful tiles) of 13-equivalent ``counts``."""
        sh, useful = useful_tiles(counts, melds, self.unseen)
        return sh, sum(n for _, n in useful)

    def discard_key(self, tile: Tile) -> tuple[int, int]:
        rest = list(self.counts)
        rest[tile] -= 1
        sh, live = self.after(rest, self.melds)
        return sh, -live


def _plain(legal: Sequence[Action]) -> Action:
    """Pass when asked, else the first action that is not a win: for questions a baseline
    does not answer (报杠 panels)."""
    return next((a for a in legal if a.type is ActionType.PASS), legal[0])


def greedy(rnd: Round, seat: int, rng: random.Random) -> Action:
    """Tile efficiency: win, else the discard leaving the fewest shanten and most useful
    tiles; pass every claim; no kongs, no declaring."""
    legal = rnd.legal_actions(seat)
    win = _win(legal)
    if win is not None:
        return win
    discards = [a for a in legal if a.type is ActionType.DISCARD and not a.declare]
    if not discards:
        return _plain(legal)
    view = _Seat(rnd, seat)
    return min(discards, key=lambda a: (view.discard_key(a.tile), rng.random()))  # type: ignore[arg-type]


def heuristic(rnd: Round, seat: int, rng: random.Random) -> Action:
    """Greedy's discards with the variant's obvious values: see the module docstring."""
    legal = rnd.legal_actions(seat)
    win = _win(legal)
    if win is not None:
        return win
    view = _Seat(rnd, seat)
    variant = view.obs["variant"]
    sh_now = None
    if sum(view.counts) + 3 * view.melds == 13:
        sh_now = view.after(view.counts, view.melds)[0]
    for action in legal:
        if action.type is ActionType.KONG and action.tile is not None:
            tile = action.tile
            rest = list(view.counts)
            if sh_now is not None:  # on a discard: three in hand
                rest[tile] -= 3
                before = sh_now
            else:
                rest[tile] -= min(rest[tile], 4 if rest[tile] == 4 else 1)
                before = min(view.discard_key(t)[0] for t in Tile if view.counts[t])
            melds = view.melds + (1 if rest[tile] == 0 or sh_now is not None else 0)
            if view.after(rest, melds)[0] <= before:
                return action
        if action.type is ActionType.PUNG and action.tile is not None and sh_now is not None:
            rest = list(view.counts)
            rest[action.tile] -= 2
            best = min(
                view.after([n - (i == t) for i, n in enumerate(rest)], view.melds + 1)[0]
                for t in Tile if rest[t]
            )
            if best < sh_now:
                return action
    need = 1 if variant == "duyun" else 6
    asked = any(a.type is ActionType.PASS for a in legal)  # the opening 报叫 question (Z19)
    declares = []
    for action in legal:
        if action.declare and action.tile is not None:
            sh, neg = view.discard_key(action.tile)
            declares.append((sh, -neg, action))
        elif action.type is ActionType.DECLARE and asked:
            declares.append((*view.after(view.counts, view.melds), action))
    ready = [(live, action) for sh, live, action in declares if sh == 0 and live >= need]
    if ready:
        return max(ready, key=lambda r: r[0])[1]
    discards = [a for a in legal if a.type is ActionType.DISCARD and not a.declare]
    if not discards:
        return _plain([a for a in legal if not a.declare])
    declared = [
        s for s in view.obs["seats"] if s["seat"] != seat and s["declared"] and not s["won"]
    ]
    safe = {e["tile"] for s in declared for e in s["river"]}
    first_chicken = not any(e["tile"] == "1s" for s in view.obs["seats"] for e in s["river"])

    def key(action: Action) -> tuple[Any, ...]:
        assert action.tile is not None
        sh, neg = view.discard_key(action.tile)
        risky = bool(declared) and sh > 0 and action.tile.code not in safe
        chicken = variant == "duyun" and action.tile is Tile.S1 and sh > 0 and first_chicken
        return sh, risky, chicken, neg, rng.random()

    return min(discards, key=key)


BASELINES: dict[str, Policy] = {"random": random_legal, "greedy": greedy,
                                "heuristic": heuristic}


def play(rnd: Round, policies: Sequence[Policy], rng: random.Random) -> Round:
    """Play ``rnd`` to its end, each seat by its policy."""
    while not rnd.ended:
        seat = rnd.pending()[0]
        rnd.apply(policies[seat](rnd, seat, rng))
    return rnd


def duplicate(variant: str, lone: Policy, field: Policy, walls: int,
              tag: str) -> tuple[float, float, int]:
    """Mean points per hand of the lone seat among three of ``field``, seats rotated; the
    half-width of its 95 % interval over walls; the hands played."""
    means = []
    for w in range(walls):
        seed = f"advisor-bench/{variant}/{w}"
        points = []
        for hero in range(4):
            rnd, _ = Round.deal(get_variant(variant), None, dealer=0, seed=seed)
            policies = [lone if s == hero else field for s in range(4)]
            play(rnd, policies, random.Random(f"{seed}/{hero}/{tag}"))
            points.append(rnd.settlement().totals[hero])
        means.append(statistics.fmean(points))
    return (*_interval(means), 4 * walls)


def _pairing(pairing: tuple[str, str, str, int]
             ) -> tuple[float, float, int, dict[str, list[float]]]:
    """:func:`duplicate` for (game, lone seat, the three others, walls), each named: a
    baseline or an advisor level. Also returns the advisor's decision times by level."""
    variant, lone, field, walls = pairing
    times: dict[str, list[float]] = {}

    def policy(name: str) -> Policy:
        return BASELINES[name] if name in BASELINES else advisor(
            name, times.setdefault(name, []))

    return (*duplicate(variant, policy(lone), policy(field), walls, f"{lone}/{field}"), times)


def _interval(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


# -- the fork study --------------------------------------------------------------------------


def _alternative(rnd: Round, seat: int, chosen: Action, rng: random.Random
                 ) -> tuple[str, Action] | None:
    """The decision's kind and its simple alternative, if it differs from ``chosen``."""
    legal = rnd.legal_actions(seat)
    plain = chosen.without_ticks()
    if _win(legal) is not None:
        return None
    if plain.type is ActionType.DISCARD and any(a.declare for a in legal):
        flipped = Action(ActionType.DISCARD, seat, plain.tile, declare=not plain.declare)
        if flipped in legal:
            return "报听/报叫", flipped
    if plain.type is ActionType.DECLARE and not rnd.legal_actions(seat)[0].ticks:
        other = next((a for a in legal if a.type is ActionType.PASS), None)
        if other is not None and plain.ticks is None and not any(
            a.type is ActionType.DISCARD for a in legal
        ):
            return "报听/报叫", other
    kongs = [a for a in legal if a.type is ActionType.KONG]
    if kongs:
        if plain.type is ActionType.KONG:
            others = [a for a in legal if a.type is not ActionType.KONG and not a.declare]
            if others:
                obs = rnd.observation(seat)
                return "杠", choose(obs, others, seed=0)
        else:
            return "杠", kongs[0]
    pungs = [a for a in legal if a.type is ActionType.PUNG]
    if pungs:
        if plain.type is ActionType.PUNG:
            return "碰", next(a for a in legal if a.type is ActionType.PASS)
        return "碰", pungs[0]
    if plain.type is ActionType.DISCARD and not plain.declare:
        simple = greedy(rnd, seat, rng)
        if simple != plain:
            return "打牌 (greedy 的牌)", simple
    return None


def forks(variant: str, hands: int) -> dict[str, list[float]]:
    """Per decision kind: the decider's points with the advisor's choice minus with the
    alternative, one entry per fork."""
    found: dict[str, list[float]] = {}
    standard = advisor("standard", TIMES.setdefault("standard", []))
    for h in range(hands):
        seed = f"advisor-forks/{variant}/{h}"
        rng = random.Random(seed)
        rnd, _ = Round.deal(get_variant(variant), None, dealer=h % 4, seed=seed)
        done: set[str] = set()
        while not rnd.ended:
            seat = rnd.pending()[0]
            chosen = standard(rnd, seat, rng)
            fork = _alternative(rnd, seat, chosen, rng)
            if fork is not None and fork[0] not in done:
                kind, other = fork
                done.add(kind)
                outcomes = []
                for action in (chosen, other):
                    branch = copy.deepcopy(rnd)
                    branch.apply(action)
                    play(branch, [standard] * rnd.players, random.Random(seed + kind))
                    outcomes.append(branch.settlement().totals[seat])
                found.setdefault(kind, []).append(outcomes[0] - outcomes[1])
            rnd.apply(chosen)
    return found


# -- the report -----------------------------------------------------------------------------


def _ms(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (ordered[len(ordered) // 2] * 1000,
            ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000)


def section(board: list[tuple[str, str, str, float, float, int]],
            fork_rows: list[tuple[str, str, list[float]]], argv: str, seconds: float) -> str:
    """The generated Markdown section."""
    lines = [
        BEGIN,
        "# Advisor strength (computer players, 托管)",
        "",
        f"Generated by `nice -n 10 .venv/bin/python -m benchmarks.advisor_strength {argv}` "
        f"({seconds / 60:.0f} minutes); rerun it to refresh this section. Method: the module "
        "docstring of `benchmarks/advisor_strength.py`.",
        "",
        f"- Date: {dt.date.today().isoformat()}; Python {platform.python_version()}, "
        "2 cores shared with other work.",
        "- The samples are of the sizes in the command above; their intervals say what they "
        "can tell.",
        "",
        "## Scoreboard (points per hand of the lone seat, duplicate deals, seats rotated)",
        "",
        "| Game | Lone seat | Among three | Hands | Points per hand | 95 % interval | Excludes 0 |",
        "| --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    for variant, lone, field, mean, half, n in board:
        verdict = "yes" if abs(mean) > half else "no"
        lines.append(f"| {NAMES[variant]} | {lone} | {field} | {n} | {mean:+.2f} | "
                     f"[{mean - half:+.2f}, {mean + half:+.2f}] | {verdict} |")
    lines += [
        "",
        "## Fork study (标准 in every seat; the decider's points, its choice minus the "
        "alternative)",
        "",
        "| Game | Decision | Forks | Choice − alternative | 95 % interval | Choice better in |",
        "| --- | --- | ---: | ---: | --- | ---: |",
    ]
    for variant, kind, diffs in fork_rows:
        if len(diffs) < 2:
            lines.append(f"| {NAMES[variant]} | {kind} | {len(diffs)} | — | — | — |")
            continue
        mean, half = _interval(diffs)
        better = sum(d > 0 for d in diffs) / len(diffs)
        worse = sum(d < 0 for d in diffs) / len(diffs)
        lines.append(f"| {NAMES[variant]} | {kind} | {len(diffs)} | {mean:+.2f} | "
                     f"[{mean - half:+.2f}, {mean + half:+.2f}] | {better:.0%} "
                     f"(worse {worse:.0%}) |")
    lines += ["", "## Decision time (wall clock, per decision)", "",
              "| Level | Decisions | Median | p99 | Goal |", "| --- | ---: | ---: | ---: | --- |"]
    goals = {"easy": "—", "standard": "median < 2 ms",
             "expert": "median ≤ 50 ms, p99 ≤ 200 ms"}
    for level, times in TIMES.items():
        if times:
            median, p99 = _ms(times)
            lines.append(f"| {level} | {len(times)} | {median:.2f} ms | {p99:.2f} ms | "
                         f"{goals.get(level, '—')} |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_docs(text: str) -> None:
    """Replace this benchmark's section of docs/benchmarks.md, or append it."""
    doc = DOCS.read_text(encoding="utf-8")
    if BEGIN in doc and END in doc:
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        doc = head + text.rstrip("\n") + tail
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOCS.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the section, and write it with ``--write-docs``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000,
                        help="hands per game and pairing (a multiple of 4)")
    parser.add_argument("--forks", type=int, default=1000, help="hands per game for forks")
    parser.add_argument("--levels", default="standard",
                        help="comma-separated advisor levels to put on the scoreboard")
    parser.add_argument("--baselines", default="random,greedy,heuristic")
    parser.add_argument("--games", default="duyun,zigong")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing the pairings")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    walls = max(2, args.hands // 4)
    board = []
    start = time.perf_counter()
    games = args.games.split(",")
    pairings = [(variant, *pair, walls) for variant in games
                for level in args.levels.split(",") for name in args.baselines.split(",")
                for pair in ((level, name), (name, level))]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for (variant, lone, field, _), (mean, half, n, times) in zip(
                pairings, pool.map(_pairing, pairings), strict=True):
            board.append((variant, lone, field, mean, half, n))
            for level, spent in times.items():
                TIMES.setdefault(level, []).extend(spent)
            print(f"{variant} {lone} among {field}: {mean:+.3f} ± {half:.3f} over {n} hands",
                  file=sys.stderr, flush=True)
    fork_rows = []
    for variant in games:
        if args.forks:
            for kind, diffs in sorted(forks(variant, args.forks).items()):
                fork_rows.append((variant, kind, diffs))
                print(f"{variant} fork {kind}: {len(diffs)}", file=sys.stderr, flush=True)
    shown = " ".join(argv if argv is not None else sys.argv[1:])
    text = section(board, fork_rows, shown, time.perf_counter() - start)
    print(text)
    if args.write_docs:
        write_docs(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
