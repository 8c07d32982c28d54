"""A change to one match: its state, the log entries a service appends, the write that
the match row decides, and what happens once it commits.

A player's message runs through :func:`change_run`. It takes this process's cached state
of the match without reading the row (the usual case: a room's moves reach one process),
and the write is conditional on the row still being at the version that state was at
(``UPDATE … WHERE version = v``). When the row has moved on (another process, the sweep),
the change is rolled back and made again from the row read under its lock
(``select_for_update``; on SQLite every transaction is ``BEGIN IMMEDIATE``), as the sweep,
an admin's dissolve and a presence note always make theirs. A refusal judged on the cached
state is checked against the row the same way, so no message is refused on a state that is
out of date.

A service mutates the round and the rows through the change, appends log entries with
:meth:`MatchChange.log`; :meth:`MatchChange.save` writes the match row, the log rows and any
changed seat, and registers the effects that run after the commit: the update's frames are
built and go out through the channel layer, then the state goes back to the per-process
cache. Nothing leaves the process before the commit.

The match row's ``timer_due`` is the next moment something falls due (a deadline, a seat
in 托管, a dissolve vote's end); :func:`apps.matches.services.match_timers_fire` acts on
the rows whose moment has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from majiang import Round

from . import broadcast, frames, pacing, pause, state, timers
from .models import Hand, Match, MatchEvent, MatchPlayer
from .pacing import auto_play_delay
from .protocol import MatchError


class StaleStateError(Exception):
    """The match row moved on from the cached state a change was made from."""


@dataclass
class MatchChange:
    """The state of one locked match and the log entries a service appends to it."""

    match: Match
    players: list[MatchPlayer]
    hand: Hand | None
    rnd: Round | None
    now: datetime = field(default_factory=pacing.now)
    entries: list[MatchEvent] = field(default_factory=list)
    new_decision: bool = False
    cached: bool = False
    """Made from the cached state, without reading the row: the write checks the row."""
    locked: bool = False
    """A change from the cached state has locked the row (:meth:`lock`)."""
    stored: dict[int, tuple[int, bool]] = field(init=False)
    """Each seat's ``(consecutive_timeouts, auto_play)`` as stored: only changed rows are saved."""
    base: dict[str, Any] = field(init=False)
    """The row as this change found it: the write is conditional on it."""

    views_before: list[int] = field(init=False)
    """Each audience's version before this change (seats, then spectators)."""
    due_before: datetime | None = field(init=False)
    """The match's next due moment before this change: a new one gets its timer."""

    def __post_init__(self) -> None:
        self.stored = {p.seat: _player_fields(p) for p in self.players}
        self.base = {"version": self.match.version, "offline_since": self.match.offline_since}
        if not self.match.views:
            self.match.views = [0] * (len(self.players) + 1)
        self.views_before = list(self.match.views)
        self.due_before = self.match.timer_due

    @classmethod
    def open(cls, match_id: int, *, cached: bool = False,
             skip_locked: bool = False) -> MatchChange | None:
        """The state of a match to change: with ``cached``, this process's cached state if
        it holds one; else the row, locked, and its state
        (:func:`apps.matches.state.state_checkout`). ``None`` if there is no such match,
        or, with ``skip_locked``, if another transaction holds the row. Call inside
        ``transaction.atomic()``."""
        table = state.state_take(match_id) if cached else None
        if table is not None:
            return cls(table.match, table.players, table.hand, table.rnd, cached=True)
        try:
            match = Match.objects.select_for_update(skip_locked=skip_locked).get(pk=match_id)
        except Match.DoesNotExist:
            return None
        table = state.state_checkout(match)
        return cls(match, table.players, table.hand, table.rnd)

    @classmethod
    def new(cls, match: Match, players: list[MatchPlayer]) -> MatchChange:
        """The change that creates ``match`` (before its first hand)."""
        return cls(match, players, None, None)

    def lock(self) -> None:
        """Lock the match row before writing any other row (a hand, a seat, the room), as a
        change from the locked row does: two changes of one match then never hold rows the
        other waits for. Raises :class:`StaleStateError` if the row has moved on from the
        cached state."""
        if self.cached and not self.locked:
            if not list(self._row().select_for_update().values_list("pk", flat=True)):
                raise StaleStateError
            self.locked = True

    def player_of(self, user_id: int) -> MatchPlayer | None:
        """The seated player who is this user, if any."""
        return next((p for p in self.players if p.user_id == user_id), None)

    def log(
        self, kind: str, events: list[dict[str, Any]], *, seat: int | None = None, **extra: Any
    ) -> MatchEvent:
        """Append a log entry holding ``events`` (log form) and bump the version, and the
        version of each audience that may see one of them (:func:`frames.audiences_seeing`)."""
        match = self.match
        match.version += 1
        seeing = frames.audiences_seeing(events, len(self.players))
        match.views = [v + seen for v, seen in zip(match.views, seeing, strict=True)]
        entry = MatchEvent(
            match=match, seq=match.version, hand=self.hand, kind=kind, seat=seat,
            payload={"events": events, **extra}, views=list(match.views),
        )
        self.entries.append(entry)
        return entry

    def start_decision(self, seconds: float) -> None:
        """A new decision point opens now, with ``seconds`` to decide (kept for later
        while the clock is paused)."""
        self.new_decision = True
        if self.match.paused_left_ms is not None:
            self.match.paused_left_ms = seconds * 1000
            return
        self.match.deadline = self.now + timedelta(seconds=seconds)

    def next_due(self) -> datetime | None:
        """When something next falls due: the deadline, a seat in 托管 that must act, or
        the dissolve vote's end, or an offline table's pause or dissolution."""
        match = self.match
        if match.status != Match.Status.PLAYING:
            return None
        due = [match.deadline] if match.deadline is not None else []
        due += pause.offline_due(match)
        pause_end = pacing.hold_until(match, self.rnd)
        if pause_end is not None:
            due.append(pause_end)
        if (match.stage == Match.Stage.HAND and self.rnd is not None
                and match.paused_left_ms is None):
            pending = set(self.rnd.pending())
            due.extend(self.now + auto_play_delay(match, p)
                       for p in self.players if p.auto_play and p.seat in pending)
        if match.dissolve_vote:
            due.append(moment_of(int(match.dissolve_vote["deadline"])))
        return min(due) if due else None

    def save(self) -> None:
        """Write the log, the match row and the changed seats; after the commit, send the
        match's timer for a new due moment, build and send the update, then cache the
        state. A change that logged nothing still stores its next due moment (a timer that
        found nothing to do) and whether the table is offline."""
        match = self.match
        match.timer_due = due = self.next_due()
        if due is not None and due != self.due_before:
            transaction.on_commit(lambda: timers.timer_set(match.pk, due), robust=True)
        row = self._row()
        if not self.entries:
            if not row.update(timer_due=match.timer_due, offline_since=match.offline_since):
                raise StaleStateError
            self._checkin_on_commit()
            return
        if match.views[-1] > self.views_before[-1]:  # public: a spectator's view moved on
            match.changed_at = self.now  # a private decision moves no clock others see (H1)
        if self.new_decision:
            match.decision_views = list(match.views)
        if not row.update(**{name: getattr(match, name) for name in _MATCH_FIELDS}):
            raise StaleStateError
        MatchEvent.objects.bulk_create(self.entries)
        for player in self.players:
            if _player_fields(player) != self.stored[player.seat]:
                player.save(update_fields=["consecutive_timeouts", "auto_play"])
        # The frames are built from the committed state after the commit, outside the row
        # lock, and before the state goes back to the cache for the next change to take.
        transaction.on_commit(lambda: broadcast.send_updates(
            match.pk, frames.updates_for(self), spans=frames.update_spans(self)), robust=True)
        self._checkin_on_commit()

    def release(self) -> None:
        """Give back the state of a change that applied nothing (a refusal, a timer with
        nothing due): it is still the row's, so it stays cached. Raises
        :class:`StaleStateError` if it was cached and the row has moved on since."""
        if self.cached and not self.locked and not self._row().exists():
            raise StaleStateError
        if not self.entries:
            state.state_checkin(self._table())

    def _row(self) -> QuerySet[Match]:
        """The match row, if it is still as this change found it."""
        return Match.objects.filter(pk=self.match.pk, **self.base)

    def _table(self) -> state.TableState:
        return state.TableState(self.match, self.players, self.hand, self.rnd)

    def _checkin_on_commit(self) -> None:
        table = self._table()
        transaction.on_commit(lambda: state.state_checkin(table))


