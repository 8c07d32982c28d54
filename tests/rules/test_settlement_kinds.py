"""Every settlement line has a machine kind and a registered ruling (D22, Z11–Z21).

Checked over random hands of both variants (hypothesis) and over every worked example in
``docs/rules/``, which between them produce every :class:`LineKind`.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from majiang.errors import UnknownRulingError
from majiang.record import replay
from majiang.round import Round
from majiang.rulings import RULINGS, ruling, rulings_for
from majiang.settlement import LineKind, line_kind, line_with_kind
from majiang.variants import get_variant
from majiang.variants.duyun.settle import DuyunPlayer, DuyunSummary
from majiang.variants.zigong.settle import ZigongPlayer, ZigongSummary

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "rules").glob("*/*.json"))

_SPEC = importlib.util.spec_from_file_location(
    "fuzz_variants", ROOT / "benchmarks" / "fuzz_variants.py"
)
assert _SPEC is not None and _SPEC.loader is not None
fuzz = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fuzz)


def check_lines(rnd: Round) -> set[LineKind]:
    """Every line of the ended ``rnd`` has a kind, in its JSON too; a line stored without
    it derives the same kind; its ruling is one of the variant's; the lines sum to zero."""
    result = rnd.settlement()
    net = [0] * rnd.players
    for line in result.lines:
        assert isinstance(line.kind, LineKind)
        data = line.to_json()
        assert data["kind"] == line.kind.value
        legacy = {k: v for k, v in data.items() if k != "kind"}
        assert line_kind(legacy) is line.kind, line
        assert line_with_kind(legacy) == data
        assert ruling(line.ruling).variant == rnd.variant.id, line
        net[line.payer] -= line.points
        net[line.payee] += line.points
    assert sum(net) == 0 and tuple(net) == result.totals
    return {line.kind for line in result.lines}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["duyun", "zigong"]), st.integers(0, 2**32 - 1))
def test_D22_Z11_random_hands_have_kinds_and_registered_rulings(variant_id: str, seed: int) -> None:
    variant = get_variant(variant_id)
    rng = random.Random(seed)
    room = fuzz.random_settings(variant.schema, rng)
    rnd = fuzz.play_random(variant, room, f"k{seed}", rng, dealer=rng.randrange(room["players"]))
    check_lines(rnd)


def test_worked_examples_have_kinds_and_cover_every_kind() -> None:
    assert len(EXAMPLES) >= 20
    seen: set[LineKind] = set()
    for path in EXAMPLES:
        seen |= check_lines(replay(json.loads(path.read_text(encoding="utf-8"))))
    assert seen == set(LineKind)


TYPES: dict[str, tuple[Any, Any]] = {
    "duyun": (DuyunSummary, DuyunPlayer),
    "zigong": (ZigongSummary, ZigongPlayer),
}


def test_D23_summaries_hold_exactly_the_keys_of_their_types() -> None:
    """The typed summaries are what the JSON holds: no key missing, none undeclared."""
    for path in EXAMPLES:
        rnd = replay(json.loads(path.read_text(encoding="utf-8")))
        summary_type, player_type = TYPES[rnd.variant.id]
        data = rnd.settlement().to_json()
        assert set(data["summary"]) == summary_type.__required_keys__, path.name
        assert len(data["players"]) == rnd.players
        for player in data["players"]:
            assert set(player) == player_type.__required_keys__, path.name
        for void in data["summary"].get("void", []):
            assert line_kind(void) is LineKind(void["kind"]) and void["void"]


@pytest.mark.parametrize(
    ("category", "ruling_id", "kind"),
    [
        ("牌型:清七对", "D6", LineKind.PATTERN),
        ("牌型:清一色", "Z11", LineKind.PATTERN),
        ("热炮", "D13", LineKind.WIN),
        ("萝卜", "Z13", LineKind.WIN),
        ("胡牌", "basic", LineKind.WIN),
        ("冲锋鸡", "D17", LineKind.CHICKEN),
        ("责任鸡", "D19", LineKind.CHICKEN),
        ("金鸡", "D15", LineKind.CHICKEN),
        ("转弯豆", "D11", LineKind.DOU),
        ("补杠", "Z14", LineKind.KONG),
        ("呼叫转移", "Z15", LineKind.CALL_TRANSFER),
        ("抢杠转移", "Z21", LineKind.ROB_TRANSFER),
        ("退税", "Z17", LineKind.TAX_REFUND),
        ("包牌", "D8", LineKind.BAOPAI),
        ("反查叫", "Z18", LineKind.CHAJIAO),
        ("查叫", "D21", LineKind.CHAJIAO),
    ],
)
def test_legacy_lines_get_their_kind_from_the_category(
    category: str, ruling_id: str, kind: LineKind
) -> None:
    """A line stored before ``kind`` existed (a JSON row) gets the kind its category means."""
    stored = {"payer": 1, "payee": 0, "category": category, "points": 3, "ruling": ruling_id}
    assert line_kind(stored) is kind
    assert line_with_kind(stored) == {**stored, "kind": kind.value}


def test_a_stored_kind_wins_and_odd_rows_do_not_crash() -> None:
    assert line_kind({"category": "退税", "kind": "kong"}) is LineKind.KONG
    assert line_kind({"category": "退税", "kind": "no-such-kind"}) is LineKind.TAX_REFUND
    assert line_kind({}) is LineKind.WIN


CITATION = re.compile(r"\b([DZH][0-9]+[a-z]?(?:\.[0-9]+)?)\b")


def test_every_ruling_cited_in_the_package_is_registered() -> None:
    cited: dict[str, str] = {}
    for path in sorted((ROOT / "majiang").rglob("*.py")):
        for found in CITATION.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(found, str(path.relative_to(ROOT)))
    assert {"D6", "D10a", "D21.3", "Z20"} <= set(cited)
    unknown = {}
    for found, where in cited.items():
        try:
            ruling(found)
        except UnknownRulingError:
            unknown[found] = where
    assert not unknown


def test_registry_lookups() -> None:
    assert ruling("D21.3") is ruling("D21") and ruling("D21").variant == "duyun"
    assert ruling("Z20").title_zh == "报杠"
    with pytest.raises(UnknownRulingError) as info:
        ruling("D24")
    assert info.value.ruling_id == "D24"
    duyun = [r.id for r in rulings_for("duyun")]
    assert duyun[:3] == ["D1", "D2", "D3"] and "D10a" in duyun
    assert duyun[-3:] == ["H1", "H2", "H4"]
    assert [r.id for r in rulings_for("zigong")][-4:] == ["H1", "H2", "H3", "H4"]
    assert not any(r.startswith("Z") for r in duyun)
    assert rulings_for("nope") == ()


def test_registry_holds_every_numbered_ruling_once_with_a_one_line_summary() -> None:
    ids = list(RULINGS)
    expected = (
        [f"D{i}" for i in range(1, 24)]
        + ["D10a"]
        + [f"Z{i}" for i in range(1, 22)]
        + [f"H{i}" for i in range(1, 5)]
        + ["basic"]
    )
    assert sorted(ids) == sorted(expected)
    for entry in RULINGS.values():
        assert entry.id == ruling(entry.id).id
        assert entry.title_zh and entry.summary_zh and "\n" not in entry.summary_zh
        assert re.search(r"[\u4e00-\u9fff]", entry.summary_zh), entry.id
