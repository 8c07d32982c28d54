"""A match's writer state (players, current hand, its :class:`~majiang.Round`), with a
verified per-process cache.

A hand's state is a pure function of its seed and its logged actions. Each process keeps at
most one entry per match, tagged with the match version it reflects: the built round, and
for writers also the match's :class:`MatchPlayer` rows and current :class:`Hand` row. An
entry is used as it is when its tag equals the version read from the (locked) match row,
which is the seq of the last log entry; a writer may catch an entry that is behind up from
the log (below); otherwise everything is loaded again and the round is rebuilt from the log.

This is sound because those rows of a playing match are written only inside a
:class:`~apps.matches.change.MatchChange`, and every such change bumps the version.

Writers *check out* the cached entry (removing it, so a failed transaction can never leave
a half-applied round or row behind) and *check in* the new one after commit.

When the players of a table are connected to different processes (or a Celery timer acts),
consecutive changes of a match are made by different processes, and each would find its own
entry some versions behind. Such a writer catches its entry up from the log instead of
rebuilding: once it has found a match changed elsewhere, it asks the lock for the log tail
after its entry's version (:func:`apps.matches.rows.match_lock`; the first time, or after
a plain lock, it reads the tail apart). When the tail stays in the entry's hand (its
actions, table events such as 准备 or a vote, and its end), the writer applies the actions
to its round, takes the seats' 托管 columns from the same read, and reads the Hand row again
if the hand ended. A tail with a deal (a new hand) loads everything again. The caught-up
entry is then exactly the state at the locked version, which is why it is used: the round
is a function of the log's actions, the match row is read with every lock, table events
change only the match row and the seats' columns, and the Hand row changes only with a
deal or a hand's end. So the four 准备 of a table whose seats are on two processes cost no
rebuild of the finished hand, which each of them used to.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from majiang import Action, IllegalActionError, RecordError, Round, get_variant
from majiang.record import apply_recorded

from . import rows as statements
from .models import Hand, Match, MatchEvent, MatchPlayer
from .tail import TAIL_LIMIT, LogTail


@dataclass(slots=True)
class WriterState:
    """What a writer needs besides the locked match row, as of one match version."""

    players: list[MatchPlayer]
    hand: Hand | None
    rnd: Round | None
    match: Match | None = None
    """The match row as the change that cached this entry wrote it (a writer's entry), for
    a change made without the row lock (:func:`writer_take`)."""


logger = logging.getLogger(__name__)

_cache: dict[int, tuple[int, WriterState]] = {}
_cache_lock = threading.Lock()
_changed_elsewhere: dict[int, int] = {}
"""Playing matches that another process has changed lately, each with how many locks in a
row have found this process's entry current since. Their locks read the tail, and their
moves are not made from the cache without the lock. A table served by this process alone
is not here: its moves are made from the cache (:func:`writer_take`) and, when they need
the lock, lock without the tail (no subqueries on its hot path)."""
SETTLED_AFTER = 8
"""A match leaves :data:`_changed_elsewhere` when this many locks in a row (two turns of a
table) found the entry current: the other writer (a timer, a seat on another process) has
gone quiet."""


def round_rebuild(match: Match, hand: Hand, *, upto: int | None = None) -> Round:
    """Deal ``hand`` from its seed and apply its logged actions (with seq ≤ ``upto``), as
    records are read (:func:`majiang.record.apply_recorded`)."""
    rnd, _ = Round.deal(
        get_variant(match.variant),
        match.settings,
        dealer=hand.dealer,
        streak=hand.streak,
        seed=hand.seed,
    )
    entries = MatchEvent.objects.filter(match=match, hand=hand, kind=MatchEvent.Kind.ACTION)
    if upto is not None:
        entries = entries.filter(seq__lte=upto)
    for payload in entries.order_by("seq").values_list("payload", flat=True):
        apply_recorded(rnd, Action.from_json(payload["action"]))
    return rnd


def writer_lock(match_id: int) -> statements.LockedMatch:
    """Lock the match row; for a match changed elsewhere before, with the log tail since
    this process's cached entry (if any)."""
    with _cache_lock:
        cached = _cache.get(match_id)
        elsewhere = match_id in _changed_elsewhere
    since = cached[0] if cached is not None and elsewhere else None
    return statements.match_lock(match_id, since=since)


def writer_checkout(locked: statements.LockedMatch) -> WriterState:
    """The players, current hand and round at the locked row's version, for a writer
    holding the match row lock (:func:`writer_lock`, or a plain lock).

    Takes the cached entry out of the cache. At the row's version, its rows are used
    (re-attached to the match) without a query; behind by actions of its hand, it is
    caught up from the log tail (read with the lock, else now); otherwise the rows are
    loaded and the round is rebuilt from the log. Give it back with :func:`writer_checkin`
    once the change is committed.
    """
    match = locked.match
    with _cache_lock:
        cached = _cache.pop(match.pk, None)
        if match.status != Match.Status.PLAYING:
            _changed_elsewhere.pop(match.pk, None)
        elif cached is not None and cached[0] != match.version:
            _changed_elsewhere[match.pk] = 0
        elif cached is not None and match.pk in _changed_elsewhere:
            _changed_elsewhere[match.pk] += 1
            if _changed_elsewhere[match.pk] >= SETTLED_AFTER:
                del _changed_elsewhere[match.pk]
    entry = None
    if cached is not None and cached[0] == match.version:
        entry = cached[1]
    elif cached is not None and cached[0] < match.version:
        tail = locked.tail if locked.tail is not None and locked.tail.since == cached[0] else None
        entry = _caught_up(match, cached, tail)
    if entry is not None:
        for player in entry.players:
            player.match = match
        if entry.hand is not None:
            entry.hand.match = match
        entry.match = match
        return entry
    players, hand = _rows_load(match)
    rnd = round_rebuild(match, hand) if hand is not None else None
    return WriterState(players, hand, rnd, match)


def writer_take(match_id: int) -> WriterState | None:
    """Take this process's entry of a match out of the cache for a change made without
    the row lock, or ``None`` when there is no such entry: none cached, one left by a read
    (it has no match row), or a match that another process has changed lately.

    The change's write then checks that the row is still the entry's
    (:func:`apps.matches.rows.change_write_if`); give the entry back unchanged with
    :func:`writer_checkin` if the change is refused, or drop it with
    :func:`writer_changed_elsewhere` if the row moved on.
    """
    with _cache_lock:
        if match_id in _changed_elsewhere:
            return None
        cached = _cache.get(match_id)
        if (cached is None or cached[1].match is None or cached[1].rnd is None
                or cached[1].match.version != cached[0]):
            return None
        return _cache.pop(match_id)[1]


def writer_changed_elsewhere(match_id: int) -> None:
    """Note that another process changed the match since this process's entry (whose state
    a change made from it has since altered: it is not cached again). The next lock reads
    the tail, and the match's moves take the lock until it has gone quiet."""
    with _cache_lock:
        _cache.pop(match_id, None)
        _changed_elsewhere[match_id] = 0


def _caught_up(
    match: Match, cached: tuple[int, WriterState], tail: LogTail | None,
) -> WriterState | None:
    """The cached entry brought to ``match.version`` by the log tail (``tail``, or read
    now), or ``None`` when the tail leaves the entry's hand (load everything instead)."""
    since, entry = cached
    hand, rnd = entry.hand, entry.rnd
    if hand is None or rnd is None or match.version - since > TAIL_LIMIT:
        return None
    if tail is None or (tail.stays_in(hand.pk) and not tail.reaches(match.version)):
        # Locked without a tail (a timer), or the lock waited for another writer whose
        # entries the tail's snapshot (from before the wait) does not hold.
        tail = statements.log_tail(match.pk, since)
    if not (tail.stays_in(hand.pk) and tail.reaches(match.version)):
        return None
    try:
        for e in tail.entries:
            if e.kind == MatchEvent.Kind.ACTION:
                apply_recorded(rnd, Action.from_json(e.action))  # type: ignore[arg-type]
    except (IllegalActionError, RecordError):
        logger.exception("match %s: the log tail does not apply to the cached round", match.pk)
        return None
    for player in entry.players:
        player.consecutive_timeouts, player.auto_play = tail.seats[player.seat]
    if tail.ends_hand():  # its settlement, record and end time were written
        entry.hand = Hand.objects.get(pk=hand.pk)
    return entry


def _rows_load(match: Match) -> tuple[list[MatchPlayer], Hand | None]:
    """The match's players (with their users) and current hand, from the database."""
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    return players, match.hands.order_by("-number").first()


def writer_checkin(match_id: int, version: int, rows: WriterState) -> None:
    """Cache ``rows`` as the match's state at ``version`` (call after commit)."""
    if rows.rnd is None:
        return
    with _cache_lock:
        current = _cache.get(match_id)
        if current is None or current[0] < version:
            _cache[match_id] = (version, rows)


def round_read(match: Match, hand: Hand, players: list[MatchPlayer] | None = None) -> Round:
    """The hand's round at ``match.version`` for reading only; never mutate the result.

    Given the match's ``players`` (with their users), it must run between the match's
    moves (``broadcast.call_in_order``): a round rebuilt here is then cached with
    ``players`` and ``hand`` as the writer's entry at that version. The seats of a table
    that connect together (a match start, every player reconnecting to a restarted
    process) then rebuild it once, and the next move not at all. Players read after a
    later change may sit in an entry tagged with an earlier version; a writer that catches
    such an entry up takes the seats' columns from its own read, and a later hand row
    comes with a deal or a hand's end in the tail, which loads everything again.
    """
    with _cache_lock:
        cached = _cache.get(match.pk)
    if cached is not None and cached[0] == match.version and cached[1].rnd is not None:
        return cached[1].rnd
    rnd = round_rebuild(match, hand, upto=match.version)
    if players is not None and match.status == Match.Status.PLAYING:
        writer_checkin(match.pk, match.version, WriterState(players, hand, rnd))
    return rnd


def table_read(match: Match) -> WriterState:
    """The players (with their users), current hand and round at ``match.version``, for
    reading only (a snapshot, a catch-up); never mutate the result.

    Like :func:`round_read`, it must run between the match's moves
    (``broadcast.call_in_order``). This process's entry at that version answers without a
    query, which is the usual case: the four seats of a table reconnecting together, or a
    connection catching up, follow moves this process made. Otherwise the rows are loaded
    and the round is rebuilt and cached by :func:`round_read`.
    """
    with _cache_lock:
        cached = _cache.get(match.pk)
    if cached is not None and cached[0] == match.version:
        return cached[1]
    players, hand = _rows_load(match)
    rnd = round_read(match, hand, players) if hand is not None else None
    return WriterState(players, hand, rnd)


def round_forget(match_id: int) -> None:
    """Drop this process's cached state of a match (tests; a fix made in this process).

    Only this process's: another process's entry is checked against the match row alone,
    every column of it (a change from the cache) or its version (the locked path). A seat's
    or hand's row changed by hand, without a new version, is not seen there until that
    entry is rebuilt: stop play at the table (or restart the servers) before such a fix."""
    with _cache_lock:
        _cache.pop(match_id, None)
        _changed_elsewhere.pop(match_id, None)
