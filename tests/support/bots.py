"""The bots' discard heuristic (the browser bots and the service-level winning policy):
the discard that leaves the fewest tiles to ready, then the most useful draws."""

from __future__ import annotations

import functools

from majiang.analysis import waits
from majiang.tiles import parse_tile


@functools.lru_cache(maxsize=50_000)
def suit_options(suit: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
    """Every (sets, partial sets, pair) one suit's nine counts split into."""
    c = list(suit)
    out: set[tuple[int, int, int]] = set()

    def dfs(i: int, sets: int, parts: int, pair: int) -> None:
        while i < 9 and c[i] == 0:
            i += 1
        if i >= 9:
            out.add((sets, parts, pair))
            return
        if c[i] >= 3:
            c[i] -= 3
            dfs(i, sets + 1, parts, pair)
            c[i] += 3
        if i <= 6 and c[i + 1] and c[i + 2]:
            for j in (i, i + 1, i + 2):
                c[j] -= 1
            dfs(i, sets + 1, parts, pair)
            for j in (i, i + 1, i + 2):
                c[j] += 1
        if c[i] >= 2:
            c[i] -= 2
            if not pair:
                dfs(i, sets, parts, 1)
            dfs(i, sets, parts + 1, pair)
            c[i] += 2
        for gap in (1, 2):
            if i + gap <= 8 and c[i + gap]:
                c[i] -= 1
                c[i + gap] -= 1
                dfs(i, sets, parts + 1, pair)
                c[i] += 1
                c[i + gap] += 1
        c[i] -= 1
        dfs(i, sets, parts, pair)
        c[i] += 1

    dfs(0, 0, 0, 0)
    return frozenset(out)


@functools.lru_cache(maxsize=200_000)
def shanten(counts: tuple[int, ...], melds: int) -> int:
    """Tiles away from ready (0 = ready, -1 = complete) of ``14 - 3 * melds`` or one fewer
    concealed tiles, over sets, partial sets and a pair; and over 七对 with no melds."""
    need = 4 - melds
    best = 8
    opts = [suit_options(counts[k * 9 : k * 9 + 9]) for k in range(3)]
    for a in opts[0]:
        for b in opts[1]:
            for d in opts[2]:
                pair = a[2] + b[2] + d[2]
                if pair > 1:
                    continue
                sets = a[0] + b[0] + d[0]
                parts = a[1] + b[1] + d[1]
                best = min(best, 8 - 2 * (sets + melds) - min(parts, need - sets) - pair)
    if melds == 0:
        pairs = sum(1 for x in counts if x >= 2)
        kinds = sum(1 for x in counts if x)
        best = min(best, 6 - pairs + max(0, 7 - kinds))
    return best


def choose_discard(hand: list[str], playable: list[str]) -> str:
    """The discard that leaves the fewest tiles to ready, then the most useful draws (the
    waits themselves once ready, via ``majiang.analysis.waits``), then the loneliest tile."""
    counts = [0] * 27
    for code in hand:
        counts[parse_tile(code)] += 1
    melds = (14 - len(hand)) // 3

    def score(code: str) -> tuple[int, int, int]:
        i = int(parse_tile(code))
        rest = counts.copy()
        rest[i] -= 1
        sh = shanten(tuple(rest), melds)
        useful = 0
        if sh == 0:
            useful = sum(4 - rest[t] for t in waits(rest, melds=melds))
        else:
            for t in range(27):
                if rest[t] < 4:
                    rest[t] += 1
                    if shanten(tuple(rest), melds) < sh:
                        useful += 4 - rest[t] + 1
                    rest[t] -= 1
        r = i % 9
        near = sum(counts[j] for j in range(i - 2, i + 3) if 0 <= j < 27 and j // 9 == i // 9)
        return (-sh, useful, -near - (0 if r in (0, 8) else 1))

    return max(dict.fromkeys(playable), key=score)
