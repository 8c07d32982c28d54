"""Writes of live play. Every change to a match goes through one of these, serialised by
the match row (:mod:`apps.matches.change`: read under ``select_for_update``; ``BEGIN
IMMEDIATE`` on SQLite).

- :func:`match_start`: a room's seats are all ready → create the match, commit to hand 1
  (dealt once every seat contributed to its wall, or after a few seconds).
- :func:`match_act`: a client message from a user (action, ready, a contribution to the
  next wall, 托管 on or off, dissolve vote).
- :func:`match_timers_fire`: act on every match whose next due moment has passed (the
  sweep that Celery beat runs every second).
- :func:`match_dissolve`: end a match at once, as a passed dissolve vote would (admin).
- :func:`match_presence_note`: every seat went offline, or one came back (the consumers).

Each checks, applies and appends to the log in one transaction; the broadcast is
registered with ``transaction.on_commit``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from apps.clubs.models import Room
from majiang import IllegalActionError

from . import computer, lifecycle, pacing, pause, timers
from .change import MatchChange, change_run, moment_of
from .frames import epoch_ms, view_version
from .models import Match, MatchEvent, MatchPlayer
from .pacing import DISSOLVE_VOTE_SECONDS, auto_play_delay
from .protocol import (
    ACTION_TYPES,
    ClientMessage,
    MatchError,
    parse_client_message,
    table_event,
)


def match_start(*, room: Room) -> Match:
    """Start the match of a room whose seats are all filled and ready; its first hand is
    dealt once every seat has contributed to the wall, or when the wait is over (the sweep).

    Runs inside the caller's transaction (the clubs app's service that readied the last
    seat).
    """
    with transaction.atomic():
        change = lifecycle.match_create(room=room)
        change.save()
    return change.match


def match_act(*, match_id: int, user_id: int, payload: Any) -> int:
    """Handle one client message from user ``user_id``; return the user's own version
    (:mod:`apps.matches.frames`) afterwards.

    Raises :class:`~apps.matches.protocol.MatchError` (``malformed``, ``not_seated``,
    ``stale_version``, a rules code such as ``not_your_turn`` ...) with nothing changed.
    """
    message = parse_client_message(payload)
    change = change_run(match_id, lambda change: _dispatch(change, user_id, message))
    player = change.player_of(user_id)
    assert player is not None  # a message from anyone else is refused
    return view_version(change.match.views, player.seat)


def _dispatch(change: MatchChange, user_id: int, message: ClientMessage) -> None:
    match = change.match
    if match.status != Match.Status.PLAYING:
        raise MatchError("match_over")
    player = change.player_of(user_id)
    if player is None:
        raise MatchError("not_seated")
    _HANDLERS[message.type](change, player, message)


def _player_action(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    match = change.match
    version = message.version
    assert version is not None
    seat = player.seat
    if version > view_version(match.views, seat) or version < view_version(
            match.decision_views, seat):
        raise MatchError("stale_version")
    if match.stage != Match.Stage.HAND or change.rnd is None:
        raise MatchError("hand_over")
    action = message.action_for(player.seat)
    try:
        lifecycle.action_apply(change, player, action, timeout=False)
    except IllegalActionError as exc:
        raise MatchError.from_rules(exc) from exc


def _ready_next(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    match = change.match
    if match.stage != Match.Stage.BETWEEN:
        raise MatchError("not_between_hands")
    if player.seat in match.ready_seats:
        raise MatchError("already_ready")  # a seat in 托管 is ready already
    match.ready_seats = sorted([*match.ready_seats, player.seat])
    change.log(MatchEvent.Kind.TABLE, [table_event("ready_next", player.seat)])
    _deal_when_all_ready(change)


def _deal_when_all_ready(change: MatchChange) -> None:
    if len(change.match.ready_seats) == len(change.players):
        lifecycle.hand_deal(change)


def _contribute(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    """Take a seat's random value for the next hand's wall: once per seat, only after the
    hand's commitment is out and before it is dealt. Logged (and shown to all: without the
    secret seed a value tells nothing about the wall). Before the first hand it also makes
    the seat ready (:func:`apps.matches.lifecycle.match_create`)."""
    number, value = int(message.fields["hand"]), str(message.fields["value"])
    match = change.match
    upcoming = match.next_hand
    dealt = match.hands_played + (match.stage == Match.Stage.HAND)
    if number <= dealt:
        raise MatchError("contribution_late")
    if upcoming is None or number != upcoming["number"]:
        raise MatchError("not_committed")
    contributions = upcoming["contributions"]
    if any(c["seat"] == player.seat for c in contributions):
        raise MatchError("already_contributed")
    entry = {"seat": player.seat, "value": value}
    match.next_hand = {
        **upcoming, "contributions": sorted([*contributions, entry], key=lambda c: c["seat"]),
    }
    change.log(MatchEvent.Kind.TABLE,
               [table_event("contributed", player.seat, hand=number, value=value)])
    if number == 1 and player.seat not in match.ready_seats:
        match.ready_seats = sorted([*match.ready_seats, player.seat])
        _deal_when_all_ready(change)


def _resume(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    if not player.auto_play:
        raise MatchError("not_auto_play")
    player.auto_play, player.consecutive_timeouts = False, 0
    change.log(MatchEvent.Kind.TABLE, [table_event("auto_play", player.seat, on=False)])


def _auto_play(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    """托管 by choice ("I'll answer the door"): the seat plays the advisor's choice after
    the short 托管 delay until the player acts or sends ``resume``.

    Refused while a claim, rob or 报叫 window is open (the phase is public, so the refusal
    tells nothing): switching 托管 there would play the seat's private decision at once,
    which tells the table it had one (H1); the page asks again once the window closes.
    Between hands a seat in 托管 is ready (as at a hand's end), which may deal the next.
    """
    match = change.match
    if player.auto_play:
        raise MatchError("already_auto_play")
    rnd = change.rnd
    if match.stage == Match.Stage.HAND and rnd is not None and rnd.window is not None:
        raise MatchError("auto_play_in_window")
    player.auto_play, player.consecutive_timeouts = True, 0
    change.log(MatchEvent.Kind.TABLE, [table_event("auto_play", player.seat, on=True)])
    dealt = match.hands_played > 0  # before hand 1 a seat is ready once it contributed
    if match.stage == Match.Stage.BETWEEN and dealt and player.seat not in match.ready_seats:
        match.ready_seats = sorted([*match.ready_seats, player.seat])
        _deal_when_all_ready(change)


def _dissolve_propose(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    match = change.match
    if match.dissolve_vote:
        raise MatchError("vote_in_progress")
    deadline = change.now + timedelta(seconds=DISSOLVE_VOTE_SECONDS)
    votes = {**computer.computer_votes(change), str(player.seat): True}
    match.dissolve_vote = {
        "proposer": player.seat,
        "votes": votes,
        "deadline": epoch_ms(deadline),
    }
    proposed = table_event("dissolve_proposed", player.seat, deadline=epoch_ms(deadline))
    change.log(MatchEvent.Kind.TABLE, [proposed, *pause.clock_follow(change)])
    if len(votes) == len(change.players):  # a lone player among computer seats
        change.log(MatchEvent.Kind.TABLE, [table_event("dissolve_passed")])
        lifecycle.match_close(change, Match.Status.DISSOLVED)


def _dissolve_vote(change: MatchChange, player: MatchPlayer, message: ClientMessage) -> None:
    agree = bool(message.fields["agree"])
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
        events.append(table_event("dissolve_failed", player.seat, reason="refused"))
        change.log(MatchEvent.Kind.TABLE, events + pause.clock_follow(change))
        return
    match.dissolve_vote = vote
    if len(vote["votes"]) < len(change.players):
        change.log(MatchEvent.Kind.TABLE, events)
        return
    events.append(table_event("dissolve_passed"))
    change.log(MatchEvent.Kind.TABLE, events)
    lifecycle.match_close(change, Match.Status.DISSOLVED)


_HANDLERS: dict[str, Callable[[MatchChange, MatchPlayer, ClientMessage], None]] = {
    **dict.fromkeys(ACTION_TYPES, _player_action),
    "ready_next": _ready_next,
    "contribute": _contribute,
    "resume": _resume,
    "auto_play": _auto_play,
    "dissolve_propose": _dissolve_propose,
    "dissolve_vote": _dissolve_vote,
}
"""Each client message type's change (``parse_client_message`` knows no other type)."""


def match_timers_fire(*, limit: int = 500) -> int:
    """Act on every match in play whose next due moment has passed; return how many acted.

    Run every second by Celery beat (:mod:`apps.matches.tasks`). Each match is handled in
    its own transaction under its row lock, taken with ``skip_locked``: a match whose row a
    move holds is left to that move, which sets the next due moment itself, and several
    workers sweeping at once each take different matches.
    """
    due = matches_due(at=pacing.now(), limit=limit)
    return sum(match_timeout_fire(match_id=match_id) for match_id in list(due))


def matches_due(*, at: datetime, limit: int) -> QuerySet[Match, int]:
    """The IDs of the matches in play whose next due moment is at or before ``at``, the
    earliest first. Found through the partial index on the matches in play (one per open
    table) and filtered by ``timer_due``, which no index names: it changes on almost every
    move, and an index on it would stop PostgreSQL from updating the row in place (HOT;
    migration ``0012_hot_updates``)."""
    return (Match.objects.filter(status=Match.Status.PLAYING, timer_due__lte=at)
            .order_by("timer_due").values_list("pk", flat=True)[:limit])


def match_timers_send(*, limit: int = 500) -> int:
    """Send the timers of the matches in play whose next due moment has come near since
    the last sweep: between one sweep and two sweeps away (:data:`pacing.TIMER_LEAD_SWEEPS`);
    return how many. Run by every sweep: a change sends only a near moment's timer, so a
    turn's deadline gets its timer here, a second or two before it falls due. A moment
    nearer than one sweep was sent by its change or by the sweep before; if beat ran so late
    that it skipped one, the sweep acts on it once it has passed, as on a lost timer."""
    now = pacing.now()
    soon = (Match.objects.filter(status=Match.Status.PLAYING,
                                 timer_due__gt=now + pacing.sweep_interval(),
                                 timer_due__lte=now + pacing.timer_lead())
            .order_by("timer_due").values_list("pk", "timer_due")[:limit])
    for match_id, due in soon:
        timers.timer_set(match_id, due)  # type: ignore[arg-type]  # timer_due__gt: never None
    return len(soon)


def match_timer_fire(*, match_id: int, due: datetime) -> None:
    """Run a match's timer for ``due`` (:mod:`apps.matches.timers`): act if the match's due
    moment has come, waiting for a move that holds the row (the sweep would skip it). A
    timer the worker's clock ran a little early is sent again for its moment; a stale one
    (the match's due moment has moved on) does nothing."""
    current = Match.objects.filter(pk=match_id).values_list("timer_due", flat=True).first()
    if current is None or current > pacing.now():  # nothing due: no lock, no rebuild
        if current == due:
            timers.timer_set(match_id, due)
        return
    match_timeout_fire(match_id=match_id, wait=True)


def match_timeout_fire(*, match_id: int, wait: bool = False) -> bool:
    """Apply what is due at one match, if its due moment has passed; return whether it
    acted. In order: a table offline long enough is dissolved, or its clock pauses; an
    expired dissolve vote fails; unless the clock is paused, seats in 托管 whose short
    delay has passed, and every pending seat once the deadline has passed, get the
    variant's timeout action; between hands, the next hand is dealt once the settlement
    delay has passed. A row another transaction holds is skipped unless ``wait``."""
    with transaction.atomic():
        change = MatchChange.open(match_id, skip_locked=not wait)
        if change is None:
            return False
        match = change.match
        if (match.status != Match.Status.PLAYING or match.timer_due is None
                or match.timer_due > change.now):
            change.release()
            return False
        if _offline_step(change):
            change.save()
            return True
        _expire_vote(change)
        if match.stage == Match.Stage.HAND:
            _timeout_pending_seats(change)
        elif _past(change, match.deadline):
            lifecycle.hand_deal(change)
        change.save()
    return bool(change.entries)


def match_dissolve(*, match_id: int, reason: str) -> bool:
    """End a match in play at once, as a passed dissolve vote would: its finished hands
    stay booked, the hand in progress is dropped. ``reason`` is logged (``"admin"``).
    Return whether a match in play was dissolved."""
    with transaction.atomic():
        change = MatchChange.open(match_id)
        if change is None or change.match.status != Match.Status.PLAYING:
            return False
        change.log(MatchEvent.Kind.TABLE, [table_event("dissolve_forced", reason=reason)])
        lifecycle.match_close(change, Match.Status.DISSOLVED)
        change.save()
    return True


def match_presence_note(*, match_id: int, offline: bool) -> bool:
    """Every seat of a match in play went offline (``offline``), or one came back: record
    it on the row, so that the sweep pauses and later dissolves an abandoned table
    (:mod:`apps.matches.pause`). Return whether anything changed."""
    if not Match.objects.filter(pk=match_id, status=Match.Status.PLAYING,
                                offline_since__isnull=offline).exists():
        return False
    with transaction.atomic():
        change = MatchChange.open(match_id)
        if change is None:
            return False
        changed = (change.match.status == Match.Status.PLAYING
                   and pause.offline_set(change, offline))
        change.save()
    return changed


def _offline_step(change: MatchChange) -> bool:
    """Notice an offline table, pause its clock, or dissolve it once it has been offline
    long enough (its finished hands kept); return whether it was dissolved."""
    pause.offline_check(change)
    dissolve_at = pacing.offline_dissolve_at(change.match)
    if dissolve_at is not None and change.now >= dissolve_at:
        change.log(MatchEvent.Kind.TABLE, [table_event("dissolve_forced", reason="offline")])
        lifecycle.match_close(change, Match.Status.DISSOLVED)
        return True
    events = pause.clock_follow(change)
    if events:
        change.log(MatchEvent.Kind.TABLE, events)
    return False


def _end_pause(change: MatchChange) -> None:
    """H3/H4: end the table's pause once it has lasted its time."""
    if _past(change, pacing.hold_until(change.match, change.rnd)):
        lifecycle.window_release(change)


def _past(change: MatchChange, moment: datetime | None) -> bool:
    return moment is not None and change.now >= moment


def _vote_expired(change: MatchChange) -> bool:
    vote = change.match.dissolve_vote
    return vote is not None and change.now >= moment_of(int(vote["deadline"]))


def _expire_vote(change: MatchChange) -> None:
    if _vote_expired(change):
        change.match.dissolve_vote = None
        failed = table_event("dissolve_failed", reason="expired")
        change.log(MatchEvent.Kind.TABLE, [failed, *pause.clock_follow(change)])


def _timeout_pending_seats(change: MatchChange) -> None:
    rnd = change.rnd
    assert rnd is not None
    if change.match.paused_left_ms is not None:
        return  # the clock stands still: nothing times out
    _end_pause(change)
    deadline_passed = _past(change, change.match.deadline)
    players = {p.seat: p for p in change.players}
    for seat in rnd.pending():
        if change.new_decision:
            return  # the decision point moved on: its seats get a fresh deadline
        player = players[seat]
        auto_due = player.auto_play and _past(
            change, change.match.changed_at + auto_play_delay(change.match, player)
        )
        if not (deadline_passed or auto_due):
            continue
        if seat not in rnd.pending():
            continue
        # 托管 and computer seats play the advisor's choice; a plain timeout, the rulings'
        # timeout action (D5, Z6).
        action = (computer.advised_action(change, player) if player.auto_play
                  else rnd.timeout_action(seat))
        if action is not None:
            lifecycle.action_apply(change, player, action, timeout=True)
