"""Build explicit walls from the hands and draws a scenario needs.

Tests and worked examples describe a hand by what each seat is dealt and which tiles come
off the front (draws) and the back (萝卜 first, then kong replacements); :func:`wall_for`
turns that into the explicit wall that :meth:`Round.deal` accepts, filling the middle with
the unused tiles in sorted order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from majiang.actions import Event
from majiang.round import Round
from majiang.tiles import Tile, parse_tiles
from majiang.variant import Variant
from majiang.wall import full_set

__all__ = ["deal_scenario", "wall_for"]


def wall_for(
    kinds: Sequence[Tile],
    *,
    dealer: int,
    hands: Sequence[str],
    draws: str = "",
    back: str = "",
) -> list[Tile]:
    """The wall that deals ``hands`` (indexed by seat; the dealer's has 14 tiles).

    ``draws`` are the next tiles from the front, in order; ``back`` the tiles taken from the
    back, in the order they are taken. Raises ``ValueError`` (in Chinese) if a hand has the
    wrong size or the tiles do not fit the set.
    """
    players = len(hands)
    parsed = [parse_tiles(h) for h in hands]
    for seat, tiles in enumerate(parsed):
        want = 14 if seat == dealer else 13
        if len(tiles) != want:
            raise ValueError(f"座位{seat} 应发 {want} 张牌, 写了 {len(tiles)} 张")
    front: list[Tile] = []
    for i in range(players):
        front.extend(parsed[(dealer + i) % players][:13])
    front.append(parsed[dealer][13])
    front.extend(parse_tiles(draws))
    tail = parse_tiles(back)
    pool = Counter(full_set(kinds))
    pool.subtract(front + tail)
    bad = sorted((t, -n) for t, n in pool.items() if n < 0)
    if bad:
        over = ", ".join(f"{t.code} 多{n}张" for t, n in bad)
        raise ValueError(f"用到的牌超出本玩法的整副牌 (每种四张, 没有的花色为零): {over}")
    middle = sorted(pool.elements())
    return front + middle + list(reversed(tail))


def deal_scenario(
    variant: Variant,
    settings: Mapping[str, Any] | None = None,
    *,
    dealer: int = 0,
    streak: int = 1,
    hands: Sequence[str],
    draws: str = "",
    back: str = "",
) -> tuple[Round, list[Event]]:
    """Deal a round whose wall is :func:`wall_for` these hands and draws."""
    checked = variant.schema.validate(settings)
    wall = wall_for(
        variant.tile_kinds(checked), dealer=dealer, hands=hands, draws=draws, back=back
    )
    return Round.deal(variant, checked, dealer=dealer, streak=streak, wall=wall)
