"""The replay's words (``apps.ledgers.replay.replay_frames``), from records of chosen deals:
each step says who did what with which tile, a pass joins the step before it, and a
decision that a higher claim overrode, or a 补杠 that was robbed, is void with why. The
effect is read from the engine's events only."""

from __future__ import annotations

import re
from typing import Any

from apps.ledgers.replay import replay_frames
from majiang.record import record_of
from tests.rules.scenario import DUYUN, deal, play

NAMES = {0: "张三", 1: "李四", 2: "王五", 3: "赵六"}
CODE = re.compile(r"(?<![0-9A-Za-z])[1-9][msp](?![0-9A-Za-z])")
# The dealer's first discard, 五筒: 李四 could 碰 it and 王五 win on it (七对).
OVERRIDE = ["5p1m9m3s7s8s9p9p2p3p7m8m6s6p", "55p2m3m6m9s8p7p1s2s5s4m5m",
            "1133m66m2277s99s5p", "4m4m7m8s8s3p4p4p1p1p2m5s6s"]


def frames_of(hands: list[str], *steps: str, draws: str = "") -> list[dict[str, Any]]:
    rnd = play(deal(DUYUN, hands, draws=draws), *steps)
    frames = replay_frames(record_of(rnd), NAMES)
    for frame in frames:
        for move in frame["moves"]:
            assert not CODE.search(move["text"]), move["text"]
    return frames


def texts(frame: dict[str, Any]) -> list[str]:
    return [m["text"] for m in frame["moves"]]


def test_a_pung_that_a_later_win_overrode_is_void() -> None:
    frames = frames_of(OVERRIDE, "0 discard 5p", "1 pung 5p", "2 win")
    assert texts(frames[0]) == ["张三 坐庄，发牌"]
    assert texts(frames[1]) == ["张三 打出 五筒"]
    assert texts(frames[2]) == ["李四 碰 五筒（被王五胡抢先，未生效）"]
    assert frames[2]["moves"][0]["effective"] is False
    assert frames[2]["text"] == "李四 碰 五筒（被王五胡抢先，未生效）"
    assert texts(frames[3]) == ["王五 胡 五筒（张三点炮）", "本局结束"]
    assert not any(f["merged"] for f in frames)


def test_a_win_decided_first_takes_effect_in_the_step_of_the_pung_it_overrides() -> None:
    frames = frames_of(OVERRIDE, "0 discard 5p", "2 win", "1 pung 5p")
    assert texts(frames[2]) == ["王五 胡 五筒（张三点炮）"]
    assert frames[2]["moves"][0]["effective"] is True
    assert texts(frames[3]) == [
        "李四 碰 五筒（被王五胡抢先，未生效）", "王五 胡 五筒（张三点炮）", "本局结束",
    ]


def test_a_pass_joins_the_step_before_and_the_pung_is_said_once() -> None:
    frames = frames_of(OVERRIDE, "0 discard 5p", "1 pung 5p", "2 pass", "1 discard 9s")
    assert [f["merged"] for f in frames] == [False, False, False, True, False]
    assert texts(frames[2]) == ["李四 碰 五筒"] and frames[2]["moves"][0]["effective"]
    assert texts(frames[3]) == ["王五 不胡 五筒"]  # the 碰 it let through is not said again
    assert frames[4]["moves"][0]["text"] == "李四 打出 九条"


def test_passes_and_draws_are_said_with_their_tiles() -> None:
    frames = frames_of(OVERRIDE, "0 discard 5p", "1 pass", "2 pass", draws="3m")
    assert texts(frames[2]) == ["李四 不碰 五筒"]
    assert texts(frames[3]) == ["王五 不胡 五筒", "李四 摸牌 三万"]
    assert [f["merged"] for f in frames[1:]] == [False, True, True]


def test_a_robbed_added_kong_is_void() -> None:
    # 李四 碰s the dealer's 二万 and draws the fourth; 王五 waits on 二万 (平胡, which
    # may not win on a discard but may rob a kong, D7).
    hands = ["2m1s3s5s7s9s1p3p5p7p9p6m8m9m", "22m2s4s6s8s2p4p6p8p1m3m5m",
             "13m456m789m234s55p", "1s3s5s7s9s1p3p6p7p9p4m6m8m"]
    frames = frames_of(
        hands, "0 discard 2m", "1 pung 2m", "1 discard 1m", "2 discard 9s", "3 discard 1p",
        "0 discard 5m", "1 kong 2m", "2 win", draws="9s1p5m2m",
    )
    robbed = frames[7]
    assert texts(robbed) == ["李四 补杠 二万（被王五抢杠胡，未生效）"]
    assert robbed["moves"][0]["effective"] is False
    assert texts(frames[8]) == ["王五 抢杠胡 二万（抢李四的杠）", "本局结束"]
    assert texts(frames[6]) == ["张三 打出 五万", "李四 摸牌 二万"]
