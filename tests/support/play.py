"""Playing hands through the real services: every move a seat's message to
:func:`apps.matches.services.match_act`, every hand readied with ``ready_next`` as the
table pages do. A *policy* picks a seat's action from the round as the server holds it.

Inside a test's transaction (``db``), the effects a move registers for after its commit run
at once (:meth:`django.test.TestCase.captureOnCommitCallbacks`): the round stays cached as
in a server process, and updates go to the (in-memory) channel layer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.test import TestCase

from apps.matches import services
from apps.matches.frames import view_version
from apps.matches.models import Match, MatchPlayer
from majiang import Round
from tests.support.bots import choose_discard
from tests.support.rounds import round_now

Policy = Callable[[Round, int], dict[str, Any]]
"""Chooses the action (as JSON, ``seat`` included) of a pending seat of a round."""


def random_policy(rng: random.Random) -> Policy:
    """Uniformly random legal actions."""
    return lambda rnd, seat: rng.choice(rnd.legal_actions(seat)).to_json()


def winning_policy(rng: random.Random) -> Policy:
    """胡 when possible, else the discard nearest to ready (the browser bots' heuristic),
    passing on every claim: random moves almost never win a hand; these do."""
    def choose(rnd: Round, seat: int) -> dict[str, Any]:
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

    return choose


def act(match: Match, user_id: int, payload: dict[str, Any]) -> int:
    """One client message of ``user_id``, its after-commit effects run; the new version."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return services.match_act(match_id=match.pk, user_id=user_id, payload=payload)


def move(match: Match, policy: Policy) -> None:
    """The first pending seat of the match's current hand makes the policy's move."""
    rnd = round_now(match)
    seat = rnd.pending()[0]
    user_id = MatchPlayer.objects.get(match=match, seat=seat).user_id
    action = {k: v for k, v in policy(rnd, seat).items() if k != "seat"}
    act(match, user_id, {**action, "v": view_version(match.views, seat)})


def play_hand(match: Match, policy: Policy) -> None:
    """Play the match's current hand to its end."""
    number = match.hands_played
    match.refresh_from_db()
    while match.status == Match.Status.PLAYING and match.hands_played == number:
        move(match, policy)
        match.refresh_from_db()


def ready_all(match: Match) -> None:
    """Every seat not yet ready presses 准备下一局 (the last one deals the next hand)."""
    for player in MatchPlayer.objects.filter(match=match, computer=False).order_by("seat"):
        match.refresh_from_db()
        if match.stage != Match.Stage.BETWEEN or player.seat in match.ready_seats:
            continue
        act(match, player.user_id, {"type": "ready_next"})
    match.refresh_from_db()


def play(match: Match, policy: Policy, *, hands: int | None = None) -> Match:
    """Play ``hands`` hands of the match (all that are left if ``None``), readying between
    them; return the match, fresh."""
    played = 0
    match.refresh_from_db()
    while match.status == Match.Status.PLAYING and (hands is None or played < hands):
        if match.stage == Match.Stage.BETWEEN:
            ready_all(match)
            continue
        play_hand(match, policy)
        played += 1
    match.refresh_from_db()
    return match
