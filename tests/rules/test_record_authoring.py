"""Writing game records by hand: ``record build``, ``replay --summary``/``--strict`` and the
errors that tell an author what the hand was waiting for (docs/record-format.md).

The worked example of the document is built, replayed and compared with the page. The 自贡
hand uses the 报叫 window (Z19), a concealed kong and its replacement (Z14, Z10), a 萝卜
tile (Z13) and a self-drawn win (Z11).
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError, RecordError
from majiang.record import build, dumps, load_round, replay
from majiang.round import Round
from majiang.tiles import Tile, parse_tile
from majiang.variants import get_variant
from majiang.wall import full_set
from tests.rules.scenario import ZIGONG, deal, play

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")


def block(kind: str) -> str:
    found = re.search(rf"```{kind}\n(.*?)```", DOC, re.S)
    assert found is not None, kind
    return found.group(1)


SPEC = json.loads(block("json spec"))
RECORD = block("json record")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "majiang", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )


def error_of(record: dict[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record)
    return info.value


# -- the worked example ---------------------------------------------------------------------


def test_Z13_Z14_documented_example_round_trips(tmp_path: Path) -> None:
    """build(spec) is the documented record; it replays to the documented summary, whose
    totals are the settlement's."""
    record = build(SPEC)
    assert dumps(record) == RECORD
    rnd = replay(record)
    assert rnd.ended and rnd.settlement().totals == (7, -7)
    assert [(x.category, x.points, x.ruling) for x in rnd.settlement().lines] == [
        ("暗杠", 2, "Z14"),
        ("牌型:平胡", 2, "Z11"),
        ("自摸加底", 1, "Z11"),
        ("萝卜", 2, "Z13"),
    ]
    spec_path, out_path = tmp_path / "spec.json", tmp_path / "hand.json"
    spec_path.write_text(json.dumps(SPEC, ensure_ascii=False), encoding="utf-8")
    built = run("record", "build", spec_path, "-o", out_path)
    assert built.returncode == 0, built.stderr
    assert out_path.read_text(encoding="utf-8") == RECORD
    assert run("record", "build", spec_path).stdout == RECORD
    summary = run("replay", "--summary", out_path)
    assert summary.returncode == 0 and summary.stderr == ""
    assert summary.stdout == block("text summary")
    assert "合计: 座位0 +7, 座位1 -7" in summary.stdout


