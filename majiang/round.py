"""One hand of mahjong as a state machine, generic over variants.

A :class:`Round` is built from a variant, settings, a dealer and a wall. Seats act through
:meth:`Round.apply`, which checks the action against :meth:`Round.legal_actions`, raises
:class:`~majiang.errors.IllegalActionError` (leaving the state untouched) when it is not legal,
and otherwise returns the events it caused. Everything that follows from an action without a
choice (draws, the automatic discards of a declared hand, resolving a claim window once every
seat has decided) happens inside the same call.

A variant may hold a declaration open until its seat answers a follow-up question (see
"pending declarations" in :class:`~majiang.variant.Variant`); the round then asks that seat
for the answer alone, and carries the declaration out once it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import compress
from typing import Any

from majiang import views
from majiang.actions import Action, ActionType, Event
from majiang.analysis import is_complete_keys, waits_keys
from majiang.errors import IllegalActionError
from majiang.settlement import AnySettlement
from majiang.state import (
    EndReason,
    Kong,
    LockedChance,
    Meld,
    MeldKind,
    Phase,
    RiverEntry,
    SeatState,
    Win,
    WinSource,
)
from majiang.tiles import Tile
from majiang.variant import Variant
from majiang.wall import Wall, full_set, set_difference, shuffled

__all__ = ["ClaimWindow", "Round"]

_ORDER = {ActionType.WIN: 0, ActionType.KONG: 1, ActionType.PUNG: 2, ActionType.PASS: 3}
_TILES = tuple(Tile)
"""Every tile kind by index: ``_TILES[i]`` is ``Tile(i)`` without the enum call."""


@cache
def _discard_actions(seat: int) -> tuple[Action, ...]:
    """The 27 plain discards of ``seat``, by tile index (actions are immutable; shared)."""
    return tuple(Action(ActionType.DISCARD, seat, tile) for tile in _TILES)


@dataclass(slots=True)
class ClaimWindow:
    """Seats deciding at the same time: on a discard, a robbable kong, or 报叫 at the start.

    ``options`` holds each eligible seat's legal choices; ``decisions`` what each has chosen.
    A ``held`` window stays open after every seat has decided, until :meth:`Round.release`
    (the table's pause, H3/H4); it may have no eligible seat at all.
    """

    tile: Tile | None
    from_seat: int | None
    options: dict[int, tuple[Action, ...]]
    decisions: dict[int, Action] = field(default_factory=dict)
    held: bool = False

    @property
    def complete(self) -> bool:
        """Whether every eligible seat has decided and the window is not held."""
        return not self.held and len(self.decisions) == len(self.options)


_TAKES_TILE = (ActionType.DISCARD, ActionType.PUNG, ActionType.KONG)


def _field_problem(action: Action) -> str | None:
    """The refusal reason when a field of ``action`` is wrong for its type, whatever the
    state (a tile missing or where none belongs, a declaration off a discard), or ``None``."""
    if action.type in _TAKES_TILE and action.tile is None:
        return "needs_tile"
    if action.type not in _TAKES_TILE and action.tile is not None:
        return "no_tile"
    if action.declare and action.type is not ActionType.DISCARD:
        return "no_declare"
    return None


class Round:
    """One hand: deal, play, and the result.

    Build it with :meth:`deal`. Public attributes are read-only by convention; change the
    state only through :meth:`apply`.
    """

    def __init__(
        self,
        variant: Variant,
        settings: Mapping[str, Any],
        *,
        dealer: int,
        wall: Sequence[Tile],
        streak: int = 1,
        seed: str | None = None,
        paced: bool = False,
    ) -> None:
        self.variant = variant
        self.paced = paced
        """Whether windows are held for the table's pauses (H3, H4): live play only. A
        pause changes no outcome, so records and replays play the same hand unpaced."""
        self.settings = dict(settings)
        self.players = variant.players(self.settings)
        if not 0 <= dealer < self.players:
            raise ValueError(f"dealer {dealer} is not a seat of {self.players}")
        self.dealer = dealer
        self.streak = streak
        self.seed = seed
        self.wall = Wall(wall)
        self.seats = [SeatState() for _ in range(self.players)]
        self._after = tuple(
            tuple((seat + i) % self.players for i in range(1, self.players))
            for seat in range(self.players)
        )
        self.phase = Phase.TURN
        self.turn = dealer
        self.window: ClaimWindow | None = None
        self.history: list[Action] = []
        self.wins: list[Win] = []
        self.kongs: list[Kong] = []
        self.locked_chances: list[LockedChance] = []
        self.end_reason: EndReason | None = None
        self.extra = variant.new_state(self.settings)
        """The variant's own bookkeeping (:class:`~majiang.variant.VariantState`)."""
        self._turn_drew = True
        self._replacement = False
        self._turn_kongs: list[int] = []
        self._groups = 0
        self._discards = 0
        self._settlement: AnySettlement | None = None
        self.dealt_last: Tile | None = None

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        variant: Variant,
        settings: Mapping[str, Any] | None = None,
        *,
        dealer: int = 0,
        streak: int = 1,
        seed: str | None = None,
        wall: Sequence[Tile] | None = None,
        paced: bool = False,
    ) -> tuple[Round, list[Event]]:
        """Validate settings, build the wall (from ``wall`` or ``seed``) and deal.

        Seat ``dealer + i`` receives wall tiles ``13 i … 13 i + 12``; the dealer then takes
        one more. Returns the round and the deal events (each seat's tiles are private).
        A ``paced`` round holds its windows for the table's pauses (see :meth:`release`).
        """
        checked = variant.schema.validate(settings)
        kinds = variant.tile_kinds(checked)
        if wall is None:
            if seed is None:
                raise ValueError("a round needs a seed or an explicit wall")
            tiles = shuffled(full_set(kinds), seed)
        else:
            tiles = list(wall)
            problem = set_difference(tiles, kinds)
            if problem is not None:
                raise ValueError(
                    f"the explicit wall does not hold exactly this variant's tile set: {problem}"
                )
        rnd = cls(
            variant, checked, dealer=dealer, wall=tiles, streak=streak, seed=seed, paced=paced
        )
        return rnd, rnd._deal()

    def _deal(self) -> list[Event]:
        events: list[Event] = []
        order = [(self.dealer + i) % self.players for i in range(self.players)]
        for seat in order:
            for _ in range(13):
                self.seats[seat].add(self.wall.draw())
        last = self.wall.draw()
        self.seats[self.dealer].add(last)
        self.dealt_last = last
        for seat in order:
            events.append(
                Event(
                    "deal",
                    seat,
                    data={"count": 14 if seat == self.dealer else 13},
                    private=True,
                    secret={"tiles": [t.code for t in self.seats[seat].concealed()]},
                )
            )
        events.extend(self.variant.setup(self))
        asked = self.variant.declare_window(self)
        # H3: a paced table opens the declaration phase at every deal, whoever is ready.
        always = self.paced and self.variant.has_declare_phase
        if asked or always:
            self.phase = Phase.DECLARE
            self.window = ClaimWindow(
                None,
                None,
                {s: (Action(ActionType.DECLARE, s), Action(ActionType.PASS, s)) for s in asked},
                held=always and self.pause_ms > 0,
            )
            events.append(Event("declare_window", data={"waiting": True}))
            self._run_automatic(events)
        else:
            events.append(Event("turn", self.dealer))
        return events

    # -- queries ---------------------------------------------------------------------------

    @property
    def held(self) -> bool:
        """Whether the open window is held for the table's pause (see :meth:`release`)."""
        return self.window is not None and self.window.held

    @property
    def pause_ms(self) -> int:
        """How long the table pauses on the current kind of window, in milliseconds: the
        declaration phase at the deal (``declare_pause_ms``, H3), else after a discard or
        a 补杠 (``claim_pause_ms``, H4). 0 when the round is not paced."""
        if not self.paced:
            return 0
        name = "declare_pause_ms" if self.phase is Phase.DECLARE else "claim_pause_ms"
        return int(self.settings.get(name, 0))

    def release(self) -> list[Event]:
        """End the pause of a held window; it closes as soon as every seat has decided.

        Returns the events of closing it (none while a seat still decides, or when no
        window is held).
        """
        if self.window is None or not self.window.held:
            return []
        self.window.held = False
        events: list[Event] = []
        self._run_automatic(events)
        return events

    @property
    def ended(self) -> bool:
        """Whether the hand is over."""
        return self.phase is Phase.ENDED

    @property
    def turn_kongs(self) -> tuple[int, ...]:
        """Indices into :attr:`kongs` of the kongs made in the current turn (热炮, 呼叫转移)."""
        return tuple(self._turn_kongs)

    @property
    def replacement_turn(self) -> bool:
        """Whether the current turn's tile is a kong replacement (杠上花)."""
        return self._replacement

    def others_in_hand(self, seat: int) -> tuple[int, ...]:
        """The other seats still playing, in turn order after ``seat``."""
        seats = self.seats
        return tuple(s for s in self._after[seat] if not seats[s].won)

    def waits(self, seat: int) -> list[Tile]:
        """The tiles that would complete ``seat``'s 13-tile hand, in order.

        A tile of which the seat holds all four copies (hand and melds) is not a wait.
        """
        s = self.seats[seat]
        mask = waits_keys(s.keys, melds=len(s.melds))
        return [_TILES[i] for i in range(27) if mask >> i & 1 and s.held(_TILES[i]) < 4]

    def is_ready(self, seat: int) -> bool:
        """Whether ``seat``'s 13 tiles wait on at least one tile (a winner counts as ready)."""
        s = self.seats[seat]
        if s.won:
            return True
        if sum(s.hand) + 3 * len(s.melds) != 13:
            return False
        return bool(self.waits(seat))

    def completes(self, seat: int, tile: Tile) -> bool:
        """Whether ``tile`` added to ``seat``'s 13 tiles makes a complete hand."""
        s = self.seats[seat]
        if s.hand[tile] >= 4:
            return False
        keys = list(s.keys)
        keys[tile // 9] += 1 << (3 * (tile % 9))
        return is_complete_keys(keys, melds=len(s.melds))

    @property
    def pending_declarations(self) -> Mapping[int, object]:
        """The declarations the variant holds open, by seat, until the seat answers (自贡
        报杠, Z20). Such a seat answers on the clock of the turn or window it declared in."""
        return self.variant.pending_declarations(self)

    def pending(self) -> tuple[int, ...]:
        """The seats whose decision the round is waiting for."""
        if self.phase is Phase.ENDED:
            return ()
        if self.window is not None:
            return tuple(s for s in self.window.options if s not in self.window.decisions)
        return (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now. Empty when it is not asked to act.

        While the variant holds ``seat``'s declaration open, its actions are the answers.
        """
        if self.phase is Phase.ENDED or not 0 <= seat < self.players:
            return []
        answers = self.variant.pending_actions(self, seat)
        if answers is not None:
            return answers
        if self.window is not None:
            if seat in self.window.options and seat not in self.window.decisions:
                return list(self.window.options[seat])
            return []
        if seat != self.turn:
            return []
        return self._turn_actions(seat)

    def _self_win_possible(self, seat: int) -> bool:
        s = self.seats[seat]
        if not self._turn_drew or not is_complete_keys(s.keys, melds=len(s.melds)):
            return False
        if s.win_lock and self.variant.win_lock_blocks_self_draw:
            return False
        tile = s.drawn if s.drawn is not None else self.dealt_last
        assert tile is not None
        return self.variant.win_allowed(self, seat, tile, WinSource.SELF_DRAW)

    def _turn_actions(self, seat: int) -> list[Action]:
        s = self.seats[seat]
        actions: list[Action] = []
        if self._self_win_possible(seat):
            actions.append(Action(ActionType.WIN, seat))
        if s.declared:
            actions.append(self._declared_move(seat))
            return actions
        if self._turn_drew and self.wall.remaining > 0:
            if 4 in s.hand:
                for index, count in enumerate(s.hand):
                    if count == 4 and self.variant.kong_allowed(
                        self, seat, _TILES[index], MeldKind.CONCEALED_KONG
                    ):
                        actions.append(Action(ActionType.KONG, seat, _TILES[index]))
            for meld in s.melds:
                if (
                    meld.kind is MeldKind.PUNG
                    and s.hand[meld.tile]
                    and self.variant.kong_allowed(self, seat, meld.tile, MeldKind.ADDED_KONG)
                ):
                    actions.append(Action(ActionType.KONG, seat, meld.tile))
        actions.extend(compress(_discard_actions(seat), s.hand))  # one per tile kind held
        if self.variant.may_declare_with_discard(self, seat):
            for tile in list(compress(_TILES, s.hand)):
                s.remove(tile)
                ready = self.is_ready(seat)
                s.add(tile)
                if ready:
                    actions.append(Action(ActionType.DISCARD, seat, tile, declare=True))
        return actions

    def _declared_move(self, seat: int) -> Action:
        """What a declared seat must do on its turn when it does not win."""
        s = self.seats[seat]
        drawn = s.drawn
        assert drawn is not None, "a declared seat always acts on a drawn tile"
        if (
            s.hand[drawn] == 4
            and self.wall.remaining > 0
            and self.variant.declared_kong(self, seat, drawn)
        ):
            return Action(ActionType.KONG, seat, drawn)
        return Action(ActionType.DISCARD, seat, drawn)

    # -- applying actions ------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply one seat's action and everything that follows from it without a choice.

        Raises :class:`IllegalActionError` and changes nothing when the action is not legal.
        """
        self._check(action)
        self.history.append(action)
        events = self._do(action)
        self._run_automatic(events)
        return events

    def _check(self, action: Action) -> None:
        if self.phase is Phase.ENDED:
            raise IllegalActionError("hand_over")
        if not isinstance(action.seat, int) or not 0 <= action.seat < self.players:
            raise IllegalActionError("bad_seat")
        legal = self.legal_actions(action.seat)
        if not legal:
            if self.window is not None and action.seat in self.window.decisions:
                raise IllegalActionError("already_decided")
            raise IllegalActionError("not_your_turn")
        self.variant.check_action(self, action, legal)
        if action.without_ticks() not in legal:
            raise IllegalActionError(
                "illegal_action", _field_problem(action) or "not_legal", action=action.type.value,
                tile=action.tile, declare=action.declare, variant=self.variant.id,
            )

    def _run_automatic(self, events: list[Event]) -> None:
        """Do what needs no decision: declared seats' forced moves and complete windows."""
        while self.phase is not Phase.ENDED:
            window = self.window
            if window is not None:
                if not window.complete:
                    return
                events.extend(self._resolve_window())
                continue
            s = self.seats[self.turn]
            if not s.declared:
                return
            actions = self._turn_actions(self.turn)
            if any(a.type is ActionType.WIN for a in actions):
                return
            forced = actions[0]
            events.append(Event("auto", self.turn, data={"action": forced.type.value}))
            events.extend(self._do(forced))

    def _do(self, action: Action) -> list[Event]:
        completed = self.variant.answer_pending(self, action)
        if completed is not None:
            return self._decide(completed)
        held = self.variant.hold_declaration(self, action)
        if held is not None:
            return held
        return self._decide(action)

    def _decide(self, action: Action) -> list[Event]:
        if self.window is not None:
            self.window.decisions[action.seat] = action
            return [
                Event(
                    "decided",
                    action.seat,
                    data={"choice": action.type.value},
                    audience=action.seat,
                )
            ]
        if action.type is ActionType.WIN:
            return self._self_win(action.seat)
        if self._self_win_possible(action.seat) and self.variant.self_draw_pass_locks_for(
            self, action.seat
        ):
            self.seats[action.seat].win_lock = True
        if action.type is ActionType.KONG:
            assert action.tile is not None
            return self._own_kong(action.seat, action.tile)
        assert action.type is ActionType.DISCARD and action.tile is not None
        return self._discard(action.seat, action.tile, action.declare, action.ticks)

    def _discard(
        self, seat: int, tile: Tile, declare: bool, ticks: tuple[Tile, ...] | None
    ) -> list[Event]:
        s = self.seats[seat]
        s.remove(tile)
        s.drawn = None
        s.discards += 1
        s.river.append(RiverEntry(tile, self._discards))
        self._discards += 1
        if self.variant.win_lock_release == "discard":
            s.win_lock = False
        events = [Event("discard", seat, tile)]
        if declare:
            events.append(self._declare(seat, ticks))
        events.extend(self._open_discard_window(seat, tile))
        return events

    def _declare(self, seat: int, ticks: tuple[Tile, ...] | None) -> Event:
        s = self.seats[seat]
        s.declared = True
        s.ticks = frozenset(ticks) if ticks is not None else None
        return Event(
            "declare",
            seat,
            data={"baogang": ticks is not None},
            private=True,
            secret={"ticks": sorted(t.code for t in ticks)} if ticks is not None else {},
        )

    def _would_win(self, seat: int, tile: Tile, source: WinSource, from_seat: int) -> bool:
        """Whether ``seat`` is offered a win on ``tile``; notes a locked chance (包牌)."""
        if not self.completes(seat, tile) or not self.variant.win_allowed(
            self, seat, tile, source
        ):
            return False
        if self.seats[seat].win_lock:
            s = self.seats[seat]
            self.locked_chances.append(
                LockedChance(seat, tile, from_seat, source, tuple(s.concealed()), tuple(s.melds))
            )
            return False
        return True

    def _open_discard_window(self, discarder: int, tile: Tile) -> list[Event]:
        last = self.wall.remaining == 0
        options: dict[int, tuple[Action, ...]] = {}
        auto: dict[int, Action] = {}
        for seat in self.others_in_hand(discarder):
            s = self.seats[seat]
            acts: list[Action] = []
            if self._would_win(seat, tile, WinSource.DISCARD, discarder):
                acts.append(Action(ActionType.WIN, seat))
            mandatory = False
            if not last:
                if s.hand[tile] == 3:
                    if s.declared:
                        mandatory = self.variant.declared_kong(self, seat, tile)
                        if mandatory:
                            acts.append(Action(ActionType.KONG, seat, tile))
                    elif self.variant.kong_allowed(self, seat, tile, MeldKind.EXPOSED_KONG):
                        acts.append(Action(ActionType.KONG, seat, tile))
                if (
                    s.hand[tile] >= 2
                    and not s.declared
                    and not s.pung_lock
                    and self.variant.pung_allowed(self, seat, tile)
                ):
                    acts.append(Action(ActionType.PUNG, seat, tile))
            if not acts:
                continue
            if mandatory:
                if len(acts) == 1:
                    auto[seat] = acts[0]
            else:
                acts.append(Action(ActionType.PASS, seat))
            options[seat] = tuple(acts)
        # H4: with the pause on, every discard opens the same (held) window.
        held = self.pause_ms > 0
        if not options and not held:
            return self._next_draw_after(discarder)
        self.phase = Phase.CLAIM
        self.window = ClaimWindow(tile, discarder, options, auto, held=held)
        return [Event("claim_window", data={"waiting": True})]

    def _own_kong(self, seat: int, tile: Tile) -> list[Event]:
        s = self.seats[seat]
        if s.hand[tile] == 4:
            return self._make_kong(seat, tile, MeldKind.CONCEALED_KONG, None)
        options: dict[int, tuple[Action, ...]] = {}
        for other in self.others_in_hand(seat):
            if self._would_win(other, tile, WinSource.ROBBING, seat):
                options[other] = (Action(ActionType.WIN, other), Action(ActionType.PASS, other))
        held = self.pause_ms > 0  # H4: every 补杠 opens the same (held) window
        if not options and not held:
            return self._make_kong(seat, tile, MeldKind.ADDED_KONG, None)
        self.phase = Phase.ROB
        self.window = ClaimWindow(tile, seat, options, held=held)
        return [Event("rob_window", seat, tile, data={"waiting": True})]

    def _make_kong(
        self,
        seat: int,
        tile: Tile,
        kind: MeldKind,
        from_seat: int | None,
        robbed_by: tuple[int, ...] = (),
    ) -> list[Event]:
        s = self.seats[seat]
        if kind is MeldKind.ADDED_KONG:
            at = next(
                i for i, m in enumerate(s.melds) if m.kind is MeldKind.PUNG and m.tile == tile
            )
            s.melds[at] = Meld(kind, tile, s.melds[at].from_seat, s.melds[at].draws_at)
            s.remove(tile)
        else:
            s.remove(tile, 4 if kind is MeldKind.CONCEALED_KONG else 3)
            s.melds.append(Meld(kind, tile, from_seat, s.draws))
        kong = Kong(
            len(self.kongs), seat, tile, kind, from_seat, self.others_in_hand(seat), robbed_by
        )
        self.kongs.append(kong)
        events = [Event("kong", seat, tile, data={"kind": kind.value, "from": from_seat})]
        if self.phase is not Phase.TURN or self.turn != seat:
            self._turn_kongs = []
        self.phase = Phase.TURN
        self.turn = seat
        self._turn_kongs.append(kong.index)
        replacement = self.wall.draw_back()
        s.add(replacement)
        s.drawn = replacement
        s.draw_log.append(replacement)
        self._release_on_draw(s)
        self._turn_drew = True
        self._replacement = True
        events.append(Event("draw", seat, replacement, data={"replacement": True}, private=True))
        return events

    def _release_on_draw(self, s: SeatState) -> None:
        s.pung_lock = False
        if self.variant.win_lock_release == "draw":
            s.win_lock = False

    def _draw_for(self, seat: int) -> list[Event]:
        if self.wall.remaining == 0:
            return self._end("exhausted")
        s = self.seats[seat]
        tile = self.wall.draw()
        s.add(tile)
        s.drawn = tile
        s.draw_log.append(tile)
        self._release_on_draw(s)
        self.phase = Phase.TURN
        self.turn = seat
        self._turn_drew = True
        self._replacement = False
        self._turn_kongs = []
        return [Event("draw", seat, tile, data={"remaining": self.wall.remaining}, private=True)]

    def _next_draw_after(self, seat: int) -> list[Event]:
        self.window = None
        nxt = self.others_in_hand(seat)
        if not nxt:
            return self._end("last_player")
        return self._draw_for(nxt[0])

    # -- windows ---------------------------------------------------------------------------

    def _resolve_window(self) -> list[Event]:
        window = self.window
        assert window is not None
        if self.phase is Phase.DECLARE:
            return self._resolve_declare(window)
        tile, from_seat = window.tile, window.from_seat
        assert tile is not None and from_seat is not None
        ordered = sorted(
            window.decisions.values(),
            key=lambda a: (_ORDER[a.type], (a.seat - from_seat) % self.players),
        )
        winners = [a.seat for a in ordered if a.type is ActionType.WIN]
        for seat, opts in window.options.items():
            choice = window.decisions[seat].type
            offered = {a.type for a in opts}
            if ActionType.WIN in offered and choice is not ActionType.WIN:
                self.seats[seat].win_lock = True
            if (
                ActionType.PUNG in offered
                and choice is ActionType.PASS
                and self.variant.pung_lock_on_pass
            ):
                self.seats[seat].pung_lock = True
        robbing = self.phase is Phase.ROB
        self.window = None
        events: list[Event] = []
        if robbing:
            return self._resolve_rob(tile, from_seat, winners)
        if winners:
            entry = self.seats[from_seat].river[-1]
            entry.won_by = tuple(winners)
            events.extend(self._record_wins(winners, tile, WinSource.DISCARD, from_seat))
            if self.phase is Phase.ENDED:
                return events
            if not self.variant.multi_use(self):
                events.extend(self._after_multi_win(from_seat, winners))
                return events
        claim = next(
            (a for a in ordered if a.type in (ActionType.KONG, ActionType.PUNG)), None
        )
        if claim is not None and not self.seats[claim.seat].won:
            entry = self.seats[from_seat].river[-1]
            entry.claimed_by = claim.seat
            if claim.type is ActionType.KONG:
                events.extend(self._make_kong(claim.seat, tile, MeldKind.EXPOSED_KONG, from_seat))
            else:
                events.extend(self._pung(claim.seat, tile, from_seat))
            return events
        if winners:
            events.extend(self._after_multi_win(from_seat, winners))
            return events
        events.extend(self._next_draw_after(from_seat))
        return events

    def _resolve_declare(self, window: ClaimWindow) -> list[Event]:
        events: list[Event] = []
        for seat in sorted(window.decisions):
            decision = window.decisions[seat]
            if decision.type is ActionType.DECLARE:
                events.append(self._declare(seat, decision.ticks))
        self.window = None
        self.phase = Phase.TURN
        self.turn = self.dealer
        events.append(Event("turn", self.dealer))
        return events

    def _resolve_rob(self, tile: Tile, konger: int, winners: list[int]) -> list[Event]:
        if not winners:
            # Back to the konger's turn, so the kong joins this turn's earlier ones (Z15).
            self.phase = Phase.TURN
            return self._make_kong(konger, tile, MeldKind.ADDED_KONG, None)
        events = self._record_wins(winners, tile, WinSource.ROBBING, konger)
        multi_use = self.variant.multi_use(self)
        if not multi_use:
            self.seats[konger].remove(tile)
            self.seats[konger].drawn = None
        if self.phase is Phase.ENDED:
            return events
        if multi_use:
            self.phase = Phase.TURN
            events.extend(
                self._make_kong(konger, tile, MeldKind.ADDED_KONG, None, tuple(winners))
            )
            return events
        events.extend(self._after_multi_win(konger, winners))
        return events

    def _after_multi_win(self, from_seat: int, winners: list[int]) -> list[Event]:
        """Z4: who draws after wins on one discarded or robbed tile."""
        if len(winners) == 1:
            return self._next_draw_after(winners[0])
        for i in range(1, self.players):
            seat = (from_seat + i) % self.players
            if not self.seats[seat].won:
                self.window = None
                return self._draw_for(seat)
        return self._next_draw_after(from_seat)

    def _pung(self, seat: int, tile: Tile, from_seat: int) -> list[Event]:
        s = self.seats[seat]
        s.remove(tile, 2)
        s.melds.append(Meld(MeldKind.PUNG, tile, from_seat, s.draws))
        self.phase = Phase.TURN
        self.turn = seat
        self._turn_drew = False
        self._replacement = False
        self._turn_kongs = []
        return [Event("pung", seat, tile, data={"from": from_seat})]

    # -- wins and the end ------------------------------------------------------------------

    def _self_win(self, seat: int) -> list[Event]:
        s = self.seats[seat]
        tile = s.drawn if s.drawn is not None else self.dealt_last
        assert tile is not None
        s.remove(tile)
        events = self._record_wins([seat], tile, WinSource.SELF_DRAW, None)
        if self.phase is not Phase.ENDED:
            events.extend(self._next_draw_after(seat))
        return events

    def _record_wins(
        self, winners: list[int], tile: Tile, source: WinSource, from_seat: int | None
    ) -> list[Event]:
        group = self._groups
        self._groups += 1
        any_discard = any(s.discards for s in self.seats)
        any_meld = any(s.melds for s in self.seats)
        # 地胡 is a win on the dealer's first discard, even after a concealed kong of theirs.
        first_discard = (
            source is WinSource.DISCARD
            and from_seat == self.dealer
            and sum(s.discards for s in self.seats) == 1
        )
        feeder = None
        if source is WinSource.SELF_DRAW and self._replacement and self._turn_kongs:
            feeder = self.kongs[self._turn_kongs[-1]].from_seat
        events: list[Event] = []
        records = []
        for seat in winners:
            s = self.seats[seat]
            records.append(
                Win(
                    seat=seat,
                    tile=tile,
                    source=source,
                    from_seat=from_seat,
                    concealed=tuple(s.concealed()),
                    melds=tuple(s.melds),
                    payers=self.others_in_hand(seat),
                    group=group,
                    declared=s.declared,
                    kong_replacement=source is WinSource.SELF_DRAW and self._replacement,
                    after_kong_discard=source is WinSource.DISCARD and bool(self._turn_kongs),
                    heavenly=source is WinSource.SELF_DRAW
                    and seat == self.dealer
                    and not any_discard
                    and not any_meld,
                    earthly=first_discard and seat != self.dealer,
                    kong_feeder=feeder,
                    turn_kongs=tuple(self._turn_kongs) if source is WinSource.DISCARD else (),
                )
            )
        for win in records:
            s = self.seats[win.seat]
            s.add(tile)
            s.won = True
            s.drawn = None
            self.wins.append(win)
            events.append(
                Event(
                    "win",
                    win.seat,
                    tile,
                    data={
                        "source": source.value,
                        "from": from_seat,
                        "hand": [t.code for t in s.concealed()],
                    },
                )
            )
        if not self.variant.continues_after_win(self):
            events.extend(self._end("win"))
        elif sum(not s.won for s in self.seats) <= 1:
            events.extend(self._end("last_player"))
        return events

    def _end(self, reason: EndReason) -> list[Event]:
        self.phase = Phase.ENDED
        self.window = None
        self.end_reason = reason
        return [Event("hand_end", data={"reason": reason})]

    def settlement(self) -> AnySettlement:
        """The itemised settlement. Only for an ended round."""
        if self.phase is not Phase.ENDED:
            raise IllegalActionError("hand_not_over")
        if self._settlement is None:
            self._settlement = self.variant.settle(self)
        return self._settlement

    def next_dealer(self) -> tuple[int, int]:
        """The next hand's dealer and streak. Only for an ended round."""
        if self.phase is not Phase.ENDED:
            raise IllegalActionError("hand_not_over")
        return self.variant.next_dealer(self)

    # -- timers ----------------------------------------------------------------------------

    def timeout_action(self, seat: int) -> Action | None:
        """What an expired timer does for ``seat`` now (D5/Z6), or ``None`` if nothing.

        An offered win is taken when the variant's ``timeout_takes_win`` says so. Otherwise:
        on a claim or declaration, pass; on your own turn, discard the rightmost tile (the
        tile just drawn, else the last tile in hand order). A declared seat makes its forced
        move. A held declaration gets the variant's timeout answer.
        """
        legal = self.legal_actions(seat)
        if not legal:
            return None
        answer = self.variant.pending_timeout(self, seat)
        if answer is not None:
            return answer
        win = next((a for a in legal if a.type is ActionType.WIN), None)
        if win is not None and self.variant.timeout_takes_win(self):
            return win
        if self.window is not None:
            return next(
                (a for a in legal if a.type is ActionType.PASS),
                next(a for a in legal if a.type is not ActionType.WIN),
            )
        s = self.seats[seat]
        if s.declared:
            return next(a for a in legal if a.type is not ActionType.WIN)
        tile = s.drawn if s.drawn is not None else max(t for t in s.concealed())
        return Action(ActionType.DISCARD, seat, tile)

    # -- views -----------------------------------------------------------------------------

    def observation(self, viewer: int | None) -> dict[str, Any]:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see; see :mod:`views`."""
        return views.observation(self, viewer)

    def observations(
        self, viewers: Iterable[int | None]
    ) -> dict[int | None, dict[str, Any]]:
        """:meth:`observation` for several viewers at once, sharing what they see alike."""
        return views.observations(self, viewers)

    def snapshot(self) -> dict[str, Any]:
        """The complete state including hidden tiles; for checks, never for players."""
        return views.snapshot(self)
