"""The plug-in point for a rule variant.

A :class:`Variant` tells the generic :class:`~majiang.round.Round` everything that differs
between rule sets: the tiles, who may win or claim and when, declarations of ready, pass
locks, whether play goes on after a win, settlement and dealer rotation. Every hook has a
plain default, so a variant overrides only what its rulings change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from majiang.errors import IllegalActionError
from majiang.settings import SettingsSchema
from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile

if TYPE_CHECKING:
    from majiang.actions import Event
    from majiang.round import Round
    from majiang.settlement import Settlement

__all__ = ["Variant"]


class Variant(ABC):
    """Base class of a rule variant. Subclasses are stateless; state lives in the round."""

    id: ClassVar[str]
    """Short identifier used in records and settings, for example ``duyun``."""
    name: ClassVar[str]
    """The Chinese name shown to players."""
    schema: ClassVar[SettingsSchema]
    """The room settings this variant accepts."""
    summary: ClassVar[str] = ""
    """One line in Chinese on what the game is like, for the 玩法说明 page."""
    for_players: ClassVar[bool] = True
    """Whether clubs may play it; engine-test variants (``basic``) set it False."""
    dealer_drawn: ClassVar[bool] = False
    """Whether the first dealer is drawn when the match starts (else the opener deals)."""

    win_lock_release: ClassVar[str] = "draw"
    """When a pass lock on winning ends: at the seat's next ``"draw"`` or ``"discard"``."""
    self_draw_pass_locks: ClassVar[bool] = False
    """Whether declining a self-drawn win also sets the pass lock."""
    win_lock_blocks_self_draw: ClassVar[bool] = False
    """Whether the pass lock also forbids winning on one's own draw."""
    pung_lock_on_pass: ClassVar[bool] = False
    """Whether passing a possible 碰 forbids 碰 until the seat's next draw."""

    # -- table ---------------------------------------------------------------------------

    @abstractmethod
    def tile_kinds(self, settings: Mapping[str, Any]) -> Sequence[Tile]:
        """The tile kinds in play; the wall holds four of each."""

    def players(self, settings: Mapping[str, Any]) -> int:
        """The number of seats at the table."""
        return int(settings["players"])

    def setup(self, rnd: Round) -> list[Event]:
        """Adjust a freshly dealt round (for example, set 萝卜 tiles aside). Returns events."""
        return []

    def public_info(self, rnd: Round) -> dict[str, Any]:
        """Variant facts every viewer may see (for example the 萝卜 tiles)."""
        return {}

    # -- declarations of ready -------------------------------------------------------------

    def declare_window(self, rnd: Round) -> list[int]:
        """Seats asked to declare ready before the dealer's first discard."""
        return []

    def self_draw_pass_locks_for(self, rnd: Round, seat: int) -> bool:
        """Whether ``seat`` declining a self-drawn win now sets the pass lock.

        Defaults to :attr:`self_draw_pass_locks`; a variant may decide per seat.
        """
        return self.self_draw_pass_locks

    def may_declare_with_discard(self, rnd: Round, seat: int) -> bool:
        """Whether ``seat``'s discard now may carry a declaration of ready."""
        return False

    def baogang_options(self, rnd: Round, seat: int, counts: Sequence[int]) -> list[Tile]:
        """Tiles a declaring seat could tick for 报杠, given its hand after declaring."""
        return []

    def validate_ticks(
        self, rnd: Round, seat: int, ticks: tuple[Tile, ...] | None, counts: Sequence[int]
    ) -> None:
        """Check a 报杠 choice. Raise :class:`IllegalActionError` with the player's message."""
        if ticks is not None:
            raise IllegalActionError("baogang_not_allowed", "本玩法没有报杠")

    def declared_kong(self, rnd: Round, seat: int, tile: Tile) -> bool:
        """Whether a declared seat must kong ``tile`` (it may kong nothing else)."""
        return False

    # -- eligibility ---------------------------------------------------------------------

    def win_allowed(self, rnd: Round, seat: int, tile: Tile, source: WinSource) -> bool:
        """Whether a complete hand may be won this way. Called only for complete hands."""
        return True

    def kong_allowed(self, rnd: Round, seat: int, tile: Tile, kind: MeldKind) -> bool:
        """Whether an undeclared seat may make this kong (beyond the generic checks)."""
        return True

    def pung_allowed(self, rnd: Round, seat: int, tile: Tile) -> bool:
        """Whether an undeclared seat may 碰 this discard (beyond the generic checks)."""
        return True

    # -- flow ----------------------------------------------------------------------------

    def continues_after_win(self, rnd: Round) -> bool:
        """Whether the hand goes on after a win (血战)."""
        return False

    def multi_use(self, rnd: Round) -> bool:
        """Whether a won tile may still be claimed, and a robbed kong still made (一牌多用)."""
        return False

    def timeout_takes_win(self, rnd: Round) -> bool:
        """Whether an expired timer takes an offered win."""
        return bool(rnd.settings.get("timeout_takes_win", True))

    # -- results -------------------------------------------------------------------------

    @abstractmethod
    def settle(self, rnd: Round) -> Settlement:
        """The itemised settlement of an ended round."""

    @abstractmethod
    def next_dealer(self, rnd: Round) -> tuple[int, int]:
        """The next hand's dealer and streak (连庄数), given this ended round."""

    def first_dealer(self, settings: Mapping[str, Any], seed: str, opener: int) -> int:
        """The first hand's dealer: by default the seat that opened the room."""
        return opener
