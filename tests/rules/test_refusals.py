"""Refusals: the engine raises codes with plain data, and ``majiang.refusals`` alone words
them, in Chinese, naming tiles as players do (never ``2p``, a field name or a ruling ID)."""

from __future__ import annotations

import ast
import pickle
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.refusals import CODES, TEMPLATES, Refusal, words
from majiang.round import Round
from majiang.tiles import Tile
from majiang.variants import get_variant
from tests.rules.scenario import DUYUN, ZIGONG, action, deal, play

MAJIANG = Path(__file__).resolve().parents[2] / "majiang"
A = ActionType

# The generic round: seat 0 deals and discards 5m first; seat 1 can 碰 it, seat 2 win on it.
CLAIM_HANDS = ["5m123456789s1357p", "55m12469s124689p", "46m77788s222333p", "1199m359s145689p"]
# 自贡 case 1 (Z20): the dealer's declaring 4p offers 1p and 2p for 报杠.
BAOGANG_HANDS = ["111p222p33p4444p44s", "12356789s56789p"]


def is_players_chinese(message: str) -> bool:
    """Chinese text with no Latin letter or digit (so no tile code, field or ruling ID)."""
    return bool(re.search(r"[\u4e00-\u9fff]", message)) and not re.search(r"[A-Za-z0-9]", message)


# -- every refusal the engine can raise has words ---------------------------------------------


def _literals(node: ast.expr, functions: dict[str, ast.FunctionDef]) -> Iterator[str | None]:
    """The values a reason argument can take: its string constants, and those returned by a
    function of the same module it calls (``_field_problem(action) or "not_legal"``)."""
    if isinstance(node, ast.Constant):
        assert node.value is None or isinstance(node.value, str), ast.unparse(node)
        yield node.value
    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        *first, last = node.values
        for value in first:  # ``x or y`` is never a falsy x
            yield from (v for v in _literals(value, functions) if v)
        yield from _literals(last, functions)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = functions[node.func.id]
        for sub in ast.walk(function):
            if isinstance(sub, ast.Return) and sub.value is not None:
                yield from _literals(sub.value, functions)
    else:
        raise AssertionError(f"a reason the test cannot follow: {ast.unparse(node)}")


def raised_refusals() -> set[tuple[str, str | None]]:
    """Every ``(code, reason)`` an ``IllegalActionError(...)`` in the rules package names."""
    found: set[tuple[str, str | None]] = set()
    for path in sorted(MAJIANG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "IllegalActionError"):
                continue
            if path.name == "errors.py":  # the unpickler passes a refusal's own fields on
                continue
            code = node.args[0]
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
                f"{path.name}:{node.lineno}: the code must be a literal"
            )
            reason = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "reason"), ast.Constant(None)
            )
            found |= {(code.value, r) for r in _literals(reason, functions)}
    return found


def test_every_refusal_the_engine_raises_has_words_and_every_word_is_raised() -> None:
    raised = raised_refusals()
    assert len(raised) > 10
    assert raised - set(TEMPLATES) == set(), "refusals without words in majiang.refusals"
    # The codes' own words are the fallback (data missing, an unknown reason): kept even
    # where every raise names a reason.
    unused = {key for key in set(TEMPLATES) - raised if key[1] is not None}
    assert unused == set(), "words no refusal uses"
    assert {code for code, _ in raised} == CODES


def test_a_codes_own_words_need_no_data() -> None:
    for (code, reason), template in TEMPLATES.items():
        if reason is None:
            assert "{" not in template, code
            assert words(Refusal(code)) == template


# -- the words are Chinese, for every action, tile and variant -----------------------------


def _samples() -> Iterator[dict[str, Any]]:
    yield {}
    for kind in ActionType:
        for tile in (*Tile, None):
            for declare in (False, True):
                for variant in ("duyun", "zigong", "basic"):
                    yield {"action": kind.value, "tile": tile, "declare": declare,
                           "variant": variant}


@pytest.mark.parametrize(("code", "reason"), sorted(TEMPLATES, key=str))
def test_every_template_words_every_action_and_tile_in_chinese(
    code: str, reason: str | None
) -> None:
    for data in _samples():
        message = words(Refusal(code, reason, data))
        assert is_players_chinese(message), (code, reason, data, message)
        tile = data.get("tile")
        if tile is not None and "{tile}" in TEMPLATES[code, reason]:
            assert tile.chinese in message


def test_unknown_reasons_and_missing_data_fall_back_to_the_codes_words() -> None:
    assert words(Refusal("illegal_action", "not_legal")) == "现在不能这样操作"
    assert words(Refusal("baogang_not_offered", "not_listed")) == "只能勾选列出的杠牌"
    assert words(Refusal("not_your_turn", "no_such_reason")) == "现在不是你操作的时候"
    assert words(Refusal("no_such_code")) == "现在不能这样操作"


# -- each kind, raised by the engine --------------------------------------------------------


def _basic() -> Round:
    return deal(get_variant("basic"), CLAIM_HANDS)


def _basic_after_discard() -> Round:
    return play(_basic(), "0 discard 5m")


def _basic_decided() -> Round:
    return play(_basic(), "0 discard 5m; 2 win")


def _basic_ended() -> Round:
    return play(_basic(), "0 discard 5m; 1 pass; 2 win")


def _duyun_may_baoting() -> Round:
    """D9: the dealer may 报听 with 8p."""
    return deal(DUYUN, ["123m456m789m234p58p", "336699m2258s147p", "2379m4578s13579p"],
                draws="9s1s2s")


