"""The trace's analysis (:func:`benchmarks.load.trace.chains`): which actions count and
what each step's time is."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.load.trace import REQUIRED, STEPS, chains

SERVER_STEPS = [step for step, _ in STEPS if step not in ("sent", "confirmed")]


def _write(path: Path, stamps: list[tuple[float, str]]) -> Path:
    path.write_text("".join(f"{at:.6f} {step}\n" for at, step in stamps))
    return path


def _move(start: float, *, updates: int = 4) -> list[tuple[float, str]]:
    """Every server step of one move, 1 ms apart from ``start`` + 1 ms; ``update`` and
    ``relayed`` once per seat."""
    stamps, at = [], start
    for step in SERVER_STEPS:
        repeat = updates if step in ("update", "relayed") else 1
        for _ in range(repeat):
            at += 0.001
            stamps.append((at, step))
    return stamps


def test_a_lone_action_gives_each_step_its_time_after_the_send(tmp_path: Path) -> None:
    stamps = _move(10.0)
    confirmed = stamps[-1][0] + 0.001
    steps = chains([_write(tmp_path / "s.1", stamps)], [(10.0, confirmed - 10.0)])
    assert steps["sent"] == [0.0]
    assert steps["received"] == [pytest.approx(0.001)]
    # The first update counts (the first seat's), and the last relay (the fourth seat's).
    first_update = min(at for at, step in stamps if step == "update")
    assert steps["update"] == [pytest.approx(first_update - 10.0)]
    last_relay = max(at for at, step in stamps if step == "relayed")
    assert steps["relayed"] == [pytest.approx(last_relay - 10.0)]
    assert steps["confirmed"] == [pytest.approx(confirmed - 10.0)]


def test_stamps_of_several_processes_are_merged(tmp_path: Path) -> None:
    stamps = _move(10.0)
    daphne = [s for s in stamps if s[1] in ("received", "handed", "update", "relayed",
                                              "answered")]
    mover = [s for s in stamps if s not in daphne]
    files = [_write(tmp_path / "s.1", daphne), _write(tmp_path / "s.2", mover)]
    steps = chains(files, [(10.0, 0.1)])
    assert len(steps["committed"]) == 1


def test_overlapping_actions_are_left_out(tmp_path: Path) -> None:
    # The first message is still in flight when the second is sent (and confirmed):
    # neither counts. The third is alone.
    first, second, third = _move(10.0), _move(20.0), _move(30.0)
    sends = [(10.0, 15.0), (20.0, 0.1), (30.0, 0.1)]
    steps = chains([_write(tmp_path / "s.1", first + second + third)], sends)
    assert steps["sent"] == [0.0]
    assert steps["confirmed"] == [pytest.approx(0.1)]
    assert steps["received"] == [pytest.approx(0.001)]


def test_a_step_missing_or_twice_leaves_the_action_out(tmp_path: Path) -> None:
    missing = [s for s in _move(10.0) if s[1] != "committed"]
    twice = _move(20.0)
    twice.insert(3, (twice[2][0] + 0.0001, twice[2][1]))
    steps = chains([_write(tmp_path / "s.1", missing + twice)], [(10.0, 0.5), (20.0, 0.5)])
    assert steps["sent"] == []


def test_the_result_may_come_back_after_the_confirmation(tmp_path: Path) -> None:
    stamps = [s for s in _move(10.0) if s[1] != "answered"]
    stamps.append((10.9, "answered"))
    steps = chains([_write(tmp_path / "s.1", stamps)], [(10.0, 0.5)])
    assert steps["sent"] == [0.0]
    assert steps["answered"] == []
    assert "answered" not in REQUIRED
