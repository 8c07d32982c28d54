"""Benchmark the rules engine and write ``docs/benchmarks.md``.

Run: ``PYTHONPATH=. python3 benchmarks/rules_bench.py`` (needs the ``mahjong`` package).

Figures, each a median over repeated timed batches (hand generation is outside the timing):

- our completeness check (:func:`majiang.analysis.is_complete_keys`) per 14-tile hand, and
  ``mahjong``'s ``Agari.is_agari`` on the same hands;
- our waits (:func:`majiang.analysis.waits_keys`) per 13-tile hand, and 27 calls of
  ``Agari.is_agari`` (one per candidate tile) on the same hands;
- complete random-bot hands of the basic variant (4 players) per second on one core;
- the advisor's hint caches: whole 都匀 and 自贡 hands where every decision asks
  for :func:`majiang.advisor.discard_hints` and then plays :func:`majiang.advisor.choose`
  (what a table with hints and computer seats does); the hint time per call, each cache's
  hit rate and entries, and the entries held as the hands go on.

This is a measurement, not a test: nothing here fails when a goal is missed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from majiang.actions import ActionType  # noqa: E402
from majiang.analysis import is_complete_keys, keys_of, waits_keys  # noqa: E402
from majiang.round import Round  # noqa: E402
from majiang.variants import get_variant  # noqa: E402

TO_34 = [*range(9), *range(18, 27), *range(9, 18)]  # our 万/条/筒 to riichi man/sou/pin
SETS = [(i, i, i) for i in range(27)] + [(i, i + 1, i + 2) for i in range(27) if i % 9 <= 6]


def random_hand(rng: random.Random, size: int) -> list[int]:
    """A uniform random multiset of ``size`` tiles from the 108-tile set."""
    counts = [0] * 27
    for physical in rng.sample(range(108), size):
        counts[physical // 4] += 1
    return counts


def built_hand(rng: random.Random) -> list[int]:
    """A random complete hand: four sets and a pair."""
    while True:
        counts = [0] * 27
        for group in rng.choices(SETS, k=4):
            for index in group:
                counts[index] += 1
        counts[rng.randrange(27)] += 2
        if max(counts) <= 4:
            return counts


def hands(rng: random.Random, n: int, size: int) -> list[list[int]]:
    """Half uniform random hands, half built complete (minus one tile for 13-tile hands)."""
    out = []
    for i in range(n):
        if i % 2:
            counts = built_hand(rng)
            if size == 13:
                counts[rng.choice([t for t in range(27) if counts[t]])] -= 1
        else:
            counts = random_hand(rng, size)
        out.append(counts)
    return out


def to_34(counts: list[int]) -> list[int]:
    out = [0] * 34
    for index, count in enumerate(counts):
        out[TO_34[index]] = count
    return out


def per_item_us(fn: Callable[[], object], items: int, repeat: int) -> float:
    """Median µs per item over ``repeat`` timed runs of ``fn`` (which handles ``items``).

    Each run makes enough passes over the batch to last about 50 ms.
    """
    one = timeit.timeit(fn, timer=time.process_time, number=1)
    number = max(1, round(0.05 / max(one, 1e-6)))
    runs = timeit.repeat(fn, timer=time.process_time, number=number, repeat=repeat)
    return statistics.median(runs) / number / items * 1e6


def bot_hands_per_second(n: int, seed: int = 1) -> tuple[float, int]:
    """Play ``n`` complete 4-player basic hands; returns (hands/s, total actions)."""
    variant = get_variant("basic")
    rng = random.Random(seed)
    actions = 0
    started = time.process_time()
    for i in range(n):
        rnd, _ = Round.deal(variant, {"players": 4}, dealer=i % 4, seed=f"bench-{i}")
        while not rnd.ended:
            seat = rnd.pending()[0]
            legal = rnd.legal_actions(seat)
            win = next((a for a in legal if a.type is ActionType.WIN), None)
            rnd.apply(win if win is not None else rng.choice(legal))
            actions += 1
    return n / (time.process_time() - started), actions


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mahjong_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("mahjong")
    except PackageNotFoundError:
        return "unknown"


HINT_CACHES = ("_suit_reading", "_draws", "_standard", "_combined",
               "_suit_options", "_suit_pairs")  # the last two: caches of earlier trees


def hint_caches(n: int) -> dict[str, object]:
    """Play ``n`` hands asking for hints at every decision, from empty caches."""
    import resource  # noqa: PLC0415

    from majiang import advisor  # noqa: PLC0415

    caches = {name: getattr(advisor, name) for name in HINT_CACHES
              if hasattr(getattr(advisor, name, None), "cache_info")}
    for cache in caches.values():
        cache.cache_clear()

    def entries() -> int:
        held = sum(c.cache_info().currsize for c in caches.values())
        return held + len(getattr(advisor, "_READINGS", ()))  # a table of earlier trees

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times: list[float] = []
    growth = []
    for i in range(n):
        variant = get_variant(("duyun", "zigong")[i % 2])
        rnd, _ = Round.deal(variant, None, dealer=i % 4, seed=f"hints-{i}")
        while not rnd.ended:
            seat = rnd.pending()[0]
            obs = rnd.observation(seat)
            start = time.perf_counter()
            advisor.discard_hints(obs)
            times.append(time.perf_counter() - start)
            rnd.apply(advisor.choose(obs, rnd.legal_actions(seat), seed=i))
        if (i + 1) % max(1, n // 4) == 0:
            growth.append((i + 1, entries()))
    tail = sorted(times[len(times) // 2:])
    return {
        "calls": len(times),
        "mean_us": statistics.fmean(times) * 1e6,
        "warm_median_us": tail[len(tail) // 2] * 1e6,
        "warm_mean_us": statistics.fmean(tail) * 1e6,
        "warm_p99_us": tail[int(len(tail) * 0.99)] * 1e6,
        "caches": {name: c.cache_info() for name, c in caches.items()},
        "growth": growth,
        "rss_growth_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024,
    }


def hint_lines(found: dict[str, object], hands: int) -> list[str]:
    """The Markdown of :func:`hint_caches`' figures."""
    caches = found["caches"]
    assert isinstance(caches, dict)
    lines = [
        "## Hint caches",
        "",
        f"{hands} hands (都匀 and 自贡 in turn, 4 players), every decision of every seat asks "
        f"for the discard hints and then plays the advisor's choice: {found['calls']} hint "
        "calls, from empty caches. Wall-clock time per hint call (`time.perf_counter`); "
        "\"warm\" is the second half of the calls.",
        "",
        f"- Hint time: mean {found['mean_us']:.0f} µs over all calls; warm median "
        f"{found['warm_median_us']:.0f} µs, mean {found['warm_mean_us']:.0f} µs, p99 "
        f"{found['warm_p99_us']:.0f} µs.",
        "- Entries held in all hint caches after "
        + ", ".join(f"{h} hands: {e}" for h, e in found["growth"])  # type: ignore[attr-defined]
        + f"; peak RSS grew {found['rss_growth_mib']:.0f} MiB during the run.",
        "",
        "| Cache | Bound | Entries at the end | Hits | Misses | Hit rate |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, info in caches.items():
        rate = info.hits / max(1, info.hits + info.misses)
        bound = "none" if info.maxsize is None else str(info.maxsize)
        lines.append(f"| `{name}` | {bound} | {info.currsize} | {info.hits} | {info.misses} "
                     f"| {rate:.1%} |")
    return [*lines, ""]


LOAD_SECTION = "<!-- load-benchmark:begin -->"
"""Where the load benchmark's section of the document starts (benchmarks/load/report.py)."""


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per timed batch")
    parser.add_argument("--repeat", type=int, default=15, help="timed batches per figure")
    parser.add_argument("--bot-hands", type=int, default=2000, help="bot hands to play")
    parser.add_argument("--hint-hands", type=int, default=1000,
                        help="hands for the hint-cache figures")
    parser.add_argument("--hints-only", action="store_true",
                        help="print the hint-cache figures only, write nothing")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    hints = hint_caches(args.hint_hands)
    if args.hints_only:
        print("\n".join(hint_lines(hints, args.hint_hands)))
        return

    from mahjong.agari import Agari  # noqa: PLC0415 (only the benchmark needs it)

    is_agari = Agari().is_agari
    rng = random.Random(2024)
    n = args.hands
    h14 = hands(rng, n, 14)
    h13 = hands(rng, n, 13)
    keys14 = [keys_of(c) for c in h14]
    keys13 = [keys_of(c) for c in h13]
    t14 = [to_34(c) for c in h14]
    t13 = [to_34(c) for c in h13]
    complete = sum(is_complete_keys(k) for k in keys14)
    ready = sum(bool(waits_keys(k)) for k in keys13)

    def ours_complete() -> None:
        for k in keys14:
            is_complete_keys(k)

    def theirs_complete() -> None:
        for t in t14:
            is_agari(t)

    def ours_waits() -> None:
        for k in keys13:
            waits_keys(k)

    def theirs_waits() -> None:
        for t in t13:
            for index in range(27):
                if t[index] < 4:
                    t[index] += 1
                    is_agari(t)
                    t[index] -= 1

    ours_c = per_item_us(ours_complete, n, args.repeat)
    theirs_c = per_item_us(theirs_complete, n, args.repeat)
    ours_w = per_item_us(ours_waits, n, args.repeat)
    theirs_w = per_item_us(theirs_waits, n, max(3, args.repeat // 3))
    bot_rate, bot_actions = bot_hands_per_second(args.bot_hands)

    ratio_c = theirs_c / ours_c
    ratio_w = theirs_w / ours_w
    rows = [
        ("Completeness check, 14 tiles (µs/hand)", f"{ours_c:.3f}", f"{theirs_c:.3f}",
         f"{ratio_c:.0f}×", "≥ 20×", ratio_c >= 20),
        ("Waits, 13 tiles (µs/hand; theirs = 27 checks)", f"{ours_w:.3f}", f"{theirs_w:.2f}",
         f"{ratio_w:.0f}×", "≥ 100×", ratio_w >= 100),
        ("Complete random-bot hands per second (4 players, basic)", f"{bot_rate:.0f}", "—",
         "—", "≥ 500", bot_rate >= 500),
    ]
    version = mahjong_version()
    today = dt.date.today().isoformat()
    lines = [
        "# Rules engine benchmarks",
        "",
        "Generated by `PYTHONPATH=. python3 benchmarks/rules_bench.py` — rerun it to refresh",
        "this file. The goals are measured here, never asserted in tests.",
        "",
        "## Method",
        "",
        f"- Hands: {n} random 14-tile hands and {n} random 13-tile hands of suit tiles, fixed",
        "  seed. Half are uniform random multisets of the 108-tile set, half are built from",
        "  four random sets and a pair (the 13-tile ones then lose one random tile), so",
        f"  {complete} of the 14-tile hands are complete and {ready} of the 13-tile hands are",
        "  ready. Keys (ours) and 34-kind count arrays (theirs) are built before timing.",
        f"- Each figure is the median of {args.repeat} timed runs ({max(3, args.repeat // 3)}"
        " for the slow",
        "  27-call waits), each run as many passes over the whole batch as last about 50 ms,",
        "  divided by passes × batch size (`timeit.repeat`).",
        "- All times are CPU time of the benchmark process (`time.process_time`), so that other",
        "  work on the shared machine does not count; wall-clock figures on an idle machine",
        "  match them closely.",
        "- Ours: `majiang.analysis.is_complete_keys` (standard form and seven pairs) and",
        "  `majiang.analysis.waits_keys` (27-bit mask of waits).",
        f"- Theirs: `mahjong` {version} (riichi), `Agari.is_agari(tiles_34)`; its waits are",
        "  27 calls of that check, one per candidate tile with fewer than four copies held.",
        f"- Bot hands: {args.bot_hands} complete hands of the `basic` variant, 4 players, each",
        "  dealt from its own seed (wall shuffle included in the time). Bot policy: the first",
        "  pending seat acts; it takes a win whenever one is offered (so hands end as they",
        "  would in play), otherwise it picks uniformly at random among its legal actions",
        f"  (discards, kongs, pungs, passes). {bot_actions} actions in total",
        f"  ({bot_actions / args.bot_hands:.1f} per hand).",
        "",
        "## Machine",
        "",
        f"- Date: {today}",
        f"- CPU: {cpu_name()}, {os.cpu_count()} cores (single-threaded run)",
        f"- Python {platform.python_version()} ({platform.python_implementation()}),"
        f" {platform.system()}",
        "",
        "## Results",
        "",
        "| Figure | Ours | `mahjong` | Ours vs theirs | Goal | Met |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for name, ours, theirs, ratio, goal, met in rows:
        verdict = "yes" if met else "no"
        lines.append(f"| {name} | {ours} | {theirs} | {ratio} | {goal} | {verdict} |")
    lines.append("")
    lines += hint_lines(hints, args.hint_hands)
    text = "\n".join(lines)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # The load benchmark owns everything from its marker on; keep it.
    existing = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    tail = existing[existing.index(LOAD_SECTION) :] if LOAD_SECTION in existing else ""
    args.out.write_text(text + ("\n" + tail if tail else ""), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
