"""Fan of a 自贡 hand (Z11): the pattern, 清一色, 根, 卡二条 and the situational bonuses.

:func:`hand_fan` scores a complete hand by what it holds (the part 查叫 counts, Z16);
:func:`win_fan` adds the bonuses that depend on how the win was made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from majiang.analysis import Decomposition, Group, GroupKind, decompositions
from majiang.state import Meld, Win, WinSource
from majiang.tiles import Tile

__all__ = ["Fan", "hand_fan", "win_fan"]

_SEVEN_PAIRS = ("七对", "龙七对", "双龙七对", "三龙七对")
_PATTERN_FAN = {"平胡": 0, "碰碰胡": 1, "七对": 2, "龙七对": 3, "双龙七对": 4, "三龙七对": 5}
_KA_ER = Group(GroupKind.CHOW, Tile.S1)


@dataclass(frozen=True, slots=True)
class Fan:
    """A scored hand: its pattern and every item that adds fan, in order.

    ``items`` holds (name, fan) pairs, the pattern first. ``capped_at`` is set for 天胡 and
    地胡, whose fan is the cap whatever the items say.
    """

    pattern: str
    qing: bool
    items: tuple[tuple[str, int], ...]
    capped_at: int | None = None

    @property
    def total(self) -> int:
        """The fan before the cap."""
        if self.capped_at is not None:
            return self.capped_at
        return sum(fan for _, fan in self.items)

    @property
    def name(self) -> str:
        """The pattern's name for a settlement category, for example ``清七对``."""
        if self.pattern in ("天胡", "地胡"):
            return self.pattern
        if self.qing:
            return "清一色" if self.pattern == "平胡" else "清" + self.pattern
        return self.pattern

    def plus(self, *items: tuple[str, int]) -> Fan:
        """This fan with more items added."""
        return Fan(self.pattern, self.qing, self.items + items, self.capped_at)

    def capped(self, cap: int) -> int:
        """The fan after the cap."""
        return min(self.total, cap)

    def note(self, cap: int, extra: int = 0) -> str:
        """The breakdown players read, for example ``清一色+2 根+1 = 3番, 2^3=8``.

        ``extra`` is fan added on top (the 报叫 of 反查叫, Z18) before the cap.
        """
        fan = min(self.total + extra, cap)
        if self.capped_at is not None:
            return f"{self.pattern} = 封顶{fan}番, 2^{fan}={2**fan}"
        parts = [f"{name}+{value}" for name, value in self.items]
        if extra:
            parts.append(f"报叫+{extra}")
        raw = self.total + extra
        capped = f" (封顶{cap}番)" if raw > cap else ""
        return f"{' '.join(parts)} = {raw}番{capped}, 2^{fan}={2**fan}"


def _full_counts(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    full = list(counts)
    for meld in melds:
        full[meld.tile] += meld.size
    return full


def _score(decomposition: Decomposition, full: Sequence[int], qing: bool, tile: Tile) -> Fan:
    items: list[tuple[str, int]] = []
    if decomposition.seven_pairs:
        fours = sum(1 for c in full if c == 4)
        pattern = _SEVEN_PAIRS[min(fours, 3)]
        items.append((pattern, _PATTERN_FAN[pattern]))
    else:
        all_pungs = all(g.kind is GroupKind.PUNG for g in decomposition.sets)
        pattern = "碰碰胡" if all_pungs else "平胡"
        items.append((pattern, _PATTERN_FAN[pattern]))
    if qing:
        items.append(("清一色", 2))
    if not decomposition.seven_pairs:
        gen = sum(1 for c in full if c == 4)
        if gen:
            items.append(("根", gen))
        if tile is Tile.S2 and _KA_ER in decomposition.sets:
            items.append(("卡二条", 1))
    return Fan(pattern, qing, tuple(items))


def hand_fan(counts: Sequence[int], melds: Sequence[Meld], tile: Tile) -> Fan | None:
    """The best fan of a complete hand by what it holds (pattern, 清一色, 根, 卡二条).

    ``counts`` are the 27 concealed counts including the winning ``tile``. ``None`` when the
    hand is not complete.
    """
    full = _full_counts(counts, melds)
    suits = {i // 9 for i, c in enumerate(full) if c}
    qing = len(suits) == 1
    best: Fan | None = None
    for decomposition in decompositions(counts, melds=len(melds)):
        fan = _score(decomposition, full, qing, tile)
        if best is None or fan.total > best.total:
            best = fan
    return best


def win_fan(win: Win, settings: Mapping[str, Any]) -> Fan:
    """The fan of a recorded win with every Z11 bonus that applies."""
    if settings["tiandihu"] and (win.heavenly or win.earthly):
        pattern = "天胡" if win.heavenly else "地胡"
        cap = int(settings["fan_cap"])
        return Fan(pattern, False, ((pattern, cap),), capped_at=cap)
    fan = hand_fan(win.counts, win.melds, win.tile)
    assert fan is not None, "a recorded win is a complete hand"
    bonuses: list[tuple[str, int]] = []
    if len(win.melds) == 4:
        bonuses.append(("金钩钩", 1))
    if win.kong_replacement:
        bonuses.append(("杠上开花", 1))
    if win.after_kong_discard:
        bonuses.append(("杠上炮", 1))
    if win.source is WinSource.ROBBING:
        bonuses.append(("抢杠胡", 1))
    if win.declared:
        bonuses.append(("报叫", 1))
    if win.source is WinSource.SELF_DRAW and settings["zimo"] == "add_fan":
        bonuses.append(("自摸", 1))
    return fan.plus(*bonuses)
