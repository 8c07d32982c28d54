"""都匀: properties over random legal play, and a small fuzz run (D22: lines sum to zero)."""

from __future__ import annotations

import random
from typing import Any

from duyun_bot import fuzz, play
from hypothesis import given, settings
from hypothesis import strategies as st

from majiang.record import record_of, replay
from majiang.round import Round
from tests.rules.scenario import DUYUN

SETTINGS = st.fixed_dictionaries(
    {
        "players": st.sampled_from([3, 4]),
        "base_stake": st.integers(1, 5),
        "timeout_takes_win": st.booleans(),
        "multi_win_dealer": st.sampled_from(["first_winner", "discarder"]),
        "pinghu_discard_needs_dou": st.booleans(),
        "baopai": st.booleans(),
        "zimo_bonus": st.integers(0, 2),
        "fanji": st.sampled_from(["next", "up_down", "off"]),
        "mantang": st.booleans(),
        "first_chicken": st.sampled_from(["hero", "charge"]),
    }
)


@settings(max_examples=60, deadline=None)
@given(SETTINGS, st.integers(0, 10**9), st.integers(0, 3), st.integers(1, 4))
def test_D22_random_play_sums_to_zero_and_replays(
    room: dict[str, Any], seed: int, dealer: int, streak: int
) -> None:
    dealer %= room["players"]
    rnd, _ = Round.deal(DUYUN, room, dealer=dealer, streak=streak, seed=str(seed))
    play(rnd, random.Random(seed))
    result = rnd.settlement()
    assert sum(result.totals) == 0
    assert sum(line.points for line in result.lines if line.payer == line.payee) == 0
    again = replay(record_of(rnd))
    assert again.snapshot() == rnd.snapshot()
    assert again.settlement() == result
    nxt, nxt_streak = rnd.next_dealer()
    assert 0 <= nxt < room["players"]
    assert nxt_streak == (streak + 1 if nxt == dealer else 1)


def test_D22_fuzz_300_hands_all_settings() -> None:
    report = fuzz(300, seed="pytest")
    assert report.hands == 300
    assert report.ends["win"] > 100 and report.ends["exhausted"] > 50
    for category in ("牌型:平胡", "自摸", "连庄", "查叫", "幺鸡", "暗豆", "明豆", "转弯豆"):
        assert report.categories[category] > 0, category
