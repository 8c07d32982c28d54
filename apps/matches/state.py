"""A match's writer state (players, current hand, its :class:`~majiang.Round`), with a
verified per-process cache.

A hand's state is a pure function of its seed and its logged actions. Each process keeps at
most one entry per match, tagged with the match version it reflects: the built round, and
for writers also the match's :class:`MatchPlayer` rows and current :class:`Hand` row. An
entry is used only when its tag equals the version read from the (locked) match row, which
is the seq of the last log entry; otherwise everything is loaded again and the round is
rebuilt from the log.

This is sound because those rows of a playing match are written only inside a
:class:`~apps.matches.change.MatchChange`, and every such change bumps the version.

Writers *check out* the cached entry (removing it, so a failed transaction can never leave
a half-applied round or row behind) and *check in* the new one after commit.

When the players of a table are connected to different processes (or a Celery timer acts),
consecutive changes of a match are made by different processes, and each would find its own
entry one version behind. A process that finds that a match was changed elsewhere marks it
*shared*: from then on it also publishes its entry to the Django cache (Redis) after each
change, and looks there before rebuilding. The entry is verified against the locked row's
version in the same way, so a stale or missing copy only costs the rebuild. A table served
by one process never touches the cache.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from django.core.cache import cache
from redis.exceptions import RedisError

from majiang import Action, Round, get_variant
from majiang.record import apply_recorded

from .models import Hand, Match, MatchEvent, MatchPlayer


@dataclass(slots=True)
class WriterState:
    """What a writer needs besides the locked match row, as of one match version."""

    players: list[MatchPlayer]
    hand: Hand | None
    rnd: Round | None


logger = logging.getLogger(__name__)

_cache: dict[int, tuple[int, WriterState]] = {}
_cache_lock = threading.Lock()
_shared: set[int] = set()
"""Matches this process has seen changed by another process."""
SHARED_SECONDS = 3600
"""How long a published entry stays in the shared cache."""


def _shared_key(match_id: int) -> str:
    return f"matches:writer:{match_id}"


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


def writer_checkout(match: Match) -> WriterState:
    """The players, current hand and round at ``match.version``, for a writer holding the
    match row lock.

    Takes the cached entry out of the cache. When its version matches, its rows are used
    (re-attached to ``match``) without a query. Otherwise, for a shared match, the copy in
    the shared cache is tried the same way; failing that the rows are loaded and the round
    is rebuilt from the log. Give it back with :func:`writer_checkin` once the change is
    committed.
    """
    with _cache_lock:
        cached = _cache.pop(match.pk, None)
        if cached is not None and cached[0] != match.version:
            _shared.add(match.pk)  # another process changed it since
        shared = match.pk in _shared
    if (cached is None or cached[0] != match.version) and shared:
        cached = _shared_get(match.pk)
    if cached is not None and cached[0] == match.version:
        rows = cached[1]
        for player in rows.players:
            player.match = match
        if rows.hand is not None:
            rows.hand.match = match
        return rows
    players, hand = _rows_load(match)
    rnd = round_rebuild(match, hand) if hand is not None else None
    return WriterState(players, hand, rnd)


def _rows_load(match: Match) -> tuple[list[MatchPlayer], Hand | None]:
    """The match's players (with their users) and current hand, from the database."""
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    return players, match.hands.order_by("-number").first()


def writer_checkin(match_id: int, version: int, rows: WriterState, *, changed: bool = True) -> None:
    """Cache ``rows`` as the match's state at ``version`` (call after commit); a shared
    match's entry is also published, unless nothing ``changed``."""
    if rows.rnd is None:
        return
    with _cache_lock:
        current = _cache.get(match_id)
        if current is None or current[0] < version:
            _cache[match_id] = (version, rows)
        shared = match_id in _shared
    if shared and changed:
        try:
            cache.set(_shared_key(match_id), (version, rows), SHARED_SECONDS)
        except RedisError:
            logger.warning("match %s: could not publish the writer state", match_id)


def _shared_get(match_id: int) -> tuple[int, WriterState] | None:
    try:
        entry: tuple[int, WriterState] | None = cache.get(_shared_key(match_id))
    except RedisError:
        logger.warning("match %s: could not read the shared writer state", match_id)
        return None
    return entry


def round_read(match: Match, hand: Hand, players: list[MatchPlayer] | None = None) -> Round:
    """The hand's round at ``match.version`` for reading only; never mutate the result.

    Given the match's ``players`` (with their users), it must run between the match's
    moves (``broadcast.call_in_order``): a round rebuilt here is then cached with
    ``players`` and ``hand`` as the writer's entry at that version. The seats of a table
    that connect together (a match start, every player reconnecting to a restarted
    process) then rebuild it once, and the next move not at all. Rows read after a later
    change only ever sit in an entry whose version the locked row no longer has, so they
    are never used.
    """
    with _cache_lock:
        cached = _cache.get(match.pk)
    if cached is not None and cached[0] == match.version and cached[1].rnd is not None:
        return cached[1].rnd
    rnd = round_rebuild(match, hand, upto=match.version)
    if players is not None and match.status == Match.Status.PLAYING:
        writer_checkin(match.pk, match.version, WriterState(players, hand, rnd), changed=False)
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
    """Drop the cached state of a match, here and in the shared cache (after its rows were
    changed outside a :class:`~apps.matches.change.MatchChange`, e.g. by an admin fix)."""
    with _cache_lock:
        _cache.pop(match_id, None)
        _shared.discard(match_id)
    try:
        cache.delete(_shared_key(match_id))
    except RedisError:
        logger.warning("match %s: could not drop the shared writer state", match_id)
