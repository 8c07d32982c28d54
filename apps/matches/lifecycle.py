"""The steps of a match, each inside a locked :class:`~apps.matches.change.MatchChange`.

Commit to the next hand's seed, deal a hand (its wall from that seed and the seats'
contributions), apply an action, close a hand (settlement,
seed reveal, ledger hook), close the match (totals, ledger hook, room closed). Only the
services in :mod:`apps.matches.services` call these.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import transaction

from apps.clubs.models import Room
from apps.clubs.services.tables import (
    room_hand_ended,
    room_match_ended,
    room_match_started,
)
from apps.ledgers.services import ledger_hand_post, ledger_match_post
from majiang import Action, Round, get_variant
from majiang.match import Match as RulesMatch
from majiang.record import record_of

from . import frames
from .change import MatchChange
from .models import Hand, Match, MatchEvent, MatchPlayer
from .pacing import FIRST_DEAL_SECONDS, NEXT_HAND_SECONDS, turn_seconds
from .protocol import table_event


def commitment_of(salt: str, seed: str) -> str:
    """The published commitment to a hand's seed: sha256 of salt + seed, in hex."""
    return hashlib.sha256((salt + seed).encode()).hexdigest()


def match_create(*, room: Room) -> MatchChange:
    """Create the match of a room whose seats are all ready, and its players; commit to
    the first hand's seed and wait (:data:`FIRST_DEAL_SECONDS` at most) for each seat's
    contribution to its wall, which also tells that the seat's page is here.

    The seats readied in the room before the commitment was out, so a 准备 there cannot
    stand for a contribution: until the first deal a seat is ready once it contributed
    (:func:`apps.matches.services.match_act`), a computer seat at once.
    """
    variant = get_variant(room.variant)
    seats = list(room.seats.select_related("user").order_by("seat"))
    opener = next((s.seat for s in seats if s.user_id == room.created_by_id), 0)
    rules = RulesMatch.start(variant, room.settings, seed=secrets.token_hex(16), opener=opener)
    match = Match.objects.create(
        room=room,
        club_id=room.club_id,
        variant=variant.id,
        settings=rules.settings,
        hands_total=rules.hands_total,
        dealer=rules.dealer,
        streak=rules.streak,
        totals=list(rules.totals),
        has_computers=any(s.user.is_computer for s in seats),
        has_bots=any(s.user.is_bot for s in seats),
        bots_allowed=room.club.bots_allowed,
        practice=room.practice,
        hints=room.hints,
        views=[0] * (len(seats) + 1),  # each seat's version, then spectators': none seen yet
        decision_views=[0] * (len(seats) + 1),
    )
    # A computer seat is always in automatic play (apps.matches.computer).
    players = [
        MatchPlayer.objects.create(match=match, seat=s.seat, user=s.user,
                                   computer=s.user.is_computer, auto_play=s.user.is_computer)
        for s in seats
    ]
    room_match_started(room_id=room.pk)
    change = MatchChange.new(match, players)
    match.stage = Match.Stage.BETWEEN
    match.ready_seats = [p.seat for p in players if p.computer]
    change.log(
        MatchEvent.Kind.TABLE,
        [table_event("match_start", hands_total=match.hands_total, dealer=match.dealer),
         _next_hand_commit(change)],
    )
    change.start_decision(FIRST_DEAL_SECONDS)
    room_id, match_id = room.pk, match.pk
    transaction.on_commit(
        lambda: frames.send_match_started(room_id, match_id), robust=True
    )
    return change


def _next_hand_commit(change: MatchChange) -> dict[str, Any]:
    """Choose the next hand's secret seed; the event that publishes its commitment.

    Published before any seat may contribute (with the match's start, or the previous
    hand's settlement), so the seed cannot depend on the contributions.
    """
    match = change.match
    seed, salt = secrets.token_hex(16), secrets.token_hex(16)
    number = match.hands_played + 1
    match.next_hand = {
        "number": number, "seed": seed, "salt": salt,
        "commitment": commitment_of(salt, seed), "contributions": [],
    }
    return table_event("commitment", hand=number, commitment=match.next_hand["commitment"])


def hand_deal(change: MatchChange) -> None:
    """Deal the committed next hand, its wall from the seed and the contributions so far
    (:func:`majiang.wall.wall_seed`); none are taken after this."""
    match = change.match
    upcoming = match.next_hand
    assert upcoming is not None and upcoming["number"] == match.hands_played + 1
    hand = Hand.objects.create(
        match=match,
        number=upcoming["number"],
        dealer=match.dealer,
        streak=match.streak,
        seed=upcoming["seed"],
        salt=upcoming["salt"],
        commitment=upcoming["commitment"],
        contributions=upcoming["contributions"],
    )
    rnd, events = Round.deal(
        get_variant(match.variant), match.settings, dealer=hand.dealer, streak=hand.streak,
        seed=hand.wall_seed, paced=True,
    )
    change.hand, change.rnd = hand, rnd
    match.stage = Match.Stage.HAND
    match.ready_seats, match.next_hand = [], None
    start = table_event(
        "hand_start", hand=hand.number, dealer=hand.dealer, streak=hand.streak,
        commitment=hand.commitment, contributions=hand.contributions,
    )
    change.log(MatchEvent.Kind.DEAL, [start, *(e.to_log() for e in events)])
    change.start_decision(turn_seconds(match))


