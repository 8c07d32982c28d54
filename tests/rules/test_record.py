"""Game records, replay, and the ``python -m majiang replay`` command line."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import RecordError
from majiang.record import FORMAT, dumps, load_round, record_of, replay
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.tiles import Tile
from majiang.variants import get_variant

BASIC = get_variant("basic")
ROOT = Path(__file__).resolve().parents[2]


def played(seed: str, steps: int | None = None, players: int = 4) -> Round:
    """A basic round played by a seeded random bot (wins taken when offered)."""
    rnd, _ = Round.deal(BASIC, {"players": players}, seed=seed)
    rng = random.Random(seed)
    count = 0
    while not rnd.ended and (steps is None or count < steps):
        seat = rnd.pending()[0]
        legal = rnd.legal_actions(seat)
        wins = [a for a in legal if a.type is ActionType.WIN]
        rnd.apply(wins[0] if wins else rng.choice(legal))
        count += 1
    return rnd


@pytest.mark.parametrize("seed", ["rec-1", "rec-2", "rec-3"])
def test_record_round_trip(seed: str) -> None:
    rnd = played(seed)
    text = dumps(record_of(rnd))
    again = replay(json.loads(text))
    assert again.snapshot() == rnd.snapshot()
    assert again.settlement() == rnd.settlement()
    assert dumps(record_of(again)) == text


def test_record_of_a_partial_round_and_an_explicit_wall() -> None:
    rnd, _ = deal_scenario(
        BASIC, {"players": 2}, hands=["5m123456789s1357p", "55m12469s124689p"], draws="9m"
    )
    rnd.apply(Action(ActionType.DISCARD, 0, Tile.P1))
    record = record_of(rnd)
    assert record["format"] == FORMAT == "majiang-record/1"
    assert "seed" not in record
    assert record["wall"].split()[:3] == ["5m", "1s", "2s"]
    assert len(record["wall"].split()) == 108
    assert record["actions"] == [{"seat": 0, "type": "discard", "tile": "1p"}]
    assert record["settings"] == {
        "auto_play_after": 2,
        "base_stake": 1,
        "hands_per_match": 8,
        "offline_dissolve_seconds": 600,
        "offline_pause_seconds": 60,
        "players": 2,
        "timeout_takes_win": True,
        "turn_seconds": 15,
    }
    again = replay(json.loads(dumps(record)))
    assert again.snapshot() == rnd.snapshot()
    assert not again.ended


def test_dumps_is_canonical() -> None:
    assert dumps({"b": 1, "a": "万"}) == '{\n  "a": "万",\n  "b": 1\n}\n'


def _record(**changes: Any) -> dict[str, Any]:
    record = record_of(played("bad-records", steps=6))
    record.update(changes)
    return record


@pytest.mark.parametrize(
    ("change", "index", "message"),
    [
        (lambda r: r["actions"].__setitem__(3, {"seat": 0, "type": "pung", "tile": "1m"}), 3,
         "动作 #3 (座位0 pung 1m) 不合法"),
        (lambda r: r["actions"].__setitem__(2, {"seat": 1, "type": "discard", "tile": "0m"}), 2,
         "动作 #2: 无效的牌"),
        (lambda r: r["actions"].__setitem__(4, {"seat": 1, "type": "fly"}), 4,
         "动作 #4: 未知的动作类型 'fly'"),
        (lambda r: r["actions"].__setitem__(1, {"type": "pass"}), 1,
         "动作 #1: 动作缺少 'seat' 字段 [bad_action]"),
    ],
)
def test_bad_actions_are_reported_with_their_index(change: Any, index: int, message: str) -> None:
    record = _record()
    change(record)
    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.index == index
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"variant": "nope"}, "未知或缺少玩法 variant 'nope' [unknown_variant]"),
        ({"format": "other/9"}, "未知的记录格式 'other/9' [unknown_format]"),
        ({"wall": "1m 2m"}, "有且只有 'seed' 和 'wall' 之一 [seed_or_wall]"),
        ({"seed": None}, "有且只有 'seed' 和 'wall' 之一 [seed_or_wall]"),
        ({"settings": {"players": 5}}, "房间设置无效: players"),
        ({"dealer": "0"}, "dealer 和 streak 必须是整数 [bad_dealer]"),
        ({"dealer": 4}, "dealer 4 不是 4 人桌的座位 [bad_dealer]"),
        ({"seed": 5}, "'seed' 必须是字符串, 得到 5 [bad_seed]"),
    ],
)
def test_bad_record_headers(changes: dict[str, Any], message: str) -> None:
    record = _record(**changes)
    if changes.get("seed", 1) is None:
        del record["seed"]
    with pytest.raises(RecordError) as info:
        load_round(record)
    assert message in str(info.value)
    assert info.value.index is None


def test_bad_explicit_wall() -> None:
    record = _record()
    del record["seed"]
    record["wall"] = "1m 2x"
    with pytest.raises(RecordError, match=r"牌墙写法有误: .*\[bad_wall\]"):
        load_round(record)
    record["wall"] = "1m " * 108
    with pytest.raises(RecordError) as info:
        load_round(record)
    assert info.value.code == "wrong_wall"
    assert "缺少 2m×4, 3m×4" in info.value.message and "多出 1m×104" in info.value.message


# -- the command line -------------------------------------------------------------------


def run_cli(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "majiang", "replay", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )


def test_cli_replay_is_byte_identical(tmp_path: Path) -> None:
    rnd = played("cli-seed")
    path = tmp_path / "hand.json"
    path.write_text(dumps(record_of(rnd)), encoding="utf-8")
    first, second = run_cli(path), run_cli(path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    out = json.loads(first.stdout)
    assert out["ended"] is True
    assert out["settlement"] == rnd.settlement().to_json()
    assert out["observations"] == [json.loads(json.dumps(rnd.observation(s))) for s in range(4)]
    assert out["next_dealer"] == list(rnd.next_dealer())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"variant": "nope"}, "未知或缺少玩法 variant 'nope'"),
        ({"wall": "1m"}, "有且只有 'seed' 和 'wall' 之一"),
        ({"actions": [{"seat": 0, "type": "discard", "tile": "1x"}]}, "动作 #0: 无效的牌"),
    ],
)
def test_cli_bad_record_exits_2(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(dumps(_record(**changes)), encoding="utf-8")
    result = run_cli(path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_cli_names_the_first_illegal_action(tmp_path: Path) -> None:
    record = _record()
    record["actions"].insert(2, {"seat": 3, "type": "win"})
    record["actions"].insert(4, {"seat": 2, "type": "fly"})
    path = tmp_path / "bad.json"
    path.write_text(dumps(record), encoding="utf-8")
    result = run_cli(path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: 动作 #2 (座位3 win) 不合法: ")
    assert "#4" not in result.stderr


def test_cli_missing_file_and_bad_json(tmp_path: Path) -> None:
    assert run_cli(tmp_path / "absent.json").returncode == 2
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    result = run_cli(path)
    assert result.returncode == 2 and result.stderr.startswith("error: ")


def test_record_format_document_example_replays() -> None:
    # docs/record-format.md must not drift from the code: its example replays as stated and
    # its stand-alone shuffle gives the pinned wall.
    import re

    doc = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    example = re.search(r"```json\n(.*?)```", doc, re.S)
    assert example is not None
    record = json.loads(example.group(1))
    assert dumps(record) == example.group(1)
    rnd = replay(record)
    assert rnd.ended and rnd.settlement().totals == (-1, 1) and rnd.next_dealer() == (1, 1)
    snippet = re.search(r"```python\n(.*?)```", doc, re.S)
    assert snippet is not None
    namespace: dict[str, Any] = {}
    exec(snippet.group(1), namespace)  # the snippet asserts the test-seed pin itself
    assert " ".join(namespace["wall"][:10]) == "7s 4m 2p 5m 7s 5p 9p 9p 8p 6s"
