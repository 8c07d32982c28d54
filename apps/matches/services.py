"""Writes of live play. Every change to a match goes through one of these, serialised by
``select_for_update`` on the match row (``BEGIN IMMEDIATE`` on SQLite), or, for a player's
move made from this process's cache, by a write that checks the row is still the cached one
(:meth:`MatchChange.from_cache`), or, for a timer that fired early and only re-arms, by a
write that checks the row is still the one it read (:func:`_rearm_early`).

- :func:`match_start`: a room's seats are all ready → create the match, deal hand 1.
- :func:`match_act`: a client message from a user (action, ready, 托管 off, dissolve vote).
- :func:`match_timeout_fire`: the match's live Celery timer fired.
- :func:`match_timer_rearm`: arm a fresh timer (recovery of a lost one).

Each checks, applies and appends to the log in one transaction; broadcasting and the next
timer are registered with ``transaction.on_commit``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef

from apps.clubs.models import Room
from majiang import IllegalActionError

from . import lifecycle, rows, state
from .change import (
    AUTO_PLAY_DELAY,
    TIMER_TOLERANCE,
    MatchChange,
    NeedsLockError,
    timer_due_of,
    timer_write,
)
from .frames import epoch_ms
from .models import Match, MatchEvent, MatchPlayer
from .protocol import ClientMessage, MatchError, parse_client_message, table_event

DISSOLVE_VOTE_SECONDS = 60


def match_start(*, room: Room) -> Match:
    """Start the match of a room whose seats are all filled and ready; deal its first hand.

    Runs inside the caller's transaction (the clubs app's ``room_all_ready`` signal).
    """
    with transaction.atomic():
        change = lifecycle.match_create(room=room)
        lifecycle.hand_deal(change)
        change.save()
    return change.match


def match_act(*, match_id: int, user_id: int, payload: Any) -> int:
    """Handle one client message from user ``user_id``; return the match version afterwards.

    Raises :class:`~apps.matches.protocol.MatchError` (``malformed``, ``not_seated``,
    ``stale_version``, a rules code such as ``not_your_turn`` ...) with nothing changed.
    """
    message = parse_client_message(payload)
    if message.is_action:
        version = _act_from_cache(match_id, user_id, message)
        if version is not None:
            return version
    with transaction.atomic():
        change = MatchChange.open(match_id)
        try:
            _dispatch(change, user_id, message)
        except MatchError:
            _keep_cached_round(change)
            raise
        change.save()
    return change.match.version


def _act_from_cache(match_id: int, user_id: int, message: ClientMessage) -> int | None:
    """Make a player's action from this process's cached state, without the row lock
    (:meth:`MatchChange.from_cache`); return the new version, or ``None`` when the action
    must be made on the locked path: no usable entry, a row that moved on, or a refusal
    (which the locked path gives, or not, from the row itself, since the cache may be
    behind)."""
    change = MatchChange.from_cache(match_id)
    if change is None:
        return None
    try:
        with change.unlocked():
            _dispatch(change, user_id, message)
            change.save()
    except MatchError:
        _keep_cached_round(change)
        return None
    except NeedsLockError:
        state.writer_changed_elsewhere(match_id)
        return None
    return int(change.match.version)


def _keep_cached_round(change: MatchChange) -> None:
    """Put back a round that a refused message left unchanged."""
    if change.rnd is not None and not change.entries:
        state.writer_checkin(change.match.pk, change.match.version, change.rows())


def _dispatch(change: MatchChange, user_id: int, message: ClientMessage) -> None:
    match = change.match
    if match.status != Match.Status.PLAYING:
        raise MatchError("match_over")
    player = change.player_of(user_id)
    if player is None:
        raise MatchError("not_seated")
    if message.is_action:
        _player_action(change, player, message)
    elif message.type == "ready_next":
        _ready_next(change, player)
    elif message.type == "resume":
        _resume(change, player)
    elif message.type == "dissolve_propose":
        _dissolve_propose(change, player)
    else:
        _dissolve_vote(change, player, bool(message.fields["agree"]))


def _player_action(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    match = change.match
    version = message.version
    assert version is not None
    if version > match.version or version < match.decision_version:
        raise MatchError("stale_version")
    if match.stage != Match.Stage.HAND or change.rnd is None:
        raise MatchError("hand_over", "本局已结束")
    action = message.action_for(player.seat)
    try:
        lifecycle.action_apply(change, player, action, timeout=False)
    except IllegalActionError as exc:
        raise MatchError(exc.code, exc.message) from exc


def _ready_next(change: MatchChange, player: MatchPlayer) -> None:
    match = change.match
    if match.stage != Match.Stage.BETWEEN:
        raise MatchError("not_between_hands")
    if player.seat not in match.ready_seats:
        match.ready_seats = sorted([*match.ready_seats, player.seat])
        change.log(MatchEvent.Kind.TABLE, [table_event("ready_next", player.seat)])
    if len(match.ready_seats) == len(change.players):
        lifecycle.hand_deal(change)


def _resume(change: MatchChange, player: MatchPlayer) -> None:
    if not player.auto_play:
        raise MatchError("not_auto_play")
    player.auto_play, player.consecutive_timeouts = False, 0
    change.log(MatchEvent.Kind.TABLE, [table_event("auto_play", player.seat, on=False)])


def _dissolve_propose(change: MatchChange, player: MatchPlayer) -> None:
    match = change.match
    if match.dissolve_vote:
        raise MatchError("vote_in_progress")
    deadline = change.now + timedelta(seconds=DISSOLVE_VOTE_SECONDS)
    match.dissolve_vote = {
        "proposer": player.seat,
        "votes": {str(player.seat): True},
        "deadline": epoch_ms(deadline),
    }
    change.log(
        MatchEvent.Kind.TABLE,
        [table_event("dissolve_proposed", player.seat, deadline=epoch_ms(deadline))],
    )


def _dissolve_vote(change: MatchChange, player: MatchPlayer, agree: bool) -> None:
    match = change.match
    vote = match.dissolve_vote
    if not vote:
        raise MatchError("no_vote")
    if str(player.seat) in vote["votes"]:
        raise MatchError("already_voted")
    vote = {**vote, "votes": {**vote["votes"], str(player.seat): agree}}
    events = [table_event("dissolve_vote", player.seat, agree=agree)]
    if not agree:
        match.dissolve_vote = None
        events.append(table_event("dissolve_failed", reason="refused"))
        change.log(MatchEvent.Kind.TABLE, events)
        return
    match.dissolve_vote = vote
    if len(vote["votes"]) < len(change.players):
        change.log(MatchEvent.Kind.TABLE, events)
        return
    events.append(table_event("dissolve_passed"))
    change.log(MatchEvent.Kind.TABLE, events)
    lifecycle.match_close(change, Match.Status.DISSOLVED)


def match_timeout_fire(*, match_id: int, token: int) -> bool:
    """Apply what is due when the match's live timer fires; return whether it acted.

    ``token`` is the timer's due moment (:func:`~apps.matches.change.timer_token`). A timer
    that is no longer the match's live one (superseded, already used, match over) does
    nothing. The usual fire is early, the players having acted in time: it only re-arms,
    from the match row alone (:func:`_rearm_early`). Otherwise, under the row lock, in
    order: an expired dissolve vote fails; seats in 托管 whose short delay has passed, and
    every pending seat once the deadline has passed, get the variant's timeout action;
    between hands, the next hand is dealt once the settlement delay has passed. Then the
    next timer is armed.
    """
    due = timer_due_of(token)
    if _rearm_early(match_id, due):
        return False
    with transaction.atomic():
        try:
            # A plain lock: this worker's cached entry (if any) is usually far behind;
            # the full path reads the tail it needs (writer_checkout).
            locked = rows.match_lock(match_id)
        except Match.DoesNotExist:
            return False
        match = locked.match
        if match.timer_due != due or match.status != Match.Status.PLAYING:
            return False
        change = MatchChange.of_locked(locked)
        match.timer_due = None  # used up: what follows arms the next one
        _expire_vote(change)
        if match.stage == Match.Stage.HAND:
            _timeout_pending_seats(change)
        elif _past(change, match.deadline):
            lifecycle.hand_deal(change)
        if not change.entries:
            _keep_cached_round(change)
            change.save_timer_only()
            return False
        change.save()
    return True


def match_timer_rearm(*, match_id: int) -> bool:
    """Arm a fresh timer for the match's next due moment, superseding the live one (which
    may have been lost with a worker or with Redis). Return whether one was armed."""
    with transaction.atomic():
        change = MatchChange.open(match_id)
        _keep_cached_round(change)
        if change.match.status != Match.Status.PLAYING:
            return False
        change.match.timer_due = None
        change.save_timer_only()
        return change.match.timer_due is not None


def _past(change: MatchChange, moment: Any) -> bool:
    return moment is not None and change.now + TIMER_TOLERANCE >= moment


def _rearm_early(match_id: int, due: datetime) -> bool:
    """The usual fire of a live timer: early, the players having acted in time. Return
    whether that was all: the timer is no longer live, or nothing is due (deadline,
    dissolve vote) and no seat is in 托管 during a hand (its short delay needs the round),
    and the timer was re-armed for the next due moment. ``False`` leaves the fire to the
    locked path.

    Without the row lock, which would hold up the table's next move while this worker
    runs: a read, then a write that re-arms only if the row is still the one read (same
    version, same live timer, still playing). Every change of what decides the next due
    moment bumps the version. A change committed in between makes the write miss: the row
    is read again, once, before the locked path takes over.
    """
    auto_play = MatchPlayer.objects.filter(match=OuterRef("pk"), auto_play=True)
    for _ in range(2):
        match = (Match.objects.filter(pk=match_id)
                 .only("version", "status", "stage", "deadline", "dissolve_vote", "timer_due")
                 .annotate(auto_play=Exists(auto_play)).first())
        if match is None or match.timer_due != due or match.status != Match.Status.PLAYING:
            return True
        change = MatchChange(match, [], None, None)
        if _past(change, match.deadline) or _vote_expired(change):
            return False
        if match.stage == Match.Stage.HAND and match.auto_play:
            return False
        next_due = change.timer_rule().due
        if next_due is None:
            return True
        if timer_write(match_id, next_due, version=match.version, timer_due=due,
                       status=Match.Status.PLAYING):
            return True
    return False


def _vote_expired(change: MatchChange) -> bool:
    vote = change.match.dissolve_vote
    if not vote:
        return False
    return change.now + TIMER_TOLERANCE >= timer_due_of(int(vote["deadline"]))


def _expire_vote(change: MatchChange) -> None:
    if _vote_expired(change):
        change.match.dissolve_vote = None
        change.log(MatchEvent.Kind.TABLE, [table_event("dissolve_failed", reason="expired")])


def _timeout_pending_seats(change: MatchChange) -> None:
    rnd = change.rnd
    assert rnd is not None
    deadline_passed = _past(change, change.match.deadline)
    auto_due = _past(change, change.match.changed_at + AUTO_PLAY_DELAY)
    players = {p.seat: p for p in change.players}
    for seat in rnd.pending():
        if change.new_decision:
            return  # the decision point moved on: its seats get a fresh timer
        player = players[seat]
        if not (deadline_passed or (player.auto_play and auto_due)):
            continue
        if seat not in rnd.pending():
            continue
        action = rnd.timeout_action(seat)
        if action is not None:
            lifecycle.action_apply(change, player, action, timeout=True)