def test_build_writes_luobo_and_turned_tiles_where_they_are_taken() -> None:
    """Z13: the 萝卜 come off the back first, replacements after; D15: the turned tile is the
    front tile once the draws are done (here the dealer's 天胡 needs none)."""
    spec = copy.deepcopy(SPEC)
    spec["deal"]["luobo"] = "1p 4p"
    spec["actions"] = []
    record = build(spec)
    wall = record["wall"].split()
    assert record["settings"]["luobo"] == 2
    assert wall[-1] == "1p" and wall[-2] == "4p" and wall[-3] == "6s"
    duyun = build(
        {
            "variant": "duyun",
            "settings": {"players": 3},
            "deal": {
                "hands": ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"],
                "turned": "8s",
            },
            "actions": [{"seat": 0, "type": "win"}],
        }
    )
    assert duyun["wall"].split()[40] == "8s" and duyun["settings"]["fanji"] == "next"
    summary = replay(duyun).settlement().summary
    assert summary["fanji"] == "8s" and summary["chicken_tiles"] == ["1s", "9s"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda s: s["deal"]["hands"].__setitem__(1, "99s123s456p789p6s"),
            "座位1 应发 13 张牌, 写了 12 张",
        ),
        (lambda s: s["deal"].__setitem__("draws", "2s 3p"), "3p 多1张"),
        (
            lambda s: s["settings"].__setitem__("luobo", 2),
            "萝卜牌写了 1 张, 但设置 luobo 是 2 [bad_spec]",
        ),
        (lambda s: s["deal"].__setitem__("flowers", "1s"), "'deal' 中有未知字段: flowers"),
        (lambda s: s.__setitem__("seed", "x"), "用 'deal' 代替 'seed' 和 'wall'"),
    ],
)
def test_bad_build_specs_are_named(change: Any, message: str, tmp_path: Path) -> None:
    spec = copy.deepcopy(SPEC)
    change(spec)
    with pytest.raises(RecordError) as info:
        build(spec)
    assert message in str(info.value)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    result = run("record", "build", path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: {info.value}\n"


def test_record_build_replays_what_it_writes(tmp_path: Path) -> None:
    """A spec whose actions do not fit its tiles is reported by the command at once."""
    spec = copy.deepcopy(SPEC)
    del spec["actions"][3]
    assert build(spec)["actions"] == spec["actions"]  # Python writes it as asked
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    result = run("record", "build", path)
    assert (result.returncode, result.stdout) == (2, "")
    assert "动作 #3" in result.stderr and "座位0打出9s后的抢牌窗口" in result.stderr


# -- errors that name what the hand waits for -----------------------------------------------


def test_a_missing_pass_names_the_window_the_seat_and_its_options() -> None:
    """Z3/Z7: seat 1 could 碰 the dealer's 9s; the record forgot its pass."""
    record = json.loads(RECORD)
    del record["actions"][3]
    error = error_of(record)
    assert (error.index, error.code) == (3, "illegal_action")
    assert error.message == (
        "动作 #3 (座位1 discard 2s) 不合法: 现在不能打出二条。"
        "仍在等待 座位0打出9s后的抢牌窗口: 座位1 可 pung 9s, pass"
    )


def test_Z19_a_missing_answer_in_the_baojiao_window_names_the_seats_asked() -> None:
    """Z19: the window asks the ready non-dealers; the dealer's kong cannot come first."""
    record = json.loads(RECORD)
    del record["actions"][0]
    error = error_of(record)
    assert (error.index, error.code) == (0, "not_your_turn")
    assert "仍在等待 开局报叫窗口 (问的是起手已听牌的闲家): 座位1 可 declare, pass" in error.message


def test_Z19_an_automatic_discard_written_out_is_named() -> None:
    """Z19: after 报叫 the engine discards seat 1's drawn 2s; the author wrote it anyway."""
    record = json.loads(RECORD)
    record["actions"][0] = {"seat": 1, "type": "declare"}
    del record["actions"][3]  # seat 1 is declared: it is not offered the 碰, so no pass
    error = error_of(record)
    assert error.index == 3
    assert "座位1已报叫: 摸到不胡的牌由引擎自动打出" in error.message
    assert "仍在等待 座位0的回合: 座位0 可 win, discard" in error.message
    del record["actions"][3]
    assert replay(record).settlement().totals[0] > 0  # without it the record is right


def test_D9_a_baoting_seat_automatic_discard_says_baoting() -> None:
    """D9: the same in 都匀, where the declaration is 报听."""
    rnd = deal(
        get_variant("duyun"),
        ["123m456m789m234p58p", "336699m2258s147p", "2379m4578s13579p"],
        draws="9s1s2s",
    )
    play(rnd, "0:declare:8p")
    record = {
        "variant": "duyun",
        "settings": dict(rnd.settings),
        "wall": " ".join(t.code for t in rnd.wall.tiles),
        "actions": [
            {"seat": 0, "type": "discard", "tile": "8p", "declare": True},
            {"seat": 1, "type": "discard", "tile": "9s"},
            {"seat": 2, "type": "discard", "tile": "1s"},
            {"seat": 0, "type": "discard", "tile": "2s"},
        ],
    }
    error = error_of(record)
    assert error.index == 3 and "座位0已报听" in error.message


def test_Z20_an_open_baogang_panel_is_named_with_its_options() -> None:
    """Z20: seat 1 declared and its panel offers 1p and 1s; ticking both is refused with the
    seed's message, and the error says what the panel waits for."""
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"])
    record = {
        "variant": "zigong",
        "settings": dict(rnd.settings),
        "wall": " ".join(t.code for t in rnd.wall.tiles),
        "actions": [
            {"seat": 1, "type": "declare"},
            {"seat": 1, "type": "declare", "ticks": ["1p", "1s"]},
        ],
    }
    error = error_of(record)
    assert (error.index, error.code) == (1, "baogang_too_many")
    assert "抱歉，不能选择更多的杠" in error.message
    assert (
        "座位1 的报叫在等报杠选择: 写 declare 带 ticks (可勾选 1s 1p) 为报杠, 不带 ticks 为不报"
        in (error.message)
    )


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"seat": 0, "type": "win", "tile": "7s"}, "胡不用指明牌"),
        ({"seat": 0, "type": "discard"}, "出牌要指明是哪张牌"),
        ({"seat": 0, "type": "pass", "tile": "7s"}, "过不用指明牌"),
    ],
)
def test_a_wrong_field_is_named(action: dict[str, Any], message: str) -> None:
    record = json.loads(RECORD)
    record["actions"][5] = action
    error = error_of(record)
    assert error.index == 5 and message in error.message


