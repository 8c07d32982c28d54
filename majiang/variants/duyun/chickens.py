"""D15–D19 and D21.3: chicken (鸡) tiles, who owns them, and the 鸡 lines of a hand.

The 鸡 of a won hand are settled once, for every seat by its ready state (D22 step 2); on
黄庄 only the discarded 幺鸡 of players who are not ready are paid (D21).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from majiang.settlement import LineKind, SettlementLine
from majiang.state import Meld, RiverEntry
from majiang.tiles import Tile

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = [
    "ChickenTable",
    "chicken_lines",
    "chicken_table",
    "exhausted_yaoji_counts",
    "exhausted_yaoji_lines",
    "first_chicken_category",
    "first_chicken_value",
    "first_yaoji",
    "owned_chickens",
    "won_hand_ji_counts",
]

YAOJI = Tile.S1


@dataclass(frozen=True, slots=True)
class ChickenTable:
    """The chicken tiles of an ended hand (D15).

    ``turned`` is the tile turned over for 翻鸡, if any; ``turned_chickens`` the chickens it
    makes (never ``1s``, which is always a chicken); ``jin`` whether ``1s`` is 金鸡.
    """

    turned: Tile | None
    turned_chickens: frozenset[Tile]
    jin: bool

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """Every chicken tile, in tile order."""
        return tuple(sorted({YAOJI, *self.turned_chickens}))

    def value(self, tile: Tile) -> int:
        """What one ``tile`` counts under D18 (0 if it is not a chicken)."""
        if tile is YAOJI:
            return 2 if self.jin else 1
        return 1 if tile in self.turned_chickens else 0


def chicken_table(rnd: Round) -> ChickenTable:
    """D15: turn the next wall tile when the hand ended with a win and the wall is not empty."""
    mode = rnd.settings["fanji"]
    turned = rnd.wall.peek() if rnd.wins and mode != "off" else None
    if turned is None:
        return ChickenTable(None, frozenset(), False)
    deltas = (1,) if mode == "next" else (1, -1)
    made = frozenset(turned.shifted(d) for d in deltas) - {YAOJI}
    return ChickenTable(turned, made, turned is Tile.S9)


def first_yaoji(rnd: Round) -> tuple[int, RiverEntry] | None:
    """The table's first discarded ``1s``: its discarder and river entry (D17, D19)."""
    found = [
        (entry.order, seat, entry)
        for seat, s in enumerate(rnd.seats)
        for entry in s.river
        if entry.tile is YAOJI
    ]
    if not found:
        return None
    _, seat, entry = min(found, key=lambda f: f[0])
    return seat, entry


def first_chicken_category(rnd: Round) -> str:
    """``英雄鸡`` or ``冲锋鸡``, by setting ``first_chicken`` (D17)."""
    return "英雄鸡" if rnd.settings["first_chicken"] == "hero" else "冲锋鸡"


def first_chicken_value(rnd: Round, jin: bool) -> int:
    """D17: 3 for 英雄鸡 or 2 for 冲锋鸡, doubled under 金鸡."""
    base = 3 if rnd.settings["first_chicken"] == "hero" else 2
    return base * (2 if jin else 1)


def _zeren(rnd: Round) -> tuple[int, int, Meld] | None:
    """The 责任鸡 pair (discarder, claimer) and the claimer's ``1s`` meld (D19)."""
    first = first_yaoji(rnd)
    if first is None or first[1].claimed_by is None:
        return None
    claimer = first[1].claimed_by
    meld = next(m for m in rnd.seats[claimer].melds if m.tile is YAOJI)
    return first[0], claimer, meld


def _chongfeng(rnd: Round) -> tuple[int, RiverEntry] | None:
    """The 冲锋鸡: the first ``1s`` if it is still in its river (D17)."""
    first = first_yaoji(rnd)
    return first if first is not None and first[1].in_river else None


def owned_chickens(
    rnd: Round, seat: int, table: ChickenTable, *, river: bool, skip_meld: Meld | None = None
) -> dict[Tile, int]:
    """D16: chicken tiles ``seat`` owns, by tile: hand, melds and (if ``river``) its river.

    The 冲锋鸡 tile and ``skip_meld`` (a 责任鸡 meld between its pair) are left out.
    """
    s = rnd.seats[seat]
    chongfeng = _chongfeng(rnd)
    out: dict[Tile, int] = {}
    for tile in table.tiles:
        count = s.hand[tile] + sum(m.size for m in s.melds if m.tile is tile and m != skip_meld)
        if river:
            count += sum(
                1
                for e in s.river
                if e.tile is tile and e.in_river and (chongfeng is None or e is not chongfeng[1])
            )
        if count:
            out[tile] = count
    return out


