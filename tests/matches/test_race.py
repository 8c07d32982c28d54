"""Two seats claim the same discard at the same moment (碰 vs 胡), many times over."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from apps.matches import services, state
from apps.matches.lifecycle import commitment_of
from apps.matches.models import Match, MatchEvent
from apps.matches.protocol import MatchError
from majiang import Action, ActionType, Round, get_variant
from majiang.record import replay

pytestmark = pytest.mark.django_db(transaction=True)

RACE_SEEDS = ["race-2164", "race-2399", "race-5321", "race-11993", "race-11750", "race-12734"]
"""Seeds (dealer 0, basic, 4 players) where simple play reaches a discard that one seat can
win on and another can 碰. Found by search; the test re-derives the moves and checks it."""


def moves_to_race(seed: str, settings: dict[str, Any]) -> tuple[list[Action], int, int]:
    """The moves that reach the race, and the seats that may win and may 碰 there."""
    rnd, _ = Round.deal(get_variant("basic"), settings, dealer=0, seed=seed)
    moves: list[Action] = []
    while not rnd.ended:
        window = rnd.window
        if window is not None and rnd.phase.value == "claim":
            winners = [s for s, o in window.options.items()
                       if any(a.type is ActionType.WIN for a in o)]
            pungers = [s for s, o in window.options.items()
                       if any(a.type is ActionType.PUNG for a in o) and s not in winners]
            if winners and pungers:
                return moves, winners[0], pungers[0]
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
        if any(a.type is ActionType.WIN for a in legal):
            move = (next(a for a in legal if a.type is ActionType.PASS) if window
                    else [a for a in legal if a.type is ActionType.DISCARD][-1])
        else:
            move = rnd.timeout_action(seat)
            assert move is not None
        rnd.apply(move)
        moves.append(move)
    raise AssertionError(f"seed {seed} no longer reaches a 碰/胡 race")


@pytest.mark.parametrize("seed", RACE_SEEDS)
def test_simultaneous_pung_and_win_follow_priority(make_table: Any, seed: str) -> None:
    table = make_table(players=4)
    match = table.match
    hand = match.hands.get()
    # Re-deal hand 1 from the known seed alone, dealer 0 (no action has been taken yet).
    hand.seed, hand.dealer, hand.contributions = seed, 0, []
    hand.commitment = commitment_of(hand.salt, seed)
    hand.save()
    state.state_forget_all()  # the hand was changed by hand, without a new version
    moves, winner, punger = moves_to_race(seed, match.settings)
    for move in moves:
        payload = {**move.to_json(), "v": Match.objects.get(pk=match.pk).version}
        payload.pop("seat")
        services.match_act(match_id=match.pk, user_id=table.users[move.seat].pk, payload=payload)
    version = Match.objects.get(pk=match.pk).version
    barrier = threading.Barrier(2)
    errors: list[Exception] = []

    options = state.round_rebuild(Match.objects.get(pk=match.pk), hand).window.options

    def claim(seat: int, kind: str) -> None:
        move = next(a for a in options[seat] if a.type.value == kind).to_json()
        move.pop("seat")
        barrier.wait()
        try:
            services.match_act(match_id=match.pk, user_id=table.users[seat].pk,
                               payload={**move, "v": version})
        except MatchError as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(winner, "win")),
               threading.Thread(target=claim, args=(punger, "pung"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, [e.code for e in errors]
    # Anyone else still deciding passes.
    rnd = state.round_rebuild(Match.objects.get(pk=match.pk), hand)
    for seat in rnd.pending():
        services.match_act(match_id=match.pk, user_id=table.users[seat].pk,
                           payload={"type": "pass", "v": Match.objects.get(pk=match.pk).version})
    hand.refresh_from_db()
    entries = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    claims = [e.payload["action"] for e in entries if e.kind == "action"][len(moves):]
    assert sorted(c["type"] for c in claims if c["seat"] in (winner, punger)) == ["pung", "win"]
    events = [ev["public"] for e in entries for ev in e.payload["events"]]
    assert any(ev["type"] == "win" and ev["seat"] == winner for ev in events)
    assert not any(ev["type"] == "pung" for ev in events)
    assert hand.record is not None
    assert replay(hand.record).snapshot() == state.round_rebuild(match, hand).snapshot()
