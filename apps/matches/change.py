"""A change to one match inside one locked transaction: log entries, then commit effects.

Services open a :class:`MatchChange` on a row locked with ``select_for_update``, mutate the
round and the rows through it, append log entries with :meth:`MatchChange.log`, and call
:meth:`MatchChange.save`. That writes everything and registers the post-commit effects
(cache check-in, broadcast, next timer). Nothing leaves the process before the commit.

A move usually needs no lock at all: the process that made the match's last change holds
its state in the cache, row included, so :meth:`MatchChange.from_cache` starts from that,
and :meth:`MatchChange.save` writes only if the row is still the cached one
(:func:`apps.matches.rows.change_write_if`; on PostgreSQL one statement, which commits by
itself). A timer that re-armed meanwhile does not send it there: the write then applies
the timer rule to the row's own timer (:mod:`apps.matches.timers`). Such a change
takes the row lock (:meth:`MatchChange.lock`), in a transaction, before it writes anything
else (a hand's end, a seat's columns, the ledger). If the row moved on, nothing is written
and :class:`NeedsLockError` sends the caller to the locked path. Until a change has the
lock or has written, any statement is refused (:meth:`MatchChange.unlocked`): what it
read could be older than the row.

Timers: a match has at most one *live* timer, identified by the moment it is due
(``Match.timer_due``). A change keeps it or arms a new one by the rule of
:mod:`apps.matches.timers`; a live timer that fires early finds nothing due and re-arms
itself for the current due moment. A timer carrying any other due moment is superseded and
does nothing (:func:`apps.matches.services.match_timeout_fire`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from config.celery import app as celery_app
from majiang import Round

from . import broadcast, frames, rows, state
from .models import Hand, Match, MatchEvent, MatchPlayer
from .timers import TimerRule

TIMEOUT_TASK = "matches.timeout"
"""Name of the Celery task defined in :mod:`apps.matches.tasks`."""
AUTO_PLAY_DELAY = timedelta(seconds=1)
"""How long a seat in 托管 takes to act."""
TIMER_TOLERANCE = timedelta(milliseconds=50)
"""A timer firing this early still counts as on time (clock jitter between processes)."""
logger = logging.getLogger(__name__)


class NeedsLockError(Exception):
    """A change made from the cache cannot be finished without the row lock: the row moved
    on since the cache (another process changed the match), or the change needs a statement
    before it locked. Nothing was written; make the change again on the locked path."""


@dataclass
class MatchChange:
    """The state of one locked match and the log entries a service appends to it."""

    match: Match
    players: list[MatchPlayer]
    hand: Hand | None
    rnd: Round | None
    now: datetime = field(default_factory=timezone.now)
    entries: list[MatchEvent] = field(default_factory=list)
    new_decision: bool = False
    signals: list[tuple[Signal, dict[str, Any]]] = field(default_factory=list)
    """Signals to send once every row of the change is written (still in the transaction)."""
    expected: rows.Expected | None = None
    """For a change made from the cache without the row lock: what the row must still be
    for the change to be written. ``None`` once the change holds the lock."""
    stored: dict[int, tuple[int, bool]] = field(init=False)
    """Each seat's ``(consecutive_timeouts, auto_play)`` as stored: only changed rows are saved."""
    _transaction: contextlib.ExitStack = field(init=False, default_factory=contextlib.ExitStack)
    _querying: bool = field(init=False, default=False)
    _held: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.stored = {p.seat: _player_fields(p) for p in self.players}

    @classmethod
    def from_cache(cls, match_id: int) -> MatchChange | None:
        """A change of the match made from this process's cached entry, without the row
        lock (:func:`apps.matches.state.writer_take`), or ``None`` when there is no usable
        entry. Run it inside :meth:`unlocked`."""
        entry = state.writer_take(match_id)
        if entry is None or entry.match is None:
            return None
        return cls(entry.match, entry.players, entry.hand, entry.rnd,
                   expected=rows.Expected.of(entry.match))

    @contextlib.contextmanager
    def unlocked(self) -> Iterator[None]:
        """The block of a change made from the cache: a statement before :meth:`lock` (or
        the write) raises :class:`NeedsLockError`, and a transaction that the lock opened
        commits at the end of the block (rolls back on an error)."""
        with self._transaction, connection.execute_wrapper(self._refuse_unlocked):
            self._held = True
            try:
                yield
            finally:
                self._held = False

    def _refuse_unlocked(self, execute: Callable[..., Any], sql: str, params: Any,
                         many: bool, context: dict[str, Any]) -> Any:
        if self.expected is not None and not self._querying:
            logger.warning("match %s: a statement before the lock in a change made from "
                           "the cache: %s", self.match.pk, sql[:80])
            raise NeedsLockError("a statement before the lock")
        return execute(sql, params, many, context)

    @contextlib.contextmanager
    def _querying_allowed(self) -> Iterator[None]:
        """The change's own lock or write: statements that :meth:`unlocked` lets through."""
        self._querying = True
        try:
            yield
        finally:
            self._querying = False

    def lock(self) -> None:
        """Make sure this change holds the match row's lock, in a transaction.

        A change made from the cache opens the transaction and locks the row now: if any
        column but ``timer_due`` moved on, raises :class:`NeedsLockError`. A timer may have
        re-armed meanwhile without a new version: the change then takes ``timer_due`` from
        the row. A no-op for a change that holds the lock.
        """
        expected = self.expected
        if expected is None:
            return
        assert self._held, "lock() on a change from the cache outside its unlocked() block"
        with self._querying_allowed():  # SQLite's BEGIN IMMEDIATE is a statement too
            self._transaction.enter_context(transaction.atomic())
            row = rows.match_lock(self.match.pk).match
        moved = expected.differs(row, but=frozenset({"timer_due"}))
        if moved:
            raise NeedsLockError(f"match {self.match.pk}: the row's {', '.join(moved)} changed")
        self.match.timer_due = row.timer_due
        self.expected = None

    @classmethod
    def open(cls, match_id: int) -> MatchChange:
        """Lock the match row (:func:`apps.matches.state.writer_lock`), then as
        :meth:`of_locked`."""
        return cls.of_locked(state.writer_lock(match_id))

    @classmethod
    def of_locked(cls, locked: rows.LockedMatch) -> MatchChange:
        """The change of a match whose row this transaction has locked: its players,
        current hand and round from the verified cache, caught up from the log tail read
        with the lock (:func:`apps.matches.state.writer_checkout`), else loaded."""
        writer = state.writer_checkout(locked)
        return cls(locked.match, writer.players, writer.hand, writer.rnd)

    def rows(self) -> state.WriterState:
        """The players, hand, round and match row of this change, for the per-process
        cache."""
        return state.WriterState(self.players, self.hand, self.rnd, self.match)

    def player_of(self, user_id: int) -> MatchPlayer | None:
        """The seated player who is this user, if any."""
        return next((p for p in self.players if p.user_id == user_id), None)

    def log(
        self, kind: str, events: list[dict[str, Any]], *, seat: int | None = None, **extra: Any
    ) -> MatchEvent:
        """Append a log entry holding ``events`` (log form) and bump the version."""
        self.match.version += 1
        entry = MatchEvent(
            match=self.match,
            seq=self.match.version,
            hand=self.hand,
            kind=kind,
            seat=seat,
            payload={"events": events, **extra},
        )
        self.entries.append(entry)
        return entry

    def start_decision(self, seconds: float) -> None:
        """A new decision point opens now, with ``seconds`` to decide."""
        self.new_decision = True
        self.match.deadline = self.now + timedelta(seconds=seconds)

    def next_timer_due(self) -> datetime | None:
        """When the next timer should fire: deadline, 托管 delay or the dissolve vote."""
        match = self.match
        if match.status != Match.Status.PLAYING:
            return None
        due = [match.deadline] if match.deadline is not None else []
        if match.stage == Match.Stage.HAND and self.rnd is not None:
            auto = {p.seat for p in self.players if p.auto_play}
            if auto & set(self.rnd.pending()):
                due.append(self.now + AUTO_PLAY_DELAY)
        if match.dissolve_vote:
            due.append(timer_due_of(int(match.dissolve_vote["deadline"])))
        return min(due) if due else None

    def timer_rule(self) -> TimerRule:
        """The timer this change needs: one that fires by the next due moment (to the
        millisecond, a timer's identity)."""
        due = self.next_timer_due()
        if due is not None:
            due = due.replace(microsecond=due.microsecond // 1000 * 1000)
        return TimerRule(self.now, due)

    def arm_timer(self) -> datetime | None:
        """Apply the timer rule to the match's live timer (the locked row's).

        Returns the due moment of a new timer to publish, now recorded as the live one, or
        ``None`` when nothing is due or the live timer fires no later than needed.
        """
        rule = self.timer_rule()
        if rule.keeps(self.match.timer_due):
            return None
        self.match.timer_due = rule.due
        return rule.due

    def save_timer_only(self) -> None:
        """For a change that logged nothing: arm the next timer (only ``timer_due`` is
        written), publishing it on commit."""
        due = self.arm_timer()
        if due is not None:
            timer_write(self.match.pk, due)

    def save(self) -> None:
        """Write the match, players, hand and log; register broadcast and timer on commit."""
        if not self.entries:
            return
        if self.signals or any(_player_fields(p) != self.stored[p.seat] for p in self.players):
            self.lock()
        match = self.match
        match.changed_at = self.now
        if self.new_decision:
            match.decision_version = match.version
        # Built before the write: a change from the cache commits with it, and what follows
        # a commit must not fail.
        updates = frames.updates_for(self)
        if self.expected is None:
            due = self.arm_timer()
            rows.change_write(match, self.entries)
        else:
            due = self._write_if_unchanged()
        for player in self.players:
            if _player_fields(player) != self.stored[player.seat]:
                player.save(update_fields=["consecutive_timeouts", "auto_play"])
        for signal, kwargs in self.signals:
            signal.send(**kwargs)
        version, writer, match_id = match.version, self.rows(), match.pk
        if writer.rnd is not None and match.status == Match.Status.PLAYING:
            transaction.on_commit(lambda: state.writer_checkin(match_id, version, writer))
        transaction.on_commit(lambda: broadcast.send_updates(match_id, updates), robust=True)
        if due is not None:
            transaction.on_commit(lambda: timer_schedule(match_id, due), robust=True)

    def _write_if_unchanged(self) -> datetime | None:
        """Write a change made from the cache if the row is still the cached one but for
        its live timer, which the write keeps or replaces (:func:`rows.change_write_if`).
        Return the due moment of a new timer to publish, or ``None``. Raises
        :class:`NeedsLockError` if the row moved on (nothing is written)."""
        assert self.expected is not None
        with self._querying_allowed():
            written = rows.change_write_if(self.match, self.entries, self.expected,
                                           self.timer_rule())
        if written is None:
            raise NeedsLockError(f"match {self.match.pk}: the row moved on since the cache")
        self.expected = None
        self.match.timer_due = written.due
        return written.due if written.armed else None


def _player_fields(player: MatchPlayer) -> tuple[int, bool]:
    return player.consecutive_timeouts, player.auto_play


def timer_write(match_id: int, due: datetime, **unchanged: Any) -> bool:
    """Record ``due`` as the match's live timer (``timer_due`` alone is written), if the row
    still has the values ``unchanged`` names, and publish the timer on commit. Return
    whether it was written."""
    if not Match.objects.filter(pk=match_id, **unchanged).update(timer_due=due):
        return False
    transaction.on_commit(lambda: timer_schedule(match_id, due), robust=True)
    return True


def timer_schedule(match_id: int, due: datetime) -> str:
    """Queue the ``matches.timeout`` Celery task of the match's live timer, due at ``due``;
    return the task's ID.

    Nobody reads a timer's result: ``ignore_result`` spares the publisher a subscription
    to the result channel (a Redis ``SUBSCRIBE`` per task, never released) on every send.
    """
    countdown = max(0.0, (due - timezone.now()).total_seconds())
    result = celery_app.send_task(
        TIMEOUT_TASK, args=(match_id, timer_token(due)), countdown=countdown, ignore_result=True
    )
    return str(result.id)


def timer_token(due: datetime) -> int:
    """A timer's identity: its due moment in whole milliseconds since the epoch.

    Exact integer arithmetic, unlike :func:`frames.epoch_ms` (a float product, fine for a
    countdown): a token must map back to the very ``timer_due`` it was made from.
    """
    return (due - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


def timer_due_of(token: int) -> datetime:
    """The due moment a timer's token stands for."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=token)
