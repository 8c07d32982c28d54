"""A plausible random bot for 都匀 properties and fuzzing: it discards loose tiles first.

Uniformly random play almost never wins; this bot takes most wins, many claims and keeps
connected tiles, so that wins, 豆, 鸡 and 包牌 all come up often.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from majiang.actions import Action, ActionType
from majiang.round import Round
from tests.rules.scenario import DUYUN


def _looseness(rnd: Round, seat: int, action: Action) -> int:
    """How connected the discarded tile is to the rest of the hand (lower: discard first)."""
    assert action.tile is not None
    hand = rnd.seats[seat].hand
    tile = int(action.tile)
    score = 3 * (hand[tile] - 1)
    for delta in (-2, -1, 1, 2):
        other = tile + delta
        if 0 <= other < 27 and other // 9 == tile // 9:
            score += hand[other] * (2 if abs(delta) == 1 else 1)
    return score


def bot_action(rnd: Round, seat: int, rng: random.Random) -> Action:
    """A random but plausible choice among ``seat``'s legal actions."""
    legal = rnd.legal_actions(seat)
    by_type: dict[ActionType, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    for kind, chance in ((ActionType.WIN, 0.85), (ActionType.KONG, 0.7), (ActionType.PUNG, 0.5)):
        if kind in by_type and rng.random() < chance:
            return rng.choice(by_type[kind])
    discards = by_type.get(ActionType.DISCARD, [])
    declaring = [a for a in discards if a.declare]
    if declaring and rng.random() < 0.5:
        return rng.choice(declaring)
    plain = [a for a in discards if not a.declare]
    if plain:
        if rng.random() < 0.2:
            return rng.choice(plain)
        return min(plain, key=lambda a: (_looseness(rnd, seat, a), rng.random()))
    return by_type.get(ActionType.PASS, legal)[0]


def play(rnd: Round, rng: random.Random) -> Round:
    """Play ``rnd`` to its end with the bot."""
    while not rnd.ended:
        seat = rng.choice(rnd.pending())
        rnd.apply(bot_action(rnd, seat, rng))
    return rnd


@dataclass
class FuzzReport:
    """What a fuzz run saw."""

    hands: int = 0
    ends: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)


def random_room(rng: random.Random) -> dict[str, Any]:
    """Random values for every 都匀 setting."""
    out: dict[str, Any] = {}
    for setting in DUYUN.schema.settings:
        if setting.kind == "bool":
            out[setting.name] = rng.random() < 0.5
        elif setting.choices:
            out[setting.name] = rng.choice(setting.choices)
        else:
            low = setting.minimum or 0
            out[setting.name] = rng.randint(low, min(setting.maximum or low, low + 5))
    return out


def fuzz(hands: int, seed: str) -> FuzzReport:
    """Play ``hands`` hands in tables of six, following D4 for the dealer and streak."""
    rng = random.Random(seed)
    report = FuzzReport()
    room: dict[str, Any] = {}
    dealer, streak = 0, 1
    for index in range(hands):
        if index % 6 == 0:
            room, dealer, streak = random_room(rng), 0, 1
        rnd, _ = Round.deal(DUYUN, room, dealer=dealer, streak=streak, seed=f"{seed}-{index}")
        play(rnd, rng)
        result = rnd.settlement()
        assert sum(result.totals) == 0, f"hand {index} does not sum to zero"
        dealer, streak = rnd.next_dealer()
        report.hands += 1
        report.ends[rnd.end_reason or ""] += 1
        report.categories.update(line.category for line in result.lines)
    return report


if __name__ == "__main__":
    import sys

    found = fuzz(int(sys.argv[1]) if len(sys.argv) > 1 else 10000, "duyun-bot")
    print(f"{found.hands} hands, ends {dict(found.ends)}")
    for name, count in found.categories.most_common():
        print(f"  {name}: {count}")
