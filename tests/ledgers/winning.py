"""Matches played by seats that try to win: 胡 when they can, else the discard that brings
them nearest to ready (the browser tests' bot policy), passing on every claim. Random
legal moves almost never win a hand; these do, by 自摸 and on discards."""

from __future__ import annotations

import random
from typing import Any

from apps.matches import services
from apps.matches.models import Match, MatchPlayer
from tests.browser.test_play import choose_discard
from tests.support.rounds import round_now

from .playing import round_cache_on


def _choose(rnd: Any, seat: int, rng: random.Random) -> dict[str, Any]:
    actions = [a.to_json() for a in rnd.legal_actions(seat)]
    wins = [a for a in actions if a["type"] == "win"]
    if wins:
        return wins[0]
    discards = [a for a in actions if a["type"] == "discard"]
    if discards:
        hand = list(rnd.snapshot()["seats"][seat]["hand"])
        tile = choose_discard(hand, [a["tile"] for a in discards])
        return next(a for a in discards if a["tile"] == tile)
    passes = [a for a in actions if a["type"] == "pass"]
    return passes[0] if passes else rng.choice(actions)


def _move(match: Match, users: dict[int, int], rng: random.Random) -> None:
    """The first pending seat makes the winning-minded policy's move."""
    rnd = round_now(match)
    seat = rnd.pending()[0]
    payload = {k: v for k, v in _choose(rnd, seat, rng).items() if k != "seat"}
    with round_cache_on():
        services.match_act(
            match_id=match.pk, user_id=users[seat], payload={**payload, "v": match.version}
        )


def play_to_win(match_id: int, rng: random.Random) -> None:
    """Play every hand of a match with the winning-minded policy, readying between hands."""
    users = {
        p.seat: p.user_id for p in MatchPlayer.objects.filter(match_id=match_id)
    }
    while True:
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.PLAYING:
            return
        if match.stage == Match.Stage.BETWEEN:
            for user_id in users.values():
                match.refresh_from_db()
                if match.stage == Match.Stage.BETWEEN:
                    services.match_act(
                        match_id=match_id, user_id=user_id, payload={"type": "ready_next"}
                    )
            continue
        _move(match, users, rng)


def play_hand_to_win(match_id: int, rng: random.Random) -> None:
    """Play the match's current hand to its end with the winning-minded policy."""
    users = {
        p.seat: p.user_id for p in MatchPlayer.objects.filter(match_id=match_id)
    }
    number = Match.objects.get(pk=match_id).hands_played
    while True:
        match = Match.objects.get(pk=match_id)
        if match.hands_played > number or match.status != Match.Status.PLAYING:
            return
        _move(match, users, rng)
