"""D6: the pattern (牌型) of a complete 都匀 hand and its points.

A hand takes the single best entry of the D6 table: 平胡 1, 大对子 5, 小七对 10, 单吊 10,
龙七对 20; 清一色 (one suit) turns them into 清一色 10, 清大对 15, 清七对 20, 清单吊 20 and
青龙背 30.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from majiang.analysis import GroupKind, decompositions
from majiang.state import Meld
from majiang.tiles import Tile

__all__ = ["Pattern", "best_wait_pattern", "pattern_of"]


@dataclass(frozen=True, slots=True)
class Pattern:
    """A D6 table entry: its Chinese ``name``, its ``points``, and whether it is 平胡 (the
    entry that D7 restricts on a discard)."""

    name: str
    points: int
    pinghu: bool = False

    @property
    def category(self) -> str:
        """The settlement category, for example ``牌型:清七对``."""
        return f"牌型:{self.name}"


# shape -> (plain entry, 清一色 entry)
_TABLE: dict[str, tuple[Pattern, Pattern]] = {
    # D7: only 平胡 itself needs a 豆 on a discard; 清一色 is a bigger pattern.
    "pinghu": (Pattern("平胡", 1, pinghu=True), Pattern("清一色", 10)),
    "daduizi": (Pattern("大对子", 5), Pattern("清大对", 15)),
    "xiaoqidui": (Pattern("小七对", 10), Pattern("清七对", 20)),
    "dandiao": (Pattern("单吊", 10), Pattern("清单吊", 20)),
    "longqidui": (Pattern("龙七对", 20), Pattern("青龙背", 30)),
}


def _shapes(counts: Sequence[int], melds: Sequence[Meld]) -> list[str]:
    """Every D6 shape the complete hand can be read as."""
    shapes: list[str] = []
    for reading in decompositions(counts, melds=len(melds)):
        if reading.seven_pairs:
            shapes.append("longqidui" if 4 in counts else "xiaoqidui")
        elif all(g.kind is not GroupKind.CHOW for g in reading.groups):
            shapes.append("dandiao" if len(melds) == 4 else "daduizi")
        else:
            shapes.append("pinghu")
    return shapes


def pattern_of(counts: Sequence[int], melds: Sequence[Meld]) -> Pattern | None:
    """The best D6 pattern of a complete hand, or ``None`` if it is not complete.

    ``counts`` are the 27 counts of the concealed tiles, winning tile included.
    """
    shapes = _shapes(counts, melds)
    if not shapes:
        return None
    suits = {i // 9 for i, c in enumerate(counts) if c} | {m.tile // 9 for m in melds}
    qing = len(suits) == 1
    return max((_TABLE[s][qing] for s in shapes), key=lambda p: p.points)


def best_wait_pattern(
    counts: Sequence[int], melds: Sequence[Meld], waits: Sequence[Tile]
) -> Pattern | None:
    """The best pattern over a ready hand's ``waits`` (D21 查叫), or ``None`` with no waits."""
    best: Pattern | None = None
    for tile in waits:
        full = list(counts)
        full[tile] += 1
        found = pattern_of(full, melds)
        if found is not None and (best is None or found.points > best.points):
            best = found
    return best
