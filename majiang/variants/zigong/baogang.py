"""报叫 and 报杠 (Z19, Z20): who may declare, the 报杠 panel and its refusals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from majiang.analysis import keys_of, waits_keys
from majiang.errors import IllegalActionError
from majiang.tiles import Tile

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = [
    "NOTHING_TICKED",
    "TOO_MANY_KONGS",
    "declare_window",
    "may_declare_with_discard",
    "panel",
    "validate_ticks",
]

NOTHING_TICKED = "没勾选任何选项，不能报杠"
"""The seed's refusal of 报杠 with nothing ticked (Z20)."""
TOO_MANY_KONGS = "抱歉，不能选择更多的杠"
"""The seed's refusal of ticks whose kongs together leave the hand not ready (Z20)."""


def declare_window(rnd: Round) -> list[int]:
    """Z19: the non-dealers whose dealt 13 tiles are ready, asked before the first discard."""
    return [s for s in range(rnd.players) if s != rnd.dealer and rnd.is_ready(s)]


def may_declare_with_discard(rnd: Round, seat: int) -> bool:
    """Z19: the dealer declares with the first discard, unless they have konged first."""
    s = rnd.seats[seat]
    return seat == rnd.dealer and not s.declared and s.discards == 0 and not s.melds


def _ready_after(rnd: Round, seat: int, counts: Sequence[int], kongs: Iterable[Tile]) -> bool:
    """Whether the 13 tiles ``counts`` stay ready once ``kongs`` are konged (held < 4 waits)."""
    work = list(counts)
    konged = set(kongs)
    for tile in konged:
        work[tile] -= 3
    melds = rnd.seats[seat].melds
    held = list(work)
    for tile in konged:
        held[tile] += 4
    for meld in melds:
        held[meld.tile] += meld.size
    mask = waits_keys(keys_of(work), melds=len(melds) + len(konged))
    return any(mask >> i & 1 and held[i] < 4 for i in range(27))


def _fourth_unseen(rnd: Round, seat: int, tile: Tile) -> bool:
    """Whether the fourth copy of ``tile`` is not discarded, in a meld or a 萝卜 tile."""
    if rnd.seats[seat].hand[tile] > 3:
        return False
    if tile in rnd.extra.get("luobo", ()):
        return False
    for s in rnd.seats:
        if any(e.tile == tile for e in s.river) or any(m.tile == tile for m in s.melds):
            return False
    return True


def panel(rnd: Round, seat: int, counts: Sequence[int]) -> list[Tile]:
    """Z20: the concealed triplets of ``counts`` that could be konged later, hand kept ready."""
    return [
        Tile(i)
        for i, count in enumerate(counts)
        if count == 3
        and _fourth_unseen(rnd, seat, Tile(i))
        and _ready_after(rnd, seat, counts, (Tile(i),))
    ]


def validate_ticks(
    rnd: Round, seat: int, ticks: tuple[Tile, ...] | None, counts: Sequence[int]
) -> None:
    """Z20: refuse an empty 报杠, a tile not on the panel, and ticks that break the hand."""
    if ticks is None:
        return
    if not ticks:
        raise IllegalActionError("baogang_empty", NOTHING_TICKED)
    offered = panel(rnd, seat, counts)
    if len(set(ticks)) != len(ticks) or any(t not in offered for t in ticks):
        raise IllegalActionError("baogang_not_offered", "只能勾选列出的杠牌")
    if not _ready_after(rnd, seat, counts, ticks):
        raise IllegalActionError("baogang_too_many", TOO_MANY_KONGS)
