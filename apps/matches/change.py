"""A change to one match: its state, the log entries a service appends, the write that
the match row decides, and what happens once it commits.

Every change, a player's message as much as a timer, the sweep, an admin's dissolve or a
presence note, runs the same way: the match row is read under its lock
(``select_for_update``; on SQLite every transaction is ``BEGIN IMMEDIATE``), the state at
that row's version is taken from this process's cache or rebuilt from the log
(:mod:`apps.matches.state`), the service applies the change, and :meth:`MatchChange.save`
writes the row and appends the log in one statement (:func:`match_write`).
A refusal is judged on the locked row, so it is never judged on a state that is out of date.

A service mutates the round and the rows through the change and appends log entries with
:meth:`MatchChange.log`; :meth:`MatchChange.save` registers the effects that run after the
commit: the match's timer for a new due moment, the update's frames, built from the
committed state and sent through the channel layer, then the state goes back to the
per-process cache. Nothing leaves the process before the commit.

The match row's ``timer_due`` is the next moment something falls due (a deadline, a seat
in 托管, a dissolve vote's end); :func:`apps.matches.services.match_timers_fire` acts on
the rows whose moment has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.db import connections, router, transaction
from django.db.models import Model
from django.db.models.sql import InsertQuery, UpdateQuery

from majiang import Round

from . import frames, pacing, state, timers
from .models import Hand, Match, MatchEvent, MatchPlayer
from .pacing import auto_play_delay
from .protocol import MatchError


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
    stored: dict[int, tuple[int, bool]] = field(init=False)
    """Each seat's ``(consecutive_timeouts, auto_play)`` as stored: only changed rows are saved."""

    views_before: list[int] = field(init=False)
    """Each audience's version before this change (seats, then spectators)."""
    due_before: datetime | None = field(init=False)
    """The match's next due moment before this change: a new, near one gets its timer."""
    offline_before: datetime | None = field(init=False)
    """When the table went offline, before this change."""

    def __post_init__(self) -> None:
        self.stored = {p.seat: _player_fields(p) for p in self.players}
        self.views_before = list(self.match.views)
        self.due_before = self.match.timer_due
        self.offline_before = self.match.offline_since

    @classmethod
    def open(cls, match_id: int, *, skip_locked: bool = False) -> MatchChange | None:
        """The match row, locked, and its state at the row's version
        (:func:`apps.matches.state.state_checkout`). ``None`` if there is no such match,
        or, with ``skip_locked``, if another transaction holds the row. Call inside
        ``transaction.atomic()``."""
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
        due = [match.deadline, pacing.hold_until(match, self.rnd), *pacing.offline_due(match)]
        if (match.stage == Match.Stage.HAND and self.rnd is not None
                and match.paused_left_ms is None):
            pending = set(self.rnd.pending())
            due.extend(self.now + auto_play_delay(match, p)
                       for p in self.players if p.auto_play and p.seat in pending)
        if match.dissolve_vote:
            due.append(moment_of(int(match.dissolve_vote["deadline"])))
        return min((moment for moment in due if moment is not None), default=None)

    def save(self) -> None:
        """Write the match row and append the log; after the commit, send the match's timer
        for a new due moment that is near (a far one gets its timer from the sweep), build
        and send the update, then cache the state. A change that logged nothing still
        stores its next due moment (a timer that found nothing to do) and whether the table
        is offline."""
        match = self.match
        match.timer_due = due = self.next_due()
        if due is not None and due != self.due_before and due - self.now <= pacing.timer_lead():
            transaction.on_commit(lambda: timers.timer_set(match.pk, due), robust=True)
        if not self.entries:
            if due != self.due_before or match.offline_since != self.offline_before:
                Match.objects.filter(pk=match.pk).update(
                    timer_due=match.timer_due, offline_since=match.offline_since)
            self._checkin_on_commit()
            return
        if match.views[-1] > self.views_before[-1]:  # public: a spectator's view moved on
            match.changed_at = self.now  # a private decision moves no clock others see (H1)
        if self.new_decision:
            match.decision_views = list(match.views)
        match_write(match, self.entries)
        MatchPlayer.objects.bulk_update(  # the seats whose 托管 or timeouts changed, if any
            [p for p in self.players if _player_fields(p) != self.stored[p.seat]],
            ["consecutive_timeouts", "auto_play"])
        # The frames are built from the committed state after the commit, outside the row
        # lock, and before the state goes back to the cache for the next change to take.
        transaction.on_commit(lambda: frames.send_updates(
            match.pk, frames.updates_for(self), spans=frames.update_spans(self)), robust=True)
        self._checkin_on_commit()

    def release(self) -> None:
        """Give back the state of a change that applied nothing (a refusal, a timer with
        nothing due): it is still the row's, so it stays cached."""
        if not self.entries:
            state.state_checkin(self._table())

    def _table(self) -> state.TableState:
        return state.TableState(self.match, self.players, self.hand, self.rnd)

    def _checkin_on_commit(self) -> None:
        table = self._table()
        transaction.on_commit(lambda: state.state_checkin(table))


def change_run(match_id: int, apply: Callable[[MatchChange], None]) -> MatchChange:
    """Make one change to a match in its own transaction, from the locked row: ``apply``
    checks and applies it (raising :class:`~apps.matches.protocol.MatchError` to refuse,
    with nothing changed), then it is saved."""
    with transaction.atomic():
        change = MatchChange.open(match_id)
        if change is None:
            raise MatchError("no_match")
        try:
            apply(change)
        except MatchError:
            change.release()
            raise
        change.save()
    return change


def match_write(match: Match, entries: list[MatchEvent]) -> None:
    """Write the match row's live fields and append ``entries`` to its log.

    Both statements are the ORM's own (``QuerySet.update`` and ``bulk_create``'s, compiled
    by Django). On PostgreSQL they go as one statement, the update in a data-modifying
    ``WITH``, so that a move costs two round trips in all (the locked read and this); on
    SQLite, in process, as the two. ``tests/matches/test_match_write.py`` compares the
    rows the one statement writes with the ORM's.
    """
    values = {name: getattr(match, name) for name in _MATCH_FIELDS}
    connection = connections[router.db_for_write(Match)]
    if connection.vendor != "postgresql":
        Match.objects.filter(pk=match.pk).update(**values)
        MatchEvent.objects.bulk_create(entries)
        return
    update = cast(UpdateQuery, Match.objects.filter(pk=match.pk).query.chain(UpdateQuery))
    update.add_update_values(values)
    update_sql, update_params = update.get_compiler(connection=connection).as_sql()
    insert = InsertQuery(MatchEvent)
    fields = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    insert.insert_values(fields, list[Model](entries))
    [(insert_sql, insert_params)] = insert.get_compiler(connection=connection).as_sql()
    with connection.cursor() as cursor:
        cursor.execute(f"WITH updated AS ({update_sql}) {insert_sql}",
                       (*update_params, *insert_params))


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
