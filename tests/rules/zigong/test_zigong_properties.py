"""Properties over random legal play: no exception, zero-sum settlements, faithful replay."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from majiang.record import dumps, record_of, replay
from tests.rules.scenario import ZIGONG

_SPEC = importlib.util.spec_from_file_location(
    "fuzz_variants", Path(__file__).resolve().parents[3] / "benchmarks" / "fuzz_variants.py"
)
assert _SPEC is not None and _SPEC.loader is not None
fuzz = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fuzz)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_Z_random_play_settles_to_zero_and_replays(seed: int) -> None:
    """Any random legal hand ends, its settlement sums to zero, and its record replays to the
    same state and settlement."""
    rng = random.Random(seed)
    room = fuzz.random_settings(ZIGONG.schema, rng)
    rnd = fuzz.play_random(ZIGONG, room, f"h{seed}", rng, dealer=rng.randrange(room["players"]))
    settlement = rnd.settlement()
    assert sum(settlement.totals) == 0
    assert sum(line.points for line in settlement.lines if line.payer == line.payee) == 0
    again = replay(record_of(rnd))
    assert again.snapshot() == rnd.snapshot()
    assert again.settlement() == settlement
    assert dumps(record_of(again)) == dumps(record_of(rnd))


def test_Z_fuzz_300_hands() -> None:
    """The fuzz script over 300 hands across random settings: no exception, all sums zero."""
    assert fuzz.main(["--variant", "zigong", "--hands", "300", "--seed", "pytest"]) == 0
