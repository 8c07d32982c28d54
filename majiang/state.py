"""The pieces of a round's state: phases, melds, seats, wins and kongs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from majiang.tiles import Tile

__all__ = [
    "EndReason",
    "Kong",
    "LockedChance",
    "Meld",
    "MeldKind",
    "Phase",
    "RiverEntry",
    "SeatState",
    "Win",
    "WinSource",
]


EndReason = Literal["exhausted", "win", "last_player"]
"""Why a hand ended: the wall ran out (流局/黄庄), a win ended it, or one player was left (血战)."""


class Phase(StrEnum):
    """Where a round is.

    ``DECLARE``: seats decide on 报叫 before the first discard. ``TURN``: one seat draws or
    discards. ``CLAIM``: seats decide on a discard. ``ROB``: seats decide on robbing a 补杠.
    ``ENDED``: the hand is over.
    """

    DECLARE = "declare"
    TURN = "turn"
    CLAIM = "claim"
    ROB = "rob"
    ENDED = "ended"


class MeldKind(StrEnum):
    """A declared set."""

    PUNG = "pung"
    EXPOSED_KONG = "exposed_kong"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"

    @property
    def is_kong(self) -> bool:
        """Whether this is any kind of kong."""
        return self is not MeldKind.PUNG


@dataclass(frozen=True, slots=True)
class Meld:
    """A pung or kong on the table. ``from_seat`` fed the claimed tile, if any.

    ``draws_at`` is how many tiles the owner had drawn when the meld was made, so that a
    variant can tell which drawn tiles came after it (``SeatState.draw_log[draws_at:]``).
    """

    kind: MeldKind
    tile: Tile
    from_seat: int | None = None
    draws_at: int = 0

    @property
    def size(self) -> int:
        """How many tiles the meld holds."""
        return 3 if self.kind is MeldKind.PUNG else 4

    def to_json(self) -> dict[str, Any]:
        """The meld as JSON (a concealed kong's tile is public: it is shown on the table)."""
        out: dict[str, Any] = {"kind": self.kind.value, "tile": self.tile.code}
        if self.from_seat is not None:
            out["from"] = self.from_seat
        return out


class WinSource(StrEnum):
    """How a win was made."""

    SELF_DRAW = "self_draw"
    DISCARD = "on_discard"
    ROBBING = "robbing_kong"


@dataclass(slots=True)
class RiverEntry:
    """A discard in a seat's river, with what became of it.

    ``order`` numbers the discards of the whole table from 0, in the order they were made.
    """

    tile: Tile
    order: int
    claimed_by: int | None = None
    won_by: tuple[int, ...] = ()

    @property
    def in_river(self) -> bool:
        """Whether the tile is still in the river (not claimed, not won on)."""
        return self.claimed_by is None and not self.won_by


@dataclass(frozen=True, slots=True)
class Win:
    """One winner's win, with everything scoring needs.

    ``concealed`` and ``melds`` are the winner's tiles without the winning tile. ``payers``
    are the other seats still in the hand at that moment. ``group`` numbers the winning
    moments of a hand: winners on the same tile share it.
    """

    seat: int
    tile: Tile
    source: WinSource
    from_seat: int | None
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    payers: tuple[int, ...]
    group: int
    declared: bool = False
    kong_replacement: bool = False
    after_kong_discard: bool = False
    heavenly: bool = False
    earthly: bool = False
    kong_feeder: int | None = None
    turn_kongs: tuple[int, ...] = ()

    @property
    def counts(self) -> list[int]:
        """The 27 counts of the winning concealed hand, winning tile included."""
        counts = [0] * 27
        for tile in self.concealed:
            counts[tile] += 1
        counts[self.tile] += 1
        return counts


@dataclass(frozen=True, slots=True)
class Kong:
    """A completed kong. ``payers`` are the other seats in the hand when it was made.

    ``robbed_by`` lists the robbers when a robbed 补杠 still completed (一牌多用).
    """

    index: int
    seat: int
    tile: Tile
    kind: MeldKind
    from_seat: int | None
    payers: tuple[int, ...]
    robbed_by: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LockedChance:
    """A tile that would have completed a legal win for a seat under a pass lock (包牌).

    ``concealed`` and ``melds`` are the seat's tiles at that moment, without ``tile``, so
    that a variant can price the hand the tile would have made.
    """

    seat: int
    tile: Tile
    from_seat: int
    source: WinSource
    concealed: tuple[Tile, ...] = ()
    melds: tuple[Meld, ...] = ()


@dataclass(slots=True)
class SeatState:
    """One seat's tiles and flags. ``hand`` holds 27 counts; ``keys`` the three suit keys."""

    hand: list[int] = field(default_factory=lambda: [0] * 27)
    keys: list[int] = field(default_factory=lambda: [0, 0, 0])
    melds: list[Meld] = field(default_factory=list)
    river: list[RiverEntry] = field(default_factory=list)
    drawn: Tile | None = None
    declared: bool = False
    ticks: frozenset[Tile] | None = None
    won: bool = False
    win_lock: bool = False
    pung_lock: bool = False
    draw_log: list[Tile] = field(default_factory=list)
    discards: int = 0

    @property
    def draws(self) -> int:
        """How many tiles this seat has drawn, replacements included."""
        return len(self.draw_log)

    def add(self, tile: Tile, count: int = 1) -> None:
        """Put tiles into the concealed hand."""
        self.hand[tile] += count
        self.keys[tile // 9] += count << (3 * (tile % 9))

    def remove(self, tile: Tile, count: int = 1) -> None:
        """Take tiles out of the concealed hand."""
        self.hand[tile] -= count
        self.keys[tile // 9] -= count << (3 * (tile % 9))

    def concealed(self) -> list[Tile]:
        """The concealed tiles in hand order."""
        out: list[Tile] = []
        for index, count in enumerate(self.hand):
            if count:
                out.extend([Tile(index)] * count)
        return out

    def held(self, tile: Tile) -> int:
        """Copies of ``tile`` this seat holds in hand and melds."""
        return self.hand[tile] + sum(m.size for m in self.melds if m.tile == tile)
