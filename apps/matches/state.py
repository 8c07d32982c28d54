"""A match's live state (its row, players, current hand, its :class:`~majiang.Round`),
rebuilt from the log, with a small per-process cache checked against the match row's version.

A hand's state is a pure function of its seed and its logged actions, and
:attr:`Match.version` is the sequence number of the last log entry: every change to a
playing match bumps it. So a cached entry tagged with the row's version is exactly the state
at that row. An entry of an older version of the same hand (another process, such as a
worker's timer, changed the match since) is brought forward by applying only the log
entries after it, as a replay would apply them; any other entry is thrown away and the
state is rebuilt from the log (a few milliseconds for a whole hand). A writer reads the
row under its lock first (:meth:`apps.matches.change.MatchChange.open`), so the entry it
takes is the row's.

An entry is *checked out* (taken out of the cache) by whoever uses it, writer or reader,
and checked in again after a commit or a read: a round is never shared between two threads,
and a failed transaction never leaves a half-applied round behind.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from majiang import Action, Round, get_variant
from majiang.record import apply_recorded

from .models import Hand, Match, MatchEvent, MatchPlayer

CACHE_SIZE = 2_000
"""Matches whose state one process keeps; the least recently used is dropped first."""


@dataclass(slots=True)
class TableState:
    """A match's row, players (with their users), current hand and round at one version."""

    match: Match
    players: list[MatchPlayer]
    hand: Hand | None
    rnd: Round | None


_cache: OrderedDict[int, tuple[int, TableState]] = OrderedDict()
_cache_lock = threading.Lock()


def round_rebuild(match: Match, hand: Hand, *, upto: int | None = None) -> Round:
    """Deal ``hand`` from its wall seed (its seed and contributions) and apply its logged
    actions (with seq ≤ ``upto``), as records are read (:func:`majiang.record.apply_recorded`),
    and the ends of the table's pauses (:func:`apps.matches.lifecycle.window_release`), as
    live play paces them."""
    rnd, _ = Round.deal(
        get_variant(match.variant), match.settings, dealer=hand.dealer, streak=hand.streak,
        seed=hand.wall_seed, paced=True,
    )
    return round_follow(rnd, match, hand, after=0, upto=upto)


def round_follow(rnd: Round, match: Match, hand: Hand, *, after: int,
                 upto: int | None = None) -> Round:
    """Apply to ``rnd``, the hand's round at version ``after``, the hand's logged actions
    and pause ends after it (with seq ≤ ``upto``), as :func:`round_rebuild` does."""
    entries = MatchEvent.objects.filter(
        match=match, hand=hand, kind__in=(MatchEvent.Kind.ACTION, MatchEvent.Kind.TABLE),
        seq__gt=after,
    )
    if upto is not None:
        entries = entries.filter(seq__lte=upto)
    for payload in entries.order_by("seq").values_list("payload", flat=True):
        if "action" in payload:
            apply_recorded(rnd, Action.from_json(payload["action"]))
        elif payload.get("release"):
            rnd.release()
    return rnd


def state_checkout(match: Match) -> TableState:
    """The state of ``match`` at ``match.version``, for this caller's use alone.

    The cached entry when it is tagged with that version (no query); else loaded, and the
    round brought forward from an older cached entry of the same hand or rebuilt from the
    log. Give it back with :func:`state_checkin`.
    """
    with _cache_lock:
        cached = _cache.pop(match.pk, None)
    if cached is not None and cached[0] == match.version:
        state = cached[1]
        state.match = match
        for player in state.players:
            player.match = match
        if state.hand is not None:
            state.hand.match = match
        return state
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    hand = match.hands.order_by("-number").first()
    if hand is None:
        return TableState(match, players, None, None)
    older = _older_round(cached, match, hand)
    if older is not None:
        version, rnd = older
        return TableState(match, players, hand,
                          round_follow(rnd, match, hand, after=version, upto=match.version))
    return TableState(match, players, hand, round_rebuild(match, hand, upto=match.version))


def _older_round(cached: tuple[int, TableState] | None, match: Match,
                 hand: Hand) -> tuple[int, Round] | None:
    """The cached round and its version when it is an older version of ``hand``. A hand's
    wall is fixed when it is dealt (``lifecycle.hand_deal``): the same row, the same deal."""
    if cached is None or cached[0] >= match.version:
        return None
    version, older = cached
    if older.hand is None or older.hand.pk != hand.pk or older.rnd is None:
        return None
    return version, older.rnd


def state_checkin(state: TableState) -> None:
    """Cache ``state`` as its match's state at ``state.match.version`` (after a commit or
    a read); a finished match is not kept."""
    match = state.match
    if match.status != Match.Status.PLAYING:
        return
    with _cache_lock:
        current = _cache.get(match.pk)
        if current is not None and current[0] > match.version:
            return
        _cache[match.pk] = (match.version, state)
        _cache.move_to_end(match.pk)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def state_forget_all() -> None:
    """Drop every cached state of this process (tests: a rolled-back database hands out
    the same match IDs and versions again)."""
    with _cache_lock:
        _cache.clear()