def _exposed_yaoji(rnd: Round, seat: int, skip_meld: Meld | None) -> int:
    """D18: the ``1s`` a not-ready ``seat`` exposed, in its river or its melds."""
    chongfeng = _chongfeng(rnd)
    s = rnd.seats[seat]
    river = sum(
        1
        for e in s.river
        if e.tile is YAOJI and e.in_river and (chongfeng is None or e is not chongfeng[1])
    )
    return river + sum(m.size for m in s.melds if m.tile is YAOJI and m != skip_meld)


def _owned_lines(
    rnd: Round, table: ChickenTable, ready: list[bool], zeren: tuple[int, int, Meld] | None
) -> list[SettlementLine]:
    """D18: 普通鸡 and 翻牌鸡 between every two seats."""
    turned_name = "翻牌鸡" if rnd.settings["fanji"] == "next" else "上下鸡"
    yaoji_name, yaoji_rule = ("金鸡", "D15") if table.jin else ("幺鸡", "D18")
    both_out = zeren is not None and not ready[zeren[0]] and not ready[zeren[1]]
    lines: list[SettlementLine] = []
    for owner in range(rnd.players):
        for other in range(rnd.players):
            if other == owner:
                continue
            in_pair = zeren is not None and {owner, other} == {zeren[0], zeren[1]}
            skip = zeren[2] if zeren is not None and (in_pair or both_out) else None
            if ready[owner]:
                owned = owned_chickens(
                    rnd, owner, table, river=bool(rnd.settings["mantang"]), skip_meld=skip
                )
                yaoji = owned.pop(YAOJI, 0)
                turned = sum(owned.values())
                lines.append(
                    SettlementLine(
                        other,
                        owner,
                        yaoji_name,
                        yaoji * table.value(YAOJI),
                        yaoji_rule,
                        f"{yaoji}只",
                        kind=LineKind.CHICKEN,
                    )
                )
                lines.append(
                    SettlementLine(
                        other,
                        owner,
                        turned_name,
                        turned,
                        "D18",
                        f"{turned}只",
                        kind=LineKind.CHICKEN,
                    )
                )
            else:
                exposed = _exposed_yaoji(rnd, owner, skip)
                lines.append(
                    SettlementLine(
                        owner,
                        other,
                        yaoji_name,
                        exposed * table.value(YAOJI),
                        yaoji_rule,
                        f"未叫牌, 打出或碰杠的幺鸡{exposed}只",
                        kind=LineKind.CHICKEN,
                    )
                )
    return lines


def _zeren_lines(
    rnd: Round, table: ChickenTable, ready: list[bool], zeren: tuple[int, int, Meld]
) -> list[SettlementLine]:
    """D19: the 责任鸡 payment between the pair, or the pair's payments to the others."""
    discarder, claimer, meld = zeren
    factor = 2 if table.jin else 1
    if ready[discarder] and ready[claimer]:
        points = (meld.size + 2) * factor
        return [
            SettlementLine(
                discarder, claimer, "责任鸡", points, "D19", "双方叫牌", kind=LineKind.CHICKEN
            )
        ]
    if ready[claimer]:
        return [
            SettlementLine(
                discarder,
                claimer,
                "责任鸡",
                8 * factor,
                "D19",
                "打鸡者未叫牌",
                kind=LineKind.CHICKEN,
            )
        ]
    if ready[discarder]:
        return [
            SettlementLine(
                claimer,
                discarder,
                "责任鸡",
                8 * factor,
                "D19",
                "碰鸡者未叫牌",
                kind=LineKind.CHICKEN,
            )
        ]
    return [
        SettlementLine(
            payer, other, "责任鸡", 3 * factor, "D19", "双方未叫牌", kind=LineKind.CHICKEN
        )
        for payer in (discarder, claimer)
        for other in range(rnd.players)
        if other not in (discarder, claimer)
    ]


def chicken_lines(rnd: Round, table: ChickenTable, ready: list[bool]) -> list[SettlementLine]:
    """Every 鸡 line of a won hand (D17–D19), before the D20 voids."""
    zeren = _zeren(rnd)
    lines = _owned_lines(rnd, table, ready, zeren)
    chongfeng = _chongfeng(rnd)
    if chongfeng is not None:
        seat = chongfeng[0]
        value = first_chicken_value(rnd, table.jin)
        category = first_chicken_category(rnd)
        for other in range(rnd.players):
            if other != seat:
                payer, payee = (other, seat) if ready[seat] else (seat, other)
                lines.append(
                    SettlementLine(payer, payee, category, value, "D17", kind=LineKind.CHICKEN)
                )
    if zeren is not None:
        lines.extend(_zeren_lines(rnd, table, ready, zeren))
    return lines


