"""报叫 and 报杠 (Z19, Z20): who may declare, the 报杠 panel and its refusals.

A declaration of ready made without ticks, by a seat with triplets to offer, opens that
seat's 报杠 panel (Z20): the variant holds the declaration (a pending declaration of
:class:`~majiang.variant.Variant`) until the seat's choice, a ``DECLARE`` with ticks for 报杠
or without for 不报 (a timeout is 不报). Nothing else of the declaration happens until then.
A declaration that carries its ticks (the one-step form of older records) needs no panel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from majiang.actions import Action, ActionType, Event
from majiang.analysis import keys_of, waits_keys
from majiang.errors import IllegalActionError
from majiang.tiles import Tile
from majiang.variant import VariantState

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = [
    "BaogangPanel",
    "ZigongState",
    "check_action",
    "declare_window",
    "hold",
    "may_declare_with_discard",
    "options_for",
    "panel",
    "release",
    "state_of",
    "validate_ticks",
]

@dataclass(frozen=True, slots=True)
class BaogangPanel:
    """A 报杠 choice the round waits for (Z20), opened by a declaration made without ticks.

    ``action`` is that declaration (``DECLARE`` in the opening window, or the dealer's
    declaring ``DISCARD``, which is not made until the choice is). ``options`` are the tiles
    offered and ``counts`` the 27 counts of the hand once declared (after the discard).
    """

    action: Action
    options: tuple[Tile, ...]
    counts: tuple[int, ...]


@dataclass(slots=True)
class ZigongState(VariantState):
    """A 自贡 round's bookkeeping (``Round.extra``): the 萝卜 tiles (Z13) and the open 报杠
    panels by seat (Z20)."""

    luobo: tuple[Tile, ...] = ()
    panels: dict[int, BaogangPanel] = field(default_factory=dict)


def state_of(rnd: Round) -> ZigongState:
    """The 自贡 bookkeeping of ``rnd``."""
    state = rnd.extra
    assert isinstance(state, ZigongState), "a 自贡 round keeps ZigongState"
    return state


def _declaring(action: Action) -> bool:
    return action.type is ActionType.DECLARE or action.declare


def _counts_after(rnd: Round, action: Action) -> list[int]:
    """The seat's 27 counts once ``action`` (a declaring discard, or ``DECLARE``) is made."""
    counts = list(rnd.seats[action.seat].hand)
    if action.type is ActionType.DISCARD and action.tile is not None:
        counts[action.tile] -= 1
    return counts


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
    if tile in state_of(rnd).luobo:
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
    """Z20: refuse an empty 报杠, a tile not on the panel or ticked twice, and ticks that
    break the hand (the seed's words for the first and the last, :mod:`majiang.refusals`)."""
    if ticks is None:
        return
    if not ticks:
        raise IllegalActionError("baogang_empty")
    offered = panel(rnd, seat, counts)
    for tile in ticks:
        if tile not in offered:
            raise IllegalActionError("baogang_not_offered", "not_listed", tile=tile)
    for i, tile in enumerate(ticks):
        if tile in ticks[:i]:
            raise IllegalActionError("baogang_not_offered", "repeated", tile=tile)
    if not _ready_after(rnd, seat, counts, ticks):
        raise IllegalActionError("baogang_too_many")


def options_for(rnd: Round, seat: int, action: Action) -> list[Tile]:
    """Z20: the 报杠 panel a declaring ``action`` of ``seat`` opens (empty: no panel).

    While the seat's panel is open, the ``DECLARE`` that answers it gets that panel.
    """
    open_panel = state_of(rnd).panels.get(seat)
    if open_panel is not None and action.type is ActionType.DECLARE and action.tile is None:
        return list(open_panel.options)
    return panel(rnd, seat, _counts_after(rnd, action))


def check_action(rnd: Round, action: Action, legal: Sequence[Action]) -> None:
    """Z20: an action while the seat's panel is open must answer it; ticks are checked
    against the panel (or, in one step, against the hand once declared); only a declaration
    carries ticks."""
    open_panel = state_of(rnd).panels.get(action.seat)
    if action.without_ticks() not in legal:
        if open_panel is not None:
            raise IllegalActionError("illegal_action", "panel_open")
        return
    if open_panel is not None:
        if action.ticks is not None:
            validate_ticks(rnd, action.seat, action.ticks, open_panel.counts)
    elif _declaring(action):
        validate_ticks(rnd, action.seat, action.ticks, _counts_after(rnd, action))
    elif action.ticks is not None:
        raise IllegalActionError("illegal_action", "ticks_without_declare")


def hold(rnd: Round, action: Action) -> list[Event] | None:
    """Z20: open the panel of a declaration made without ticks, if it has tiles to offer.

    Nothing else of the declaration happens yet: in the opening window the seat has not
    decided, and the dealer's declaring discard is neither in the river nor claimable.
    Only the seat learns of the panel, so the table sees no more than a seat thinking.
    """
    if action.ticks is not None or not _declaring(action):
        return None
    options = options_for(rnd, action.seat, action)
    if not options:
        return None
    counts = _counts_after(rnd, action)
    state_of(rnd).panels[action.seat] = BaogangPanel(action, tuple(options), tuple(counts))
    return [
        Event(
            "baogang_panel",
            action.seat,
            private=True,
            secret={"options": [t.code for t in options]},
            audience=action.seat,
        )
    ]


def release(rnd: Round, action: Action) -> Action | None:
    """Z20: the choice completes the declaration exactly as the one-step form would."""
    open_panel = state_of(rnd).panels.pop(action.seat, None)
    if open_panel is None:
        return None
    return replace(open_panel.action, ticks=action.ticks)
