"""Property tests on random games of the basic variant (2–4 players, random legal play)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.record import dumps, record_of, replay
from majiang.round import Round
from majiang.tiles import Tile
from majiang.variants import get_variant

BASIC = get_variant("basic")


def _keys(value: Any) -> set[str]:
    """Every mapping key anywhere in a JSON value."""
    if isinstance(value, dict):
        out = set(value)
        for item in value.values():
            out |= _keys(item)
        return out
    if isinstance(value, list):
        return set().union(*(_keys(item) for item in value)) if value else set()
    return set()


def _lists(value: Any) -> list[list[Any]]:
    """Every list anywhere in a JSON value."""
    found: list[list[Any]] = []
    if isinstance(value, dict):
        for item in value.values():
            found.extend(_lists(item))
    elif isinstance(value, list):
        found.append(value)
        for item in value:
            found.extend(_lists(item))
    return found


def check_observations(rnd: Round) -> None:
    """Nobody sees another seat's concealed tiles before the end, and nobody sees the wall."""
    ended = rnd.ended
    wall = [t.code for t in rnd.wall.undrawn()]
    for viewer in [None, *range(rnd.players)]:
        obs = json.loads(json.dumps(rnd.observation(viewer)))
        assert "wall" not in _keys(obs)
        assert obs["wall_remaining"] == len(wall)
        every_list = _lists(obs)
        if len(wall) > 1:
            assert wall not in every_list
        for entry in obs["seats"]:
            seat = entry["seat"]
            if seat == viewer:
                continue
            if ended or rnd.seats[seat].won:
                assert entry["concealed"] == [t.code for t in rnd.seats[seat].concealed()]
            else:
                assert "concealed" not in entry
                hidden = [t.code for t in rnd.seats[seat].concealed()]
                if len(hidden) >= 7:  # shorter lists could match a waits list by chance
                    assert hidden not in every_list
        if viewer is not None:
            s = rnd.seats[viewer]
            mine = s.concealed()
            if s.drawn is not None:
                mine.remove(s.drawn)
            assert obs["me"]["hand"] == [t.code for t in mine]
            legal = [a.to_json() for a in rnd.legal_actions(viewer)]
            assert obs["me"]["legal"] == legal


def random_illegal(rnd: Round, rng: random.Random) -> Action:
    """An action, for a random seat, that is not among that seat's legal actions."""
    while True:
        seat = rng.randrange(rnd.players)
        kind = rng.choice(list(ActionType))
        tile = rng.choice([None, *Tile])
        action = Action(kind, seat, tile, declare=rng.random() < 0.1)
        if action not in rnd.legal_actions(seat):
            return action


@settings(max_examples=60, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.text(min_size=0, max_size=12),
    choices=st.randoms(use_true_random=False),
    take_wins=st.booleans(),
)
def test_random_games(players: int, seed: str, choices: random.Random, take_wins: bool) -> None:
    rnd, _ = Round.deal(BASIC, {"players": players}, dealer=len(seed) % players, seed=seed)
    steps = 0
    while not rnd.ended:
        check_observations(rnd)
        # A random illegal action is rejected and changes nothing.
        before = rnd.snapshot()
        bad = random_illegal(rnd, choices)
        try:
            rnd.apply(bad)
        except IllegalActionError as exc:
            assert exc.code in {"illegal_action", "not_your_turn", "already_decided"}
        else:
            raise AssertionError(f"{bad} was applied")
        assert rnd.snapshot() == before
        # Every pending seat has a choice; play one of them at random.
        pending = rnd.pending()
        assert pending and all(rnd.legal_actions(s) for s in pending)
        seat = choices.choice(pending)
        legal = rnd.legal_actions(seat)
        wins = [a for a in legal if a.type is ActionType.WIN]
        rnd.apply(wins[0] if wins and take_wins else choices.choice(legal))
        steps += 1
        if steps % 7 == 0:
            again = replay(json.loads(dumps(record_of(rnd))))
            assert again.snapshot() == rnd.snapshot()
    check_observations(rnd)
    again = replay(json.loads(dumps(record_of(rnd))))
    assert again.snapshot() == rnd.snapshot()
    settlement = rnd.settlement()
    assert sum(settlement.totals) == 0
    assert all(line.payer != line.payee and line.points > 0 for line in settlement.lines)
    assert settlement == again.settlement()
    assert rnd.end_reason in {"win", "exhausted"}
    assert (rnd.end_reason == "win") == bool(rnd.wins)
    tiles = sum(sum(s.hand) + sum(m.size for m in s.melds) for s in rnd.seats)
    river = sum(1 for s in rnd.seats for e in s.river if e.in_river)
    # Every tile is somewhere: hands, melds, river or wall. A tile won by several seats at
    # once sits in each winner's hand, so it counts once per extra winner.
    shared = len(rnd.wins) - len({w.group for w in rnd.wins})
    assert tiles + river + rnd.wall.remaining == 108 + shared