def won_hand_ji_counts(
    rnd: Round, seat: int, table: ChickenTable, ready: list[bool], *, robbed: bool = False
) -> dict[str, int]:
    """D23 on a won hand: ``seat``'s 鸡 by kind and count, as :func:`chicken_lines` settles them.

    A ready (or winning) seat shows the chickens it collects on: the 幺鸡 (金鸡) and turned
    chickens it owns (D16, D18; the river only under 满堂鸡), its 冲锋鸡 (D17) and the 责任鸡
    (D19) when the pair's payment goes to it. A seat that is not ready shows the chickens it
    pays for: the ``1s`` it exposed in its river or melds (D18), its 冲锋鸡 and the 责任鸡; the
    ``1s`` hidden in its hand and its turned chickens cost it nothing and are not shown. A
    ready seat robbed by 抢杠 collects nothing (D20) and so shows none. Tiles are counted
    as tiles (a 1s kong is 4), the 冲锋鸡 and the 责任鸡 meld as 1 each; kinds at 0 are left out.
    """
    zeren = _zeren(rnd)
    chongfeng = _chongfeng(rnd)
    out: dict[str, int] = {}
    yaoji_name = "金鸡" if table.jin else "幺鸡"
    turned_name = "翻牌鸡" if rnd.settings["fanji"] == "next" else "上下鸡"
    if ready[seat]:
        if robbed:
            return {}
        owned = owned_chickens(rnd, seat, table, river=bool(rnd.settings["mantang"]))
        yaoji = owned.pop(YAOJI, 0)
        turned = sum(owned.values())
    else:
        both_out = zeren is not None and not ready[zeren[0]] and not ready[zeren[1]]
        skip = zeren[2] if zeren is not None and both_out else None
        yaoji = _exposed_yaoji(rnd, seat, skip)
        turned = 0
    if yaoji:
        out[yaoji_name] = yaoji
    if turned:
        out[turned_name] = turned
    if chongfeng is not None and chongfeng[0] == seat:
        out[first_chicken_category(rnd)] = 1
    if zeren is not None:
        discarder, claimer, _ = zeren
        # The claimer always takes part (collects when ready, pays when not); the discarder
        # pays when not ready and collects only when the claimer is not ready.
        if seat == claimer or (seat == discarder and not (ready[seat] and ready[claimer])):
            out["责任鸡"] = 1
    return out


def _river_yaoji(rnd: Round, seat: int) -> tuple[bool, int]:
    """D21.3: whether ``seat``'s river holds the table's first ``1s`` (unclaimed), and how
    many later unclaimed ``1s`` it holds."""
    first = first_yaoji(rnd)
    has_first = False
    later = 0
    for entry in rnd.seats[seat].river:
        if entry.tile is not YAOJI or not entry.in_river:
            continue
        if first is not None and entry is first[1]:
            has_first = True
        else:
            later += 1
    return has_first, later


def exhausted_yaoji_lines(rnd: Round, ready: list[bool]) -> list[SettlementLine]:
    """D21.3: each not-ready seat pays every other seat for the ``1s`` left in its river."""
    lines: list[SettlementLine] = []
    for seat in range(rnd.players):
        if ready[seat]:
            continue
        has_first, later = _river_yaoji(rnd, seat)
        others = [other for other in range(rnd.players) if other != seat]
        if has_first:
            category = first_chicken_category(rnd)
            value = first_chicken_value(rnd, False)
            lines.extend(
                SettlementLine(seat, other, category, value, "D21", kind=LineKind.CHICKEN)
                for other in others
            )
        lines.extend(
            SettlementLine(seat, other, "幺鸡", later, "D21", f"{later}只", kind=LineKind.CHICKEN)
            for other in others
        )
    return lines


def exhausted_yaoji_counts(rnd: Round, seat: int, ready: bool) -> dict[str, int]:
    """D23 on 黄庄: ``seat``'s 鸡 by kind and count, as D21 settles them.

    On 黄庄 nobody collects for chickens they own; the only 鸡 that count are the unclaimed
    ``1s`` in the river of a player who is not ready: the table's first as 英雄鸡 (or 冲锋鸡),
    each later one as 幺鸡. So a ready player shows none.
    """
    if ready:
        return {}
    has_first, later = _river_yaoji(rnd, seat)
    out: dict[str, int] = {}
    if has_first:
        out[first_chicken_category(rnd)] = 1
    if later:
        out["幺鸡"] = later
    return out