def action_apply(
    change: MatchChange, player: MatchPlayer, action: Action, *, timeout: bool
) -> None:
    """Apply a seat's action (raises ``IllegalActionError`` with nothing changed).

    A player's own action clears its timeout count and ends 托管; a timeout counts, and
    ``auto_play_after`` consecutive ones put the seat into 托管. Inside a claim, rob or
    declaration window a seat's decision is its own business (H1): its timeout is told to
    that seat alone, and neither a timeout nor an action there switches 托管 (the count
    goes on privately, and the seat's next timeout on its own turn switches it on). A
    computer seat's moves change neither.
    """
    rnd = change.rnd
    assert rnd is not None
    window = rnd.window
    events = [e.to_log() for e in rnd.apply(action)]
    extra = _timeout_bookkeeping(change, player, timeout, private=window is not None)
    change.log(
        MatchEvent.Kind.ACTION, events + extra, seat=player.seat, action=action.to_json(),
        timeout=timeout,
    )
    _after_round_change(change, window, player.seat)


def _timeout_bookkeeping(
    change: MatchChange, player: MatchPlayer, timeout: bool, *, private: bool
) -> list[dict[str, Any]]:
    """Count a timeout or clear the count, and switch 托管; the table events it makes."""
    extra: list[dict[str, Any]] = []
    if player.computer:
        return extra  # a computer seat's move: neither a timeout nor an end of automatic play
    if timeout:
        event = table_event("timeout", player.seat)
        if private:
            event["audience"] = player.seat
        extra.append(event)
        if not player.auto_play:
            player.consecutive_timeouts += 1
            limit = int(change.match.settings.get("auto_play_after", 2))
            if not private and player.consecutive_timeouts >= limit:
                player.auto_play = True
                extra.append(table_event("auto_play", player.seat, on=True))
    else:
        player.consecutive_timeouts = 0
        if player.auto_play and not private:
            player.auto_play = False
            extra.append(table_event("auto_play", player.seat, on=False))
    return extra


def _after_round_change(change: MatchChange, window: object, seat: int | None) -> None:
    """Close the hand when it ended, else restart the clock when a new decision opened."""
    rnd = change.rnd
    assert rnd is not None
    if rnd.ended:
        hand_close(change)
    elif (rnd.window is None or rnd.window is not window) and (
        # Z20: a pending declaration (自贡 报杠) shares the declaring turn's clock.
        # Restarting it would tell the table that this seat holds a triplet to offer.
        seat not in rnd.pending_declarations
    ):
        change.start_decision(turn_seconds(change.match))


def window_release(change: MatchChange) -> None:
    """End the pause of the round's held window (H3, H4) and log it; the window closes
    now if every seat has decided. The log entry is replayed by
    :func:`apps.matches.state.round_rebuild`."""
    rnd = change.rnd
    assert rnd is not None and rnd.held
    window = rnd.window
    events = [e.to_log() for e in rnd.release()]
    change.log(MatchEvent.Kind.TABLE, events, release=True)
    _after_round_change(change, window, None)


def hand_close(change: MatchChange) -> None:
    """Settle an ended hand, reveal its seed, rotate the dealer; end the match if it is over."""
    match, hand, rnd = change.match, change.hand, change.rnd
    assert hand is not None and rnd is not None
    rules = RulesMatch(
        get_variant(match.variant), match.settings, match.dealer, match.streak,
        match.hands_played, list(match.totals),
    )
    rules.finish(rnd)
    settlement = rnd.settlement().to_json()
    match.totals, match.hands_played = rules.totals, rules.hands_played
    match.dealer, match.streak = rules.dealer, rules.streak
    hand.settlement, hand.record, hand.ended_at = settlement, record_of(rnd), change.now
    hand.save(update_fields=["settlement", "record", "ended_at"])
    change.log(
        MatchEvent.Kind.HAND_END,
        [
            _reveal(hand),
            table_event("settlement", hand=hand.number, settlement=settlement,
                        totals=list(match.totals)),
            *([] if rules.over else [_next_hand_commit(change)]),
        ],
    )
    if match.booked:
        ledger_hand_post(hand=hand, match=match,
                         seat_users={p.seat: p.user_id for p in change.players})
    room_hand_ended(club_id=match.club_id)
    if rules.over:
        match_close(change, Match.Status.FINISHED)
    else:
        match.stage = Match.Stage.BETWEEN
        match.ready_seats = [p.seat for p in change.players if p.auto_play]
        change.start_decision(NEXT_HAND_SECONDS)
        if len(match.ready_seats) == len(change.players):
            hand_deal(change)  # every seat is in 托管, so ready: no one to wait for


def _reveal(hand: Hand) -> dict[str, Any]:
    return table_event(
        "reveal", hand=hand.number, seed=hand.seed, salt=hand.salt, commitment=hand.commitment,
        contributions=hand.contributions,
    )


def match_close(change: MatchChange, status: str) -> None:
    """End the match (all hands played, or dissolved by vote) and close the room."""
    match, hand = change.match, change.hand
    extra: list[dict[str, Any]] = []
    if status == Match.Status.DISSOLVED and hand is not None and hand.ended_at is None:
        hand.ended_at = change.now
        hand.save(update_fields=["ended_at"])
        extra.append(_reveal(hand))
    match.status, match.stage = status, Match.Stage.OVER
    match.finished_at, match.deadline, match.dissolve_vote = change.now, None, None
    match.next_hand = None  # a hand committed but never dealt: no more contributions
    change.log(
        MatchEvent.Kind.MATCH_END,
        [*extra, table_event("match_end", reason=status, totals=list(match.totals),
                             hands_played=match.hands_played)],
    )
    if match.booked:
        ledger_match_post(match=match)
    room_match_ended(room_id=match.room_id, club_id=match.club_id, at=change.now)
