"""The plug-in point for a rule variant.

A :class:`Variant` tells the generic :class:`~majiang.round.Round` everything that differs
between rule sets: the tiles, who may win or claim and when, declarations of ready and the
declarations it holds open for a follow-up answer, pass locks, whether play goes on after a
win, settlement and dealer rotation, and its own state for a round (:class:`VariantState`).
Every hook has a plain default, so a variant overrides only what its rulings change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from majiang.actions import Action, ActionType, Event
from majiang.errors import IllegalActionError
from majiang.settings import SettingsSchema
from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile

if TYPE_CHECKING:
    from majiang.round import Round
    from majiang.settlement import AnySettlement

__all__ = ["LockRelease", "Variant", "VariantState"]

LockRelease = Literal["draw", "discard"]
"""When a pass lock on winning ends: at the seat's next draw, or at its next discard."""


@dataclass(slots=True)
class VariantState:
    """A variant's own bookkeeping for one round, kept as :attr:`Round.extra`.

    The base holds nothing; a variant that needs state subclasses it and returns an instance
    from :meth:`Variant.new_state`. The round never looks inside.
    """


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

    win_lock_release: ClassVar[LockRelease] = "draw"
    """When a pass lock on winning ends: at the seat's next ``"draw"`` or ``"discard"``."""
    self_draw_pass_locks: ClassVar[bool] = False
    """Whether declining a self-drawn win also sets the pass lock."""
    win_lock_blocks_self_draw: ClassVar[bool] = False
    """Whether the pass lock also forbids winning on one's own draw."""
    pung_lock_on_pass: ClassVar[bool] = False
    """Whether passing a possible 碰 forbids 碰 until the seat's next draw."""
    has_declare_phase: ClassVar[bool] = False
    """Whether the deal may open a declaration phase (:meth:`declare_window`); a paced
    round then opens it at every deal, for every seat (H3)."""

    # -- table ---------------------------------------------------------------------------

    @abstractmethod
    def tile_kinds(self, settings: Mapping[str, Any]) -> Sequence[Tile]:
        """The tile kinds in play; the wall holds four of each."""

    def players(self, settings: Mapping[str, Any]) -> int:
        """The number of seats at the table."""
        return int(settings["players"])

    def new_state(self, settings: Mapping[str, Any]) -> VariantState:
        """The variant's bookkeeping for a new round (:attr:`Round.extra`)."""
        return VariantState()

    def setup(self, rnd: Round) -> list[Event]:
        """Adjust a freshly dealt round (for example, set 萝卜 tiles aside). Returns events."""
        return []

    def public_info(self, rnd: Round) -> dict[str, Any]:
        """Variant facts every viewer may see (for example the 萝卜 tiles)."""
        return {}

    def private_info(self, rnd: Round, seat: int, legal: Sequence[Action]) -> dict[str, Any]:
        """Variant facts for ``seat`` alone, added to its ``me`` view; ``legal`` are its
        legal actions now."""
        return {}

    def snapshot_info(self, rnd: Round) -> dict[str, Any]:
        """The variant's hidden state for :meth:`Round.snapshot` (checks only)."""
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

    def declared_kong(self, rnd: Round, seat: int, tile: Tile) -> bool:
        """Whether a declared seat must kong ``tile`` (it may kong nothing else)."""
        return False

    def check_action(self, rnd: Round, action: Action, legal: Sequence[Action]) -> None:
        """Check what ``action`` carries beyond the legal actions it is matched against
        (:attr:`Action.ticks`), given the seat's ``legal`` actions. Raise
        :class:`IllegalActionError` with its code and data (:mod:`majiang.refusals` words
        it); the round then refuses an action that is still not among ``legal``.

        By default no action may carry ticks.
        """
        if action.ticks is None or action.without_ticks() not in legal:
            return
        if action.type is ActionType.DECLARE or action.declare:
            raise IllegalActionError("baogang_not_allowed")
        raise IllegalActionError("illegal_action", "ticks_without_declare")

    # -- pending declarations --------------------------------------------------------------
    #
    # A variant may hold a declaration open until its seat answers a follow-up question (自贡
    # 报杠, Z20). While it is held, the seat's legal actions are the answers; the answer
    # completes the declaration, which is then carried out as if it had come in one step.

    def hold_declaration(self, rnd: Round, action: Action) -> list[Event] | None:
        """Whether to hold the legal ``action`` open instead of carrying it out: the events
        of holding it, or ``None`` to carry it out now."""
        return None

    def pending_declarations(self, rnd: Round) -> Mapping[int, object]:
        """The declarations held open, by seat."""
        return {}

    def pending_actions(self, rnd: Round, seat: int) -> list[Action] | None:
        """While ``seat``'s declaration is held: its legal actions (the answers), else ``None``."""
        return None

    def answer_pending(self, rnd: Round, action: Action) -> Action | None:
        """If ``action`` answers its seat's held declaration: release it and return the
        completed declaration to carry out. Otherwise ``None``."""
        return None

    def pending_timeout(self, rnd: Round, seat: int) -> Action | None:
        """What an expired timer answers for ``seat``'s held declaration, else ``None``."""
        return None

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
    def settle(self, rnd: Round) -> AnySettlement:
        """The itemised settlement of an ended round."""

    @abstractmethod
    def next_dealer(self, rnd: Round) -> tuple[int, int]:
        """The next hand's dealer and streak (连庄数), given this ended round."""

    def first_dealer(self, settings: Mapping[str, Any], seed: str, opener: int) -> int:
        """The first hand's dealer: by default the seat that opened the room."""
        return opener
