"""Fuzz a variant with random bots: every hand must play out and settle to zero.

    PYTHONPATH=. python3 benchmarks/fuzz_variants.py --variant zigong --hands 10000

Each hand draws random room settings from the variant's schema, deals from a seed, and lets
every seat pick among its legal actions: an offered win is taken four times in five, a kong
or a declaration half the time, otherwise any legal action uniformly (declarations tick a
random subset of the 报杠 panel, falling back to 不报 when the subset is refused). The
script reports hands, wins, wall exhaustions, the largest absolute total and the time
taken, and exits non-zero on the first exception or non-zero settlement sum.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.round import Round
from majiang.settings import SettingsSchema
from majiang.tiles import parse_tile
from majiang.variant import Variant
from majiang.variants import get_variant

__all__ = ["play_random", "random_settings"]


def random_settings(schema: SettingsSchema, rng: random.Random) -> dict[str, Any]:
    """A random valid value for every setting of ``schema``."""
    out: dict[str, Any] = {}
    for setting in schema.settings:
        if setting.kind == "bool":
            out[setting.name] = rng.random() < 0.5
        elif setting.choices:
            out[setting.name] = rng.choice(setting.choices)
        else:
            low = setting.minimum if setting.minimum is not None else 0
            high = setting.maximum if setting.maximum is not None else low + 10
            out[setting.name] = rng.randint(low, min(high, low + 10))
    return out


def _choose(rnd: Round, seat: int, rng: random.Random) -> Action:
    legal = rnd.legal_actions(seat)
    action = rng.choice(legal)
    for kind, odds in ((ActionType.WIN, 0.8), (ActionType.KONG, 0.5), (ActionType.DECLARE, 0.5)):
        preferred = [
            a for a in legal if a.type is kind or (kind is ActionType.DECLARE and a.declare)
        ]
        if preferred and rng.random() < odds:
            action = rng.choice(preferred)
            break
    if action.type is not ActionType.DECLARE and not action.declare:
        return action
    # The 报杠 panel as a client reads it (Z20): the open panel, else the one this opens.
    me = rnd.observation(seat)["me"]
    key = action.tile.code if action.tile is not None else ""
    codes = me.get("baogang_panel") or me.get("baogang_options", {}).get(key, [])
    panel = [parse_tile(code) for code in codes]
    if not panel or rng.random() < 0.3:
        return action
    ticks = tuple(t for t in panel if rng.random() < 0.5) or (panel[0],)
    ticked = Action(action.type, seat, action.tile, action.declare, ticks)
    try:
        rnd.variant.check_action(rnd, ticked, rnd.legal_actions(seat))
    except IllegalActionError:
        return action
    return ticked


def play_random(
    variant: Variant, settings: Mapping[str, Any], seed: str, rng: random.Random, dealer: int = 0
) -> Round:
    """Play one hand to the end with random legal choices; returns the ended round."""
    rnd, _ = Round.deal(variant, settings, dealer=dealer, seed=seed)
    while not rnd.ended:
        seat = rng.choice(rnd.pending())
        rnd.apply(_choose(rnd, seat, rng))
    return rnd


def main(argv: list[str] | None = None) -> int:
    """Run the fuzz and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", default="fuzz")
    args = parser.parse_args(argv)
    variant = get_variant(args.variant)
    rng = random.Random(args.seed)
    reasons: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    wins = 0
    largest = 0
    started = time.perf_counter()
    for hand in range(args.hands):
        settings = random_settings(variant.schema, rng)
        seed = f"{args.seed}-{hand}"
        players = variant.players(variant.schema.validate(settings))
        try:
            rnd = play_random(variant, settings, seed, rng, dealer=rng.randrange(players))
            settlement = rnd.settlement()
        except Exception:
            print(f"hand {hand} (seed {seed!r}, settings {settings}) raised:", file=sys.stderr)
            raise
        if sum(settlement.totals) != 0:
            print(f"hand {hand} (seed {seed!r}) does not sum to zero", file=sys.stderr)
            return 1
        reasons[str(rnd.end_reason)] += 1
        categories.update(line.category for line in settlement.lines)
        wins += len(rnd.wins)
        largest = max(largest, *(abs(t) for t in settlement.totals))
    elapsed = time.perf_counter() - started
    print(
        f"{args.variant}: {args.hands} hands in {elapsed:.1f}s "
        f"({args.hands / elapsed:.0f}/s), end reasons {dict(reasons)}, "
        f"{wins} wins, largest |total| {largest}, all sums zero"
    )
    print("settlement categories (lines):")
    for category, count in categories.most_common():
        print(f"  {category}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