def change_run(match_id: int, apply: Callable[[MatchChange], None]) -> MatchChange:
    """Make one change to a match in its own transaction: ``apply`` checks and applies it
    (raising :class:`~apps.matches.protocol.MatchError` to refuse, with nothing changed),
    then it is saved. Made from the cached state first; made again from the locked row if
    that turns out to be out of date (:class:`StaleStateError`)."""
    try:
        return _change_once(match_id, apply, cached=True)
    except StaleStateError:
        return _change_once(match_id, apply, cached=False)


def _change_once(match_id: int, apply: Callable[[MatchChange], None], *,
                 cached: bool) -> MatchChange:
    with transaction.atomic():
        change = MatchChange.open(match_id, cached=cached)
        if change is None:
            raise MatchError("no_match")
        try:
            apply(change)
        except MatchError:
            change.release()
            raise
        change.save()
    return change


_MATCH_FIELDS = [
    "status", "stage", "hands_played", "dealer", "streak", "totals", "version", "views",
    "decision_views", "changed_at", "deadline", "timer_due", "ready_seats", "dissolve_vote",
    "finished_at", "offline_since", "paused_left_ms", "next_hand",
]


def _player_fields(player: MatchPlayer) -> tuple[int, bool]:
    return player.consecutive_timeouts, player.auto_play


def moment_of(ms: int) -> datetime:
    """The moment ``ms`` milliseconds after the epoch (a dissolve vote's stored deadline)."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
