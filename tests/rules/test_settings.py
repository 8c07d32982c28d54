"""Variant settings schemas: defaults and validation errors in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from majiang.errors import SettingsError
from majiang.round import Round
from majiang.settings import Setting, SettingsSchema
from majiang.variants import VARIANTS, get_variant

BASIC = get_variant("basic")


def test_defaults() -> None:
    assert BASIC.schema.validate(None) == {
        "players": 4,
        "base_stake": 1,
        "hands_per_match": 8,
        "turn_seconds": 15,
        "timeout_takes_win": True,
        "auto_play_after": 2,
        "offline_pause_seconds": 60,
        "offline_dissolve_seconds": 600,
    }
    assert BASIC.schema.validate({"players": 3})["players"] == 3


@pytest.mark.parametrize(
    ("values", "errors"),
    [
        ({"colour": "red"}, {"colour": "未知的设置项"}),
        ({"players": "4"}, {"players": "应为整数"}),
        ({"players": True}, {"players": "应为整数"}),
        ({"players": 5}, {"players": "可选值: 2, 3, 4"}),
        ({"base_stake": 0}, {"base_stake": "不能小于 1"}),
        ({"turn_seconds": 61}, {"turn_seconds": "不能大于 60"}),
        ({"timeout_takes_win": 1}, {"timeout_takes_win": "应为开或关 (true/false)"}),
        (
            {"players": 1, "x": 1, "base_stake": 1001},
            {"x": "未知的设置项", "players": "可选值: 2, 3, 4", "base_stake": "不能大于 1000"},
        ),
    ],
)
def test_validation_errors(values: dict[str, Any], errors: dict[str, str]) -> None:
    with pytest.raises(SettingsError) as info:
        BASIC.schema.validate(values)
    assert info.value.errors == errors


def test_round_deal_validates_settings() -> None:
    with pytest.raises(SettingsError) as info:
        Round.deal(BASIC, {"players": 6}, seed="s")
    assert info.value.errors == {"players": "可选值: 2, 3, 4"}


def test_choice_setting() -> None:
    schema = SettingsSchema((Setting("mode", "choice", "a", "模式", choices=("a", "b")),))
    assert schema.validate({"mode": "b"}) == {"mode": "b"}
    with pytest.raises(SettingsError) as info:
        schema.validate({"mode": "c"})
    assert info.value.errors == {"mode": "可选值: a, b"}
    assert schema.to_json() == [
        {
            "name": "mode",
            "label": "mode",
            "kind": "choice",
            "default": "a",
            "description": "模式",
            "choices": ["a", "b"],
        }
    ]


def test_choice_labels_name_the_choices() -> None:
    setting = Setting("seat", "choice", "w", "谁坐庄", choices=("w", "d"),
                      choice_labels=("赢家", "点炮者"))
    assert setting.display("d") == "点炮者"
    assert Setting("on", "bool", True, "开关").display(False) == "关"
    assert Setting("n", "int", 1, "数").display(7) == "7"
    assert setting.to_json()["choice_labels"] == ["赢家", "点炮者"]
    with pytest.raises(ValueError, match=r"可选值: w \(赢家\), d \(点炮者\)"):
        setting.validate("x")
    with pytest.raises(ValueError, match="one label per choice"):
        Setting("bad", "choice", "a", "x", choices=("a", "b"), choice_labels=("甲",))


def test_every_choice_setting_of_the_real_variants_has_chinese_names() -> None:
    for variant in VARIANTS.values():
        for setting in variant.schema.settings:
            if setting.kind == "choice":
                assert len(setting.choice_labels) == len(setting.choices), setting.name


def test_schema_json_and_registry() -> None:
    assert "basic" in VARIANTS and VARIANTS["basic"] is BASIC
    players = BASIC.schema["players"].to_json()
    assert players == {
        "name": "players",
        "label": "人数",
        "kind": "int",
        "default": 4,
        "description": "玩家人数",
        "choices": [2, 3, 4],
    }
    assert BASIC.schema["turn_seconds"].to_json()["minimum"] == 5
    with pytest.raises(KeyError):
        BASIC.schema["nope"]
    with pytest.raises(KeyError):
        get_variant("nope")
    # every default of every registered variant validates
    for variant in VARIANTS.values():
        assert variant.schema.validate(None) == variant.schema.defaults()