def _zigong() -> Round:
    return deal(ZIGONG, BAOGANG_HANDS, draws="9s1p2p", back="7s8s")


def _zigong_panel_open() -> Round:
    return play(_zigong(), "0 declare 4p")


def _zigong_case3() -> Round:
    return deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"], draws="1p6s1s", back="5s")


KINDS: list[tuple[Callable[[], Round], Action, Refusal, str]] = [
    (_basic_ended, Action(A.DISCARD, 3, Tile.M1), Refusal("hand_over"), "本局已结束"),
    (_basic, Action(A.DISCARD, 4, Tile.M5), Refusal("bad_seat"), "座位无效"),
    (_basic, Action(A.DISCARD, 1, Tile.M5), Refusal("not_your_turn"), "现在不是你操作的时候"),
    (_basic_decided, Action(A.PASS, 2), Refusal("already_decided"),
     "你已经做出选择，请等待其他玩家"),
    (_basic, Action(A.DISCARD, 0, Tile.M1),
     Refusal("illegal_action", "not_legal",
             {"action": "discard", "tile": Tile.M1, "declare": False, "variant": "basic"}),
     "现在不能打出一万"),
    (_basic_after_discard, Action(A.KONG, 1, Tile.M5),
     Refusal("illegal_action", "not_legal",
             {"action": "kong", "tile": Tile.M5, "declare": False, "variant": "basic"}),
     "现在不能杠五万"),
    (_basic_after_discard, Action(A.PUNG, 1),
     Refusal("illegal_action", "needs_tile",
             {"action": "pung", "tile": None, "declare": False, "variant": "basic"}),
     "碰要指明是哪张牌"),
    (_basic, Action(A.PASS, 0, Tile.S1),
     Refusal("illegal_action", "no_tile",
             {"action": "pass", "tile": Tile.S1, "declare": False, "variant": "basic"}),
     "过不用指明牌"),
    (_duyun_may_baoting, Action(A.WIN, 0, declare=True),
     Refusal("illegal_action", "no_declare",
             {"action": "win", "tile": None, "declare": True, "variant": "duyun"}),
     "胡时不能报听，只有出牌时可以同时报听"),
    (_duyun_may_baoting, Action(A.DISCARD, 0, Tile.M1, declare=True),
     Refusal("illegal_action", "not_legal",
             {"action": "discard", "tile": Tile.M1, "declare": True, "variant": "duyun"}),
     "现在不能打出一万并报听"),
    (_basic, Action(A.DISCARD, 0, Tile.M5, ticks=(Tile.S1,)),
     Refusal("illegal_action", "ticks_without_declare"), "只有报叫时才能报杠"),
    (_duyun_may_baoting, Action(A.DISCARD, 0, Tile.P8, declare=True, ticks=(Tile.P2,)),
     Refusal("baogang_not_allowed"), "本玩法没有报杠"),
    (_zigong_panel_open, action("0 discard 3p"), Refusal("illegal_action", "panel_open"),
     "请先选择报杠或不报"),
    (_zigong, action("0 declare 4p ticks="), Refusal("baogang_empty"),
     "没勾选任何选项，不能报杠"),
    (_zigong, action("0 declare 4p ticks=1p4p"),
     Refusal("baogang_not_offered", "not_listed", {"tile": Tile.P4}),
     "四筒不能报杠，只能勾选列出的杠牌"),
    (_zigong_panel_open, action("0 baogang ticks=2p2p"),
     Refusal("baogang_not_offered", "repeated", {"tile": Tile.P2}),
     "二筒勾选了不止一次，每张杠牌只能勾选一次"),
    (_zigong_case3, action("1 declare ticks=1p1s"), Refusal("baogang_too_many"),
     "抱歉，不能选择更多的杠"),
]


@pytest.mark.parametrize(("make", "bad", "refusal", "message"), KINDS,
                         ids=[f"{r.code}-{r.reason}-{i}" for i, (_, _, r, _) in enumerate(KINDS)])
def test_each_kind_of_refusal_is_data_worded_in_chinese(
    make: Callable[[], Round], bad: Action, refusal: Refusal, message: str
) -> None:
    rnd = make()
    before = rnd.snapshot()
    with pytest.raises(IllegalActionError) as info:
        rnd.apply(bad)
    error = info.value
    assert error.refusal == refusal
    assert (error.code, error.message) == (refusal.code, message)
    assert is_players_chinese(error.message)
    assert str(error) == f"{refusal.code}: {message}"
    assert rnd.snapshot() == before


def test_every_code_has_a_kind_above() -> None:
    assert {r.code for _, _, r, _ in KINDS} | {"hand_not_over"} == CODES
    assert {(r.code, r.reason) for _, _, r, _ in KINDS} | {("hand_not_over", None)} >= (
        raised_refusals()
    )


def test_hand_not_over() -> None:
    with pytest.raises(IllegalActionError) as info:
        _basic().settlement()
    assert (info.value.code, info.value.message) == ("hand_not_over", "本局尚未结束")


def test_a_refusal_survives_pickling() -> None:
    error = IllegalActionError("baogang_not_offered", "not_listed", tile=Tile.S1)
    again = pickle.loads(pickle.dumps(error))
    assert again.refusal == error.refusal and dict(again.refusal.data) == {"tile": Tile.S1}
    assert again.message == "幺鸡不能报杠，只能勾选列出的杠牌"
