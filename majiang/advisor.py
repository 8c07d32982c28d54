"""An advisor that ranks one seat's legal actions from that seat's observation alone.

It reads nothing but the observation :meth:`Round.observation` gives the seat (its own
tiles, every river and meld, the wall's size) and the room settings, so a computer seat or
a seat in 托管 plays on exactly what a player would see. The ranking combines:

- **shanten** (向听数: how many tiles from ready), from a per-suit table of sets and partial
  sets, seven pairs included;
- **useful tiles** weighted by how many copies are still unseen, and, for a ready hand,
  each wait's value under the variant's scoring (with the melds and declaration it would
  be won with: a hypothetical 碰 or 杠, 报听 or 报叫);
- a kong's **replacement tile**, a draw besides the seat's turn;
- **per-variant values** (:class:`Valuation`): 都匀 patterns and the 平胡-on-a-discard rule
  (D6, D7), 幺鸡 and 冲锋鸡/责任鸡 risk (D17–D19), 翻牌鸡 chances (D15), 豆 (D11, D12) and
  报听 (D9); 自贡 fan with 根 (Z11), 报叫/报杠 (Z19, Z20), 查叫 and 退税 near the end of the
  wall (Z16, Z17).

Ties break by a hash of the seed and the action, so a decision depends only on the
observation, the legal actions and the seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from majiang.actions import Action, ActionType
from majiang.analysis import keys_of
from majiang.state import Meld, MeldKind
from majiang.tiles import Tile, parse_tile
from majiang.variants import get_variant
from majiang.variants.duyun.patterns import pattern_of
from majiang.variants.zigong.fan import hand_fan

__all__ = [
    "LEVELS",
    "DuyunValuation",
    "Hint",
    "Ranked",
    "SeatView",
    "Valuation",
    "ZigongValuation",
    "choose",
    "discard_hints",
    "rank",
    "shanten",
    "shanten_counts",
    "unseen_counts",
    "useful_tiles",
]

_TILES = tuple(Tile)
_WIN = 1_000_000.0
_SHANTEN_WEIGHT = 60.0


# -- shanten ---------------------------------------------------------------------------------


_SHAPES = (
    ((0, 0, 0), (1, 0, 0)),  # pung
    ((0, 1, 2), (1, 0, 0)),  # sequence
    ((0, 0), (0, 0, 1)),  # pair
    ((0, 1), (0, 1, 0)),  # two in a row
    ((0, 2), (0, 1, 0)),  # two with a gap
    ((0,), (0, 0, 0)),  # a lone tile
)

_Readings = tuple[tuple[int, int, int], ...]


def _pareto(found: set[tuple[int, int, int]]) -> _Readings:
    """The readings no other is at least as good as in all three counts, best first. In
    that order a reading can only be bettered by an earlier one, which has at least as many
    sets, and then by an earlier one kept."""
    best: list[tuple[int, int, int]] = []
    for o in sorted(found, reverse=True):
        for p in best:
            if p[1] >= o[1] and p[2] >= o[2]:
                break
        else:
            best.append(o)
    return tuple(best)


def _pack(readings: _Readings) -> int:
    """A Pareto set of readings as one int, 13 bits a reading (a marker bit, then 4 bits for
    each count; no count exceeds 14 tiles' 7): many suits (and pairs of suits) read alike, so
    :func:`_standard` is computed once per pair of ints, and an int names a set without a
    table that would grow (issue 51)."""
    out = 0
    for m, t, p in reversed(readings):
        out = out << 13 | 1 << 12 | m << 8 | t << 4 | p
    return out


def _unpack(packed: int) -> _Readings:
    out = []
    while packed:
        out.append(((packed >> 8) & 15, (packed >> 4) & 15, packed & 15))
        packed >>= 13
    return tuple(out)


# The hint caches are bounded (issue 51: they ran in every move thread and never gave memory
# back). Sizes from benchmarks/rules_bench.py's hint-cache figures: past these the hit rate
# and the hint time barely change.


@lru_cache(maxsize=1 << 15)
def _suit_reading(key: int) -> int:
    """The Pareto-best (sets, partial sets, pairs) readings of one suit's tiles, given as a
    suit key (3 bits per rank), packed by :func:`_pack`. Pairs beyond the first count as
    partial sets later."""
    if key == 0:
        return _pack(((0, 0, 0),))
    rank = 0
    while not (key >> (3 * rank)) & 7:
        rank += 1
    found: set[tuple[int, int, int]] = set()
    for offsets, (dm, dt, dp) in _SHAPES:
        rest = key
        for offset in offsets:
            r = rank + offset
            if r > 8 or not (rest >> (3 * r)) & 7:
                break
            rest -= 1 << (3 * r)
        else:
            for m, t, p in _unpack(_suit_reading(rest)):
                found.add((m + dm, t + dt, p + dp))
    return _pack(_pareto(found))


def _pair_reading(ka: int, kb: int) -> int:
    """The :func:`_pack` of two suits read together. A seat's hints change one suit at a
    time, so the other two are read once per hand, not once per candidate tile."""
    return _combined(_suit_reading(ka), _suit_reading(kb))


@lru_cache(maxsize=1 << 14)
def _combined(one: int, two: int) -> int:
    """The :func:`_pack` of two packed readings' sums."""
    return _pack(_pareto({
        (a[0] + b[0], a[1] + b[1], a[2] + b[2])
        for a in _unpack(one) for b in _unpack(two)
    }))


def _suit_pairs(key: int) -> int:
    """Pairs in one suit for seven pairs, four identical tiles counting as two (D6 龙七对, Z11)."""
    return sum(((key >> (3 * r)) & 7) // 2 for r in range(9))


@lru_cache(maxsize=1 << 16)
def _standard(one: int, two: int, need: int) -> int:
    """The standard-form shanten of one suit's readings combined with the other two's, both
    packed by :func:`_pack`, with ``need`` sets to make."""
    best = 8
    for a0, a1, a2 in _unpack(one):
        for b0, b1, b2 in _unpack(two):
            m = a0 + b0
            t = a1 + b1
            p = a2 + b2
            if p > 1:
                t += p - 1
                p = 1
            m = min(m, need)
            if m + t > need:
                t = need - m
            best = min(best, 2 * need - 2 * m - t - p)
    return best


def shanten(k0: int, k1: int, k2: int, melds: int) -> int:
    """Shanten of concealed tiles given as three suit keys, with ``melds`` declared sets:
    -1 complete, 0 ready (听牌), n tiles from ready otherwise. Seven pairs count when there
    are no melds."""
    best = _standard(_suit_reading(k2), _pair_reading(k0, k1), 4 - melds)
    if melds == 0:
        pairs = _suit_pairs(k0) + _suit_pairs(k1) + _suit_pairs(k2)
        best = min(best, 6 - min(pairs, 7))
    return best


def shanten_counts(counts: Sequence[int], melds: int = 0) -> int:
    """:func:`shanten` of a 27-entry count list."""
    k = keys_of(counts)
    return shanten(k[0], k[1], k[2], melds)


# -- what a seat sees -----------------------------------------------------------------------


_BY_CODE = {tile.code: tile for tile in Tile}


def _tile(code: str) -> Tile:
    """:func:`parse_tile`, by a look-up for the 27 well-formed codes (an observation names
    hundreds of tiles)."""
    try:
        return _BY_CODE[code]
    except (KeyError, TypeError):
        return parse_tile(code)


def _concealed(me: Mapping[str, Any]) -> list[int]:
    """The 27 counts of the seat's concealed tiles, the drawn tile included."""
    counts = [0] * 27
    for code in me["hand"]:
        counts[_tile(code)] += 1
    if me.get("drawn"):
        counts[_tile(me["drawn"])] += 1
    return counts


@dataclass(frozen=True, slots=True)
class SeatView:
    """The facts the advisor takes from one seat's observation."""

    variant: str
    seat: int
    counts: tuple[int, ...]
    """The seat's concealed tiles (the drawn tile included), 27 counts."""
    melds: tuple[Meld, ...]
    unseen: tuple[int, ...]
    """Copies of each tile kind this seat has not seen (wall and others' hands)."""
    wall_remaining: int
    declared: bool
    others_declared: tuple[int, ...]
    chickens_discarded: int
    """How many 幺鸡 have been discarded, claimed ones included (only the first can be 冲锋鸡
    or 责任鸡, D17, D19)."""
    safe: frozenset[Tile]
    """Tiles already discarded by a seat that declared ready (it did not win on them)."""
    panel: tuple[Tile, ...]
    """The open 报杠 panel's tiles (自贡, Z20), if any."""
    players: int

    @property
    def has_kong(self) -> bool:
        """Whether the seat owns a 豆 (any kong, D11)."""
        return any(m.kind is not MeldKind.PUNG for m in self.melds)

    @property
    def in_melds(self) -> list[int]:
        """Copies of each tile kind in the seat's own melds."""
        return _meld_counts(self.melds)


def _meld_counts(melds: Sequence[Meld]) -> list[int]:
    held = [0] * 27
    for meld in melds:
        held[meld.tile] += meld.size
    return held


def unseen_counts(observation: Mapping[str, Any]) -> list[int]:
    """How many copies of each tile kind ``observation``'s seat has not seen: four of each
    kind in play, less its own tiles, every meld, every river tile still lying there, the
    tiles laid open by winners and the 萝卜 tiles."""
    kinds = get_variant(str(observation["variant"])).tile_kinds({})
    left = [0] * 27
    for tile in kinds:
        left[tile] = 4
    me = observation["me"]
    seen = _concealed(me)
    seats = observation["seats"]
    for s in seats:
        for meld in s["melds"]:
            seen[_tile(meld["tile"])] += 3 if meld["kind"] == "pung" else 4
        for entry in s["river"]:
            won_by = entry.get("won_by")
            if won_by:
                # 一炮多响: one tile lies in every winner's open hand (and in this seat's own
                # hand if it won too); count it once.
                shown = sum(
                    1 for w in won_by if w == me["seat"] or "concealed" in seats[w]
                )
                seen[_tile(entry["tile"])] -= max(0, shown - 1)
            elif "claimed_by" not in entry:
                seen[_tile(entry["tile"])] += 1
        if s["seat"] != me["seat"] and "concealed" in s:
            for code in s["concealed"]:
                seen[_tile(code)] += 1
    for code in observation.get("luobo", ()):
        seen[_tile(code)] += 1
    return [max(0, n - k) for n, k in zip(left, seen, strict=True)]


def _view(observation: Mapping[str, Any]) -> SeatView:
    me = observation["me"]
    seat = int(me["seat"])
    counts = _concealed(me)
    mine = observation["seats"][seat]
    melds = tuple(
        Meld(MeldKind(m["kind"]), _tile(m["tile"]), m.get("from")) for m in mine["melds"]
    )
    safe: set[Tile] = set()
    declared_others = []
    chickens = 0
    for s in observation["seats"]:
        for entry in s["river"]:
            if entry["tile"] == "1s":
                chickens += 1
        if s["seat"] != seat and s["declared"] and not s["won"]:
            declared_others.append(int(s["seat"]))
            safe.update(_tile(e["tile"]) for e in s["river"])
    return SeatView(
        variant=str(observation["variant"]),
        seat=seat,
        counts=tuple(counts),
        melds=melds,
        unseen=tuple(unseen_counts(observation)),
        wall_remaining=int(observation["wall_remaining"]),
        declared=bool(mine["declared"]),
        others_declared=tuple(declared_others),
        chickens_discarded=chickens,
        safe=frozenset(safe),
        panel=tuple(_tile(c) for c in me.get("baogang_panel", ())),
        players=int(observation["players"]),
    )


# -- per-variant values ------------------------------------------------------------------------


class Valuation:
    """What a variant's scoring adds to the generic shape judgement. The base is plain
    mahjong: every win is worth the same."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    def wait_value(self, view: SeatView, counts: Sequence[int], tile: Tile) -> float:
        """The worth of waiting on ``tile`` with the 13 ``counts``: about 1 for the
        smallest win."""
        return 1.0

    def discard_value(self, view: SeatView, counts: Sequence[int], tile: Tile, sh: int) -> float:
        """What discarding ``tile`` itself gains or risks; ``counts`` and ``sh`` are the hand
        and its shanten after the discard."""
        return 0.0

    def keep_value(self, view: SeatView, counts: Sequence[int]) -> float:
        """What holding these 13 tiles is worth beyond their shape."""
        return 0.0

    def kong_value(self, view: SeatView, tile: Tile, sh: int) -> float:
        """What a kong of ``tile`` is worth, given the shanten after it."""
        return 4.0 if sh <= 1 else 1.0

    def pung_value(self, view: SeatView, tile: Tile, sh: int) -> float:
        """What a 碰 of ``tile`` adds beyond the shape, given the shanten after it."""
        return 0.0

    def declare_value(self, view: SeatView, counts: Sequence[int], waits: float) -> float:
        """What declaring ready with the 13 ``counts`` and ``waits`` unseen winning tiles
        (weighted by their value once declared) adds to the declared hand's score; negative
        for what the declaration costs."""
        return -1.0


class DuyunValuation(Valuation):
    """都匀捉鸡 (D6–D21)."""

    def _pattern_points(
        self, view: SeatView, counts: Sequence[int], tile: Tile
    ) -> tuple[int, bool]:
        full = list(counts)
        full[tile] += 1
        found = pattern_of(full, view.melds)
        if found is None:
            return 1, True
        return found.points, found.pinghu

    def wait_value(self, view: SeatView, counts: Sequence[int], tile: Tile) -> float:
        points, pinghu = self._pattern_points(view, counts, tile)
        if view.declared:
            points += 10  # D10: 报听 +10 from each payer
        value = 1.0 + points / 3.0
        # D7: a 平胡 won on a discard needs a 豆 (or 报听): without one only 自摸 counts.
        if (
            pinghu
            and self.settings.get("pinghu_discard_needs_dou", True)
            and not view.has_kong
            and not view.declared
        ):
            value *= 1.0 / max(1, view.players - 1)
        return value

    def discard_value(self, view: SeatView, counts: Sequence[int], tile: Tile, sh: int) -> float:
        value = 0.0
        if tile is Tile.S1:
            # D17/D19: the first 幺鸡 pays or costs 冲锋鸡 by the discarder's ready state at the
            # end, and a 碰 of it makes 责任鸡; later ones cost 1 each when not ready (D18).
            hero = 3.0 if self.settings.get("first_chicken", "hero") == "hero" else 2.0
            stake = hero if not view.chickens_discarded else 1.0
            payers = view.players - 1
            if sh == 0:
                value += stake * payers * 0.6
            else:
                value -= stake * payers * (1.0 + 0.5 * sh)
            value -= 6.0  # a 幺鸡 held is a chicken that pays when the hand ends ready
        return value

    def keep_value(self, view: SeatView, counts: Sequence[int]) -> float:
        # D15 翻牌鸡: the turned tile makes the next rank a chicken; what the seat owns of that
        # rank, its melds included (D16), pays when the hand ends ready. Chance by unseen
        # copies of each rank below.
        total = sum(view.unseen) or 1
        value = 0.0
        for index, n in enumerate(counts):
            if n:
                below = index - 1 if index % 9 else index + 8
                value += n * view.unseen[below] / total * 3.0
        for meld in view.melds:
            below = meld.tile - 1 if meld.tile % 9 else meld.tile + 8
            value += meld.size * view.unseen[below] / total * 3.0
        return value

    def kong_value(self, view: SeatView, tile: Tile, sh: int) -> float:
        # D11/D12: a 豆 pays 3 from each other seat when its owner ends ready, and lets a
        # 平胡 win on a discard (D7); two from ready, the hand still ends ready often enough
        # (issue 45: a declined free kong there cost 2.4 points). A 幺鸡 kong costs when the
        # hand ends not ready (D18).
        value = 9.0 if sh <= 1 else 6.0 if sh == 2 else 3.0
        if tile is Tile.S1 and sh > 1:
            value -= 4.0
        return value

    def pung_value(self, view: SeatView, tile: Tile, sh: int) -> float:
        # D19 责任鸡: 碰 the first discarded 幺鸡 pays well when the claimer ends ready.
        if tile is Tile.S1 and view.chickens_discarded == 1:
            return 8.0 if sh <= 1 else -4.0
        return 0.0

    def declare_value(self, view: SeatView, counts: Sequence[int], waits: float) -> float:
        # D9: 报听 freezes the hand (no 碰, 杠 or change of waits); its +10 (D10) and the lifted
        # 豆 need (D7) are in the declared hand's wait values.
        return -2.0


class ZigongValuation(Valuation):
    """自贡麻将 (Z11–Z20)."""

    def wait_value(self, view: SeatView, counts: Sequence[int], tile: Tile) -> float:
        full = list(counts)
        full[tile] += 1
        fan = hand_fan(full, view.melds, tile)
        total = (fan.total if fan is not None else 0) + view.declared  # Z19: 报叫 +1 fan
        cap = int(self.settings.get("fan_cap", 4))
        return float(2 ** min(total, cap))

    def kong_value(self, view: SeatView, tile: Tile, sh: int) -> float:
        # Z14/Z17: kong money is refunded (退税) by a hand that ends not ready, so a kong far
        # from ready loses nothing but its tiles' other uses; Z11: a kong is a 根 (+1 fan)
        # for a ready hand. Issue 45: declined kongs that cost no shanten cost 1.5 to 1.7
        # points one or two from ready, late in the wall too.
        if sh <= 0:
            return 8.0
        if sh == 1:
            return 4.0
        return 2.0

    def declare_value(self, view: SeatView, counts: Sequence[int], waits: float) -> float:
        # Z18: a 报叫 seat that does not win pays 反查叫; its fan (Z19) is in the declared
        # hand's wait values, so declare only with plenty of live winning tiles.
        return -5.0


_VALUATIONS: dict[str, type[Valuation]] = {"duyun": DuyunValuation, "zigong": ZigongValuation}


def _valuation(variant: str, settings: Mapping[str, Any] | None) -> Valuation:
    checked = get_variant(variant).schema.validate(dict(settings or {}))
    return _VALUATIONS.get(variant, Valuation)(checked)


# -- judging a hand ----------------------------------------------------------------------------


@lru_cache(maxsize=1 << 13)
def _draws(key: int) -> tuple[tuple[int, int, int], ...]:
    """For each rank of one suit that could lower the shanten, (the rank, the
    :func:`_pack`-ed readings and the seven-pairs pairs of the suit with it drawn). Those ranks
    lie within two of a held tile (an isolated new tile forms no set, pair or partial set)
    with fewer than four held."""
    held = [(key >> (3 * r)) & 7 for r in range(9)]
    found = []
    for r in range(9):
        if held[r] < 4 and any(held[max(0, r - 2):r + 3]):
            more = key + (1 << (3 * r))
            found.append((r, _suit_reading(more), _suit_pairs(more)))
    return tuple(found)


def useful_tiles(
    counts: Sequence[int], melds: int, unseen: Sequence[int],
    in_melds: Sequence[int] | None = None,
) -> tuple[int, list[tuple[Tile, int]]]:
    """The shanten of 13-equivalent ``counts`` (``13 - 3 * melds`` tiles) and the tiles
    that lower it, each with its unseen copies. For a ready hand those are its waits.
    ``in_melds`` counts the copies of each kind in the seat's own melds: a kind of which the
    seat holds all four is never drawn, so it is no wait (as :meth:`Round.waits` reads it)."""
    return _useful_keys(keys_of(counts), melds, unseen, in_melds)


def _useful_keys(
    keys: Sequence[int], melds: int, unseen: Sequence[int],
    in_melds: Sequence[int] | None = None,
) -> tuple[int, list[tuple[Tile, int]]]:
    """:func:`useful_tiles` of concealed tiles given as three suit keys. A drawn tile
    changes one suit, so each suit's candidates are read against the other two's pair."""
    sh, found = _useful_shape(keys, melds, unseen, in_melds)
    if sh == 0 and not found:
        # Ready only on tiles the seat holds all four of: not ready. One draw and one discard
        # away; the useful draws are those after which some discard leaves a live wait.
        useful = []
        for index in range(27):
            more = _add(keys, index, 1)
            if not _drawable(more, index, in_melds):
                continue
            for out in range(27):
                if (more[out // 9] >> (3 * (out % 9))) & 7:
                    after, waits = _useful_shape(_add(more, out, -1), melds, unseen, in_melds)
                    if after == 0 and waits:
                        useful.append((_TILES[index], unseen[index]))
                        break
        return 1, useful
    return sh, found


def _add(keys: Sequence[int], index: int, n: int) -> list[int]:
    out = list(keys)
    out[index // 9] += n << (3 * (index % 9))
    return out


def _drawable(keys: Sequence[int], index: int, in_melds: Sequence[int] | None) -> bool:
    """Whether ``keys`` (with the tile ``index`` added) hold at most four of it, melds too."""
    held = (keys[index // 9] >> (3 * (index % 9))) & 7
    return held + (in_melds[index] if in_melds is not None else 0) <= 4


def _useful_shape(
    keys: Sequence[int], melds: int, unseen: Sequence[int], in_melds: Sequence[int] | None
) -> tuple[int, list[tuple[Tile, int]]]:
    k0, k1, k2 = keys
    sh = shanten(k0, k1, k2, melds)
    need = 4 - melds
    pairs = _suit_pairs(k0) + _suit_pairs(k1) + _suit_pairs(k2)
    # Seven pairs (no melds) lowers the shanten when the pairs exceed this many.
    limit = 6 - sh if melds == 0 and sh >= 0 else 1 << 30
    found: list[tuple[Tile, int]] = []
    for suit in range(3):
        key = keys[suit]
        others = _pair_reading(keys[(suit + 1) % 3], keys[(suit + 2) % 3])
        rest = pairs - _suit_pairs(key)
        for rank, reading, more in _draws(key):
            if _standard(reading, others, need) < sh or rest + more > limit:
                index = 9 * suit + rank
                if in_melds is None or ((key >> (3 * rank)) & 7) + in_melds[index] < 4:
                    found.append((_TILES[index], unseen[index]))
    return sh, found


class _Judge:
    """Scores 13-equivalent hands of one seat on one scale, caching by hand."""

    def __init__(self, view: SeatView, values: Valuation) -> None:
        self.view = view
        self.values = values
        self.cache: dict[tuple[tuple[int, ...], int], tuple[float, int, float]] = {}
        self.endgame = max(0.0, 1.0 - view.wall_remaining / 40.0)
        self.in_melds = view.in_melds
        self.others: dict[tuple[tuple[Meld, ...], bool], _Judge] = {}

    def after(self, melds: tuple[Meld, ...] | None = None, *, declared: bool = False) -> _Judge:
        """The judge of this seat with ``melds`` declared (a hypothetical 碰 or 杠) or ready
        declared (报听, 报叫): waits are valued with the melds and declaration they would
        be won with (a kong's 根 and 豆, 报听's +10)."""
        key = (self.view.melds if melds is None else melds, declared or self.view.declared)
        if key == (self.view.melds, self.view.declared):
            return self
        found = self.others.get(key)
        if found is None:
            view = replace(self.view, melds=key[0], declared=key[1])
            found = self.others[key] = _Judge(view, self.values)
        return found

    def hand(self, counts: Sequence[int], melds: int) -> tuple[float, int, float]:
        """(score, shanten, value-weighted unseen waits) of 13-equivalent ``counts``."""
        key = (tuple(counts), melds)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        view = self.view
        sh, useful = useful_tiles(counts, melds, view.unseen, self.in_melds)
        waits = 0.0
        if sh == 0:
            waits = sum(n * self.values.wait_value(view, counts, t) for t, n in useful)
            shape = 3.0 * waits
        else:
            shape = float(sum(n for _, n in useful))
        score = (
            -_SHANTEN_WEIGHT * sh
            # 查叫 and 退税 (D21, Z16, Z17): a hand not ready when the wall runs out pays, so
            # readiness weighs more as the wall shrinks.
            - 40.0 * self.endgame * min(sh, 2)
            + shape
            + self.values.keep_value(view, counts)
        )
        result = (score, sh, waits)
        self.cache[key] = result
        return result

    def replacement(self, counts: Sequence[int], melds: int) -> float:
        """The worth of a kong's replacement tile to 13-equivalent ``counts``: a draw besides
        the seat's turn, which :meth:`hand` does not see. A useful tile (by its unseen
        copies among all unseen) takes the hand one step nearer ready; for a ready hand it
        is a chance of 杠上花 (D10, Z11), valued as its waits are."""
        view = self.view
        sh, useful = useful_tiles(counts, melds, view.unseen, self.in_melds)
        total = sum(view.unseen)
        if sh < 0 or not total:
            return 0.0
        if sh == 0:
            return 3.0 * self.hand(counts, melds)[2] * sum(n for _, n in useful) / total
        step = _SHANTEN_WEIGHT + (40.0 * self.endgame if sh <= 2 else 0.0)
        return step * sum(n for _, n in useful) / total


@dataclass(frozen=True, slots=True)
class Ranked:
    """One legal action (ticks chosen, for a 报杠 answer) and the advisor's score for it."""

    action: Action
    score: float


def _tiebreak(seed: str | int, action: Action) -> float:
    digest = hashlib.blake2b(f"{seed}|{action}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") / 2**32 * 1e-3


def _without(counts: Sequence[int], tile: Tile, n: int = 1) -> list[int]:
    out = list(counts)
    out[tile] -= n
    return out


def _score(judge: _Judge, view: SeatView, action: Action) -> list[Ranked]:
    values = judge.values
    counts = view.counts
    melds = len(view.melds)
    concealed13 = sum(counts) + 3 * melds == 13
    kind = action.type
    if kind is ActionType.WIN:
        return [Ranked(action, _WIN)]
    if kind is ActionType.PASS:
        return [Ranked(action, judge.hand(counts, melds)[0] if concealed13 else 0.0)]
    if kind is ActionType.DECLARE:
        if view.panel:
            # Z20: tick one triplet (any single one keeps the hand ready); it is konged when
            # its fourth copy comes, for kong money and a 根.
            best = max(view.panel, key=lambda t: (view.unseen[t], -t))
            return [
                Ranked(replace(action, ticks=(best,)), 1.0),
                Ranked(action, 0.0),
            ]
        score, _, waits = judge.after(declared=True).hand(counts, melds)
        return [Ranked(action, score + 3.0 * values.declare_value(view, counts, waits))]
    assert action.tile is not None
    tile = action.tile
    if kind is ActionType.DISCARD:
        rest = _without(counts, tile)
        score, sh, waits = judge.after(declared=action.declare).hand(rest, melds)
        score += values.discard_value(view, rest, tile, sh)
        if view.others_declared and tile not in view.safe:
            score -= 4.0 * len(view.others_declared)
        if action.declare:
            score += 3.0 * values.declare_value(view, rest, waits)
        return [Ranked(action, score)]
    if kind is ActionType.PUNG:
        rest = _without(counts, tile, 2)
        punged = judge.after((*view.melds, Meld(MeldKind.PUNG, tile)))
        after_pung = max(
            (punged.hand(_without(rest, _TILES[i]), melds + 1) for i in range(27) if rest[i]),
            key=lambda r: r[0],
        )
        return [Ranked(action, after_pung[0] + values.pung_value(view, tile, after_pung[1]))]
    # KONG: on a discard (13 tiles), concealed (four in hand) or added to a 碰.
    if concealed13:
        rest, meld = _without(counts, tile, 3), Meld(MeldKind.EXPOSED_KONG, tile)
    elif counts[tile] == 4:
        rest, meld = _without(counts, tile, 4), Meld(MeldKind.CONCEALED_KONG, tile)
    else:
        rest, meld = _without(counts, tile), Meld(MeldKind.ADDED_KONG, tile)
    others = tuple(m for m in view.melds if m.tile is not tile)
    konged = judge.after((*others, meld))
    score, sh, _ = konged.hand(rest, len(others) + 1)
    score += konged.replacement(rest, len(others) + 1)
    return [Ranked(action, score + values.kong_value(view, tile, sh))]


LEVELS = ("easy", "standard", "expert")
"""The computer seats' levels: 简单, 标准 and 高手."""


def rank(
    observation: Mapping[str, Any],
    legal: Sequence[Action],
    *,
    seed: str | int = 0,
    settings: Mapping[str, Any] | None = None,
) -> list[Ranked]:
    """The seat's ``legal`` actions, best first, judged from ``observation`` alone (what
    :meth:`Round.observation` gives that seat) and the room ``settings`` (the variant's
    defaults when omitted). A 报杠 answer (Z20) comes with its ticks chosen."""
    view = _view(observation)
    return _rank(view, _valuation(view.variant, settings), legal, seed)


def _rank(view: SeatView, values: Valuation, legal: Sequence[Action], seed: str | int
          ) -> list[Ranked]:
    judge = _Judge(view, values)
    ranked = [
        Ranked(r.action, r.score + _tiebreak(seed, r.action))
        for action in legal
        for r in _score(judge, view, action)
    ]
    ranked.sort(key=lambda r: -r.score)
    return ranked


def choose(
    observation: Mapping[str, Any],
    legal: Sequence[Action] | None = None,
    *,
    level: str = "standard",
    seed: str | int = 0,
    settings: Mapping[str, Any] | None = None,
) -> Action:
    """The action of a computer seat at ``level`` (one of :data:`LEVELS`) for the seat of
    ``observation``, from that observation alone. ``legal`` defaults to the legal actions
    the observation lists.

    - ``standard`` (标准): the best of :func:`rank`.
    - ``easy`` (简单): plays for plain hands (every win worth the same, so no 报听/报叫 and
      no eye for patterns, 鸡 or 豆) and slips like a beginner: among the discards that keep
      its shape, one of the three best, by ``seed``; it never breaks a hand for nothing.
    - ``expert`` (高手): not built yet; plays as ``standard``.
    """
    if legal is None:
        legal = [Action.from_json(a) for a in observation["me"]["legal"]]
    if not legal:
        raise ValueError("the seat has no legal action to choose from")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    view = _view(observation)
    if level != "easy":
        return _rank(view, _valuation(view.variant, settings), legal, seed)[0].action
    plain = Valuation(get_variant(view.variant).schema.validate(dict(settings or {})))
    ranked = _rank(view, plain, legal, seed)
    best = ranked[0]
    if best.action.type is not ActionType.DISCARD:
        return best.action
    # Less than half a shanten step below the best: the same shape, a worse wait or tile.
    close = [r for r in ranked[:3] if r.action.type is ActionType.DISCARD
             and r.score > best.score - _SHANTEN_WEIGHT / 2]
    return close[int(_tiebreak(seed, best.action) * 1e3 * len(close)) % len(close)].action


# -- hints ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hint:
    """What discarding ``tile`` leaves: its shanten, and the tiles that would help (the
    waits when ready), each with its unseen copies."""

    tile: Tile
    shanten: int
    tiles: tuple[tuple[Tile, int], ...]

    @property
    def kinds(self) -> int:
        """How many tile kinds help (wait, when ready)."""
        return len(self.tiles)

    @property
    def left(self) -> int:
        """How many copies of them this seat has not seen."""
        return sum(n for _, n in self.tiles)

    @property
    def text(self) -> str:
        """The hint as players read it."""
        if self.shanten == 0:
            return f"打这张听 {self.kinds} 种，剩 {self.left} 张"
        return f"打这张差 {self.shanten} 张听牌，有效牌 {self.kinds} 种 {self.left} 张"

    def to_json(self) -> dict[str, Any]:
        """The hint as JSON for the table page."""
        return {
            "tile": self.tile.code,
            "shanten": self.shanten,
            "tiles": [[t.code, n] for t, n in self.tiles],
            "kinds": self.kinds,
            "left": self.left,
            "text": self.text,
        }


def discard_hints(observation: Mapping[str, Any]) -> list[Hint]:
    """For each tile the seat may discard now, what the discard leaves (听牌提示), from the
    seat's observation alone. Empty when the seat is not about to discard."""
    me = observation["me"]
    tiles = sorted(
        {_tile(a["tile"]) for a in me["legal"] if a["type"] == "discard" and "tile" in a}
    )
    if not tiles:
        return []
    keys = keys_of(_concealed(me))
    view = _view(observation)
    in_melds = view.in_melds
    hints = []
    for tile in tiles:
        sh, useful = _useful_keys(_add(keys, tile, -1), len(view.melds), view.unseen, in_melds)
        hints.append(Hint(tile, sh, tuple(useful)))
    return hints