def test_pung_without_a_tile_and_declare_with_one_are_named() -> None:
    """The same messages reach players through Round.apply, state unchanged."""
    rnd = load_round(json.loads(RECORD))
    play(rnd, "1 pass; 0 kong 3p; 0 discard 9s")
    before = rnd.snapshot()
    for bad, message in [
        (Action(ActionType.PUNG, 1), "碰要指明是哪张牌"),
        (Action(ActionType.DECLARE, 1, parse_tile("9s")), "报叫不用指明牌"),
        (Action(ActionType.PASS, 1, declare=True), "过时不能报叫"),
    ]:
        with pytest.raises(IllegalActionError) as info:
            rnd.apply(bad)
        assert (info.value.code, message in info.value.message) == ("illegal_action", True)
    assert rnd.snapshot() == before
    play(rnd, "1 pung 9s")  # the right form is legal
    assert rnd.seats[1].melds


def test_Z1_a_wrong_wall_names_missing_and_extra_tiles_and_counts() -> None:
    record = json.loads(RECORD)
    tiles = record["wall"].split()
    tiles[tiles.index("5s")] = "5m"
    record["wall"] = " ".join([*tiles, "9p"])
    with pytest.raises(RecordError) as info:
        load_round(record)
    assert info.value.code == "wrong_wall"
    assert info.value.message == (
        "牌墙不是本玩法的整副牌: 应为72张, 实为73张; 缺少 5s×1; 多出 5m×1 (本玩法没有这种牌), 9p×1"
    )
    with pytest.raises(ValueError, match="应为108张, 实为107张; 缺少 9p×1"):
        Round.deal(get_variant("basic"), {"players": 4}, wall=full_set(list(Tile))[:-1])


# -- a record that stops early --------------------------------------------------------------


def test_a_record_that_stops_early_warns_and_fails_with_strict(tmp_path: Path) -> None:
    record = json.loads(RECORD)
    del record["actions"][4:]
    path = tmp_path / "short.json"
    path.write_text(dumps(record), encoding="utf-8")
    plain = run("replay", path)
    assert plain.returncode == 0 and json.loads(plain.stdout)["ended"] is False
    assert plain.stderr.startswith(
        "warning: 记录在本局结束前停止, 仍在等待 座位1的回合: 座位1 可 discard"
    )
    assert plain.stderr.rstrip().endswith("[not_ended]")
    strict = run("replay", "--strict", path)
    assert strict.returncode == 1 and strict.stderr == plain.stderr
    assert strict.stdout == plain.stdout
    ended = tmp_path / "ended.json"
    ended.write_text(RECORD, encoding="utf-8")
    done = run("replay", "--strict", ended)
    assert done.returncode == 0 and done.stderr == ""


def test_the_documented_missing_pass_error_is_what_the_command_prints(tmp_path: Path) -> None:
    documented = re.search(r"`(error: 动作 #3 \(座位1 discard 2s\)[^`]*)`", DOC)
    assert documented is not None
    record = json.loads(RECORD)
    del record["actions"][3]
    path = tmp_path / "bad.json"
    path.write_text(dumps(record), encoding="utf-8")
    result = run("replay", path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == documented.group(1) + "\n"
