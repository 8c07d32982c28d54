"""都匀: table, actions, claims, dealer and timers (D1, D2, D3, D4, D5)."""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.round import Round
from majiang.tiles import parse_tile
from majiang.variants.duyun.chickens import first_chicken_value
from tests.rules.scenario import DUYUN, deal, each_pays, lines, play

OFF = {"fanji": "off"}


@pytest.mark.parametrize("players", [3, 4])
def test_D1_deal_108_tiles_dealer_14_others_13(players: int) -> None:
    rnd, _ = Round.deal(DUYUN, {"players": players}, dealer=1, seed="d1")
    assert len(rnd.wall.tiles) == 108
    sizes = [sum(s.hand) for s in rnd.seats]
    assert sizes == [14 if seat == 1 else 13 for seat in range(players)]
    assert rnd.wall.remaining == 108 - 13 * players - 1
    assert rnd.pending() == (1,)  # play starts with the dealer's discard


DUYUN_SETTINGS_TABLE = """
| `players` | 4 | 3, 4 |
| `base_stake` | 1 | positive integer |
| `hands_per_match` | 8 | 4, 8, 16 |
| `turn_seconds` | 15 | 5–60 |
| `timeout_takes_win` | on | on/off |
| `auto_play_after` | 2 | 1–5 timeouts |
| `offline_pause_seconds` | 60 | 10–600 |
| `offline_dissolve_seconds` | 600 | 60–7200 |
| `multi_win_dealer` | `first_winner` | `first_winner`, `discarder` |
| `pinghu_discard_needs_dou` | on | on/off |
| `baopai` | on | on/off |
| `zimo_bonus` | 1 | 0–2 |
| `fanji` | `next` | `next`, `up_down`, `off` |
| `mantang` | on | on/off |
| `first_chicken` | `hero` | `hero` (3/6), `charge` (2/4) |
| `claim_pause_ms` | 0 | 0–3000 |
"""
"""The settings table at the end of ``shared/rules/duyun.md``, row for row, then the
table-wide setting of ``shared/rules/README.md`` H4."""


def _table_value(text: str) -> object:
    """A default cell: on/off, a number or a code."""
    text = text.strip().strip("`")
    if text in ("on", "off"):
        return text == "on"
    return _choice_value(text)


def _choice_value(text: str) -> object:
    """One entry of a choices cell: a number or a code (`off` is a code here)."""
    text = text.strip().strip("`")
    return int(text) if text.isdigit() else text


def test_D1_settings_schema_matches_the_table() -> None:
    assert list(DUYUN.schema.names) == [
        "players",
        "base_stake",
        "hands_per_match",
        "turn_seconds",
        "timeout_takes_win",
        "auto_play_after",
        "offline_pause_seconds",
        "offline_dissolve_seconds",
        "multi_win_dealer",
        "pinghu_discard_needs_dou",
        "baopai",
        "zimo_bonus",
        "fanji",
        "mantang",
        "first_chicken",
        "claim_pause_ms",
    ]
    assert DUYUN.schema.defaults() == {
        "players": 4,
        "base_stake": 1,
        "hands_per_match": 8,
        "turn_seconds": 15,
        "timeout_takes_win": True,
        "auto_play_after": 2,
        "offline_pause_seconds": 60,
        "offline_dissolve_seconds": 600,
        "multi_win_dealer": "first_winner",
        "pinghu_discard_needs_dou": True,
        "baopai": True,
        "zimo_bonus": 1,
        "fanji": "next",
        "mantang": True,
        "first_chicken": "hero",
        "claim_pause_ms": 0,
    }
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in DUYUN_SETTINGS_TABLE.strip().splitlines()
    ]
    names = [row[0].strip("`") for row in rows]
    assert list(DUYUN.schema.names) == names
    for name, (_, default, choices) in zip(names, rows, strict=True):
        setting = DUYUN.schema[name]
        if choices == "on/off":
            assert setting.kind == "bool", name
        elif choices == "positive integer":
            # The table gives no upper bound; the schema's cap is not checked here.
            assert (setting.kind, setting.minimum, setting.choices) == ("int", 1, ()), name
            with pytest.raises(ValueError):
                setting.validate(0)
        elif "–" in choices:
            low, high = (int(x) for x in choices.removesuffix(" timeouts").split("–"))
            assert (setting.kind, setting.minimum, setting.maximum, setting.choices) == (
                "int",
                low,
                high,
                (),
            ), name
        else:
            # "`hero` (3/6)": the choice is the code before the bracket.
            values = tuple(_choice_value(c.split("(")[0]) for c in choices.split(","))
            assert setting.choices == values, name
            for value in values:
                assert setting.validate(value) == value
        assert setting.validate(_table_value(default)) == _table_value(default)
    # D17: the values in brackets of the `first_chicken` row, plain and under 金鸡.
    for choice, values in (("hero", (3, 6)), ("charge", (2, 4))):
        rnd = deal(
            DUYUN,
            ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"],
            first_chicken=choice,
        )
        assert (first_chicken_value(rnd, False), first_chicken_value(rnd, True)) == values


def test_D2_no_chow_on_a_discard() -> None:
    rnd = deal(DUYUN, ["234566m2468s2468p", "123m456m789m234p5p", "3579m3579s3579p9m"], **OFF)
    play(rnd, "0:discard:3m")  # seat 1 holds 45m but there is no 吃
    assert rnd.window is None and rnd.pending() == (1,)


def test_D2_kong_only_on_a_drawn_turn_and_zhuanwan_needs_a_tile_drawn_after_the_pung() -> None:
    rnd = deal(
        DUYUN,
        ["234566m2468s2468p", "555m12346s8s9999p", "37899m3579s1357p"],
        draws="1m1p7p",
        **OFF,
    )
    play(rnd, "0:discard:5m")
    assert {a.type for a in rnd.legal_actions(1)} == {
        ActionType.KONG,
        ActionType.PUNG,
        ActionType.PASS,
    }
    play(rnd, "1:pung")
    assert {a.type for a in rnd.legal_actions(1)} == {ActionType.DISCARD}  # no 暗杠 of 9p
    play(rnd, "1:discard:8s", "2:discard:1m", "0:discard:1p")
    kongs = [a.tile for a in rnd.legal_actions(1) if a.type is ActionType.KONG]
    assert kongs == [parse_tile("9p")]  # the kept 5m was not drawn after the 碰


# seat 1 discards 5p after its first draw: seats 2 (大对子) and 3 (小七对) both win on it.
MULTI = ["3578m2468s2469p9s8s", "3579m23457s1389p", "222m444m666m999s5p", "11m33m33s44s66p77p5p"]
# the same, with a dealer whose 七对 also waits on 5p
MULTI_DEALER = ["88m99m55s66s88p99p5p7m", *MULTI[1:]]


def test_D3_multi_win_discarder_pays_each_winner() -> None:
    rnd = deal(DUYUN, MULTI, draws="5p", **OFF)
    play(rnd, "0:discard:8s", "1:discard:5p", "2:win", "3:win")
    assert rnd.ended and sorted(w.seat for w in rnd.wins) == [2, 3]
    assert sorted(lines(rnd)) == [(1, 2, "牌型:大对子", 5, "D6"), (1, 3, "牌型:小七对", 10, "D6")]


@pytest.mark.parametrize(
    ("hands", "setting", "winners", "expected"),
    [
        (MULTI, "first_winner", ["2", "3"], (2, 1)),
        (MULTI, "discarder", ["2", "3"], (1, 1)),
        (MULTI_DEALER, "first_winner", ["0", "2", "3"], (0, 2)),
        (MULTI_DEALER, "discarder", ["0", "2", "3"], (1, 1)),
    ],
)
def test_D4_multi_win_next_dealer(
    hands: list[str], setting: str, winners: list[str], expected: tuple[int, int]
) -> None:
    rnd = deal(DUYUN, hands, draws="5p", multi_win_dealer=setting, **OFF)
    first = "0:discard:8s" if hands is MULTI else "0:discard:7m"
    play(rnd, first, "1:discard:5p", *(f"{w}:win" for w in winners))
    assert rnd.next_dealer() == expected
    if hands is MULTI_DEALER:
        assert sorted(lines(rnd)) == sorted(
            [
                (1, 0, "牌型:小七对", 10, "D6"),
                (1, 0, "连庄", 1, "D10a"),
                (1, 2, "牌型:大对子", 5, "D6"),
                (1, 3, "牌型:小七对", 10, "D6"),
            ]
        )


def test_D4_single_winner_deals_and_dealer_win_extends_streak() -> None:
    rnd = deal(
        DUYUN, ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"], streak=2, **OFF
    )
    play(rnd, "0:win")
    assert rnd.next_dealer() == (0, 3)
    rnd = deal(
        DUYUN,
        ["234566m2468s2468p", "123m456m789m234p5p", "3579m3579s3579p9m"],
        draws="5p",
        streak=2,
        **OFF,
    )
    play(rnd, "0:discard:8p", "1:win")
    assert rnd.next_dealer() == (1, 1)
    assert sorted(lines(rnd)) == sorted(
        [
            *each_pays([0, 2], 1, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10")),
            (0, 1, "连庄", 2, "D10a"),
        ]
    )


def test_D5_timeout_on_own_turn_discards_rightmost_tile() -> None:
    rnd = deal(DUYUN, ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"], **OFF)
    assert rnd.timeout_action(0) == Action(ActionType.WIN, 0)  # timeout_takes_win default on
    rnd = deal(
        DUYUN,
        ["123m456m789m234p55p", "336699m2258s147p", "2379m4578s13579p"],
        timeout_takes_win=False,
        draws="2s",
        **OFF,
    )
    # nothing drawn on the dealer's first turn: the last tile in 万/条/筒 order
    assert rnd.timeout_action(0) == Action(ActionType.DISCARD, 0, parse_tile("5p"))
    rnd.apply(rnd.timeout_action(0))  # type: ignore[arg-type]
    # seat 1 drew 2s: the drawn tile is the rightmost
    assert rnd.timeout_action(1) == Action(ActionType.DISCARD, 1, parse_tile("2s"))
    assert rnd.timeout_action(2) is None


def test_D5_timeout_after_pung_and_on_claims() -> None:
    rnd = deal(DUYUN, ["234566m2468s2468p", "555m12346s8s9999p", "37899m3579s1357p"], **OFF)
    play(rnd, "0:discard:5m")
    assert rnd.timeout_action(1) == Action(ActionType.PASS, 1)  # a claim: pass
    play(rnd, "1:pung")
    assert rnd.timeout_action(1) == Action(ActionType.DISCARD, 1, parse_tile("9p"))


@pytest.mark.parametrize("takes_win", [True, False])
def test_D5_timeout_on_an_offered_win(takes_win: bool) -> None:
    rnd = deal(
        DUYUN,
        ["3455m78m2468s245p9s", "222m444m666m999s5p", "3579m3578s3679p9m"],
        timeout_takes_win=takes_win,
        **OFF,
    )
    play(rnd, "0:discard:5p")
    action = rnd.timeout_action(1)
    assert action == Action(ActionType.WIN if takes_win else ActionType.PASS, 1)
    rnd.apply(action)  # type: ignore[arg-type]
    if takes_win:
        assert sorted(lines(rnd)) == [
            (0, 1, "牌型:大对子", 5, "D6"),
            (0, 1, "连庄", 1, "D10a"),
        ]
    else:
        assert rnd.turn == 1 and not rnd.wins  # passed; seat 1 drew (which ends the lock)


@pytest.mark.parametrize("takes_win", [True, False])
def test_D5_timeout_of_a_baoting_seat(takes_win: bool) -> None:
    rnd = deal(
        DUYUN,
        ["3455m78m2468s246p3s", "123m456m789m234p9s", "3579m3578s3679p9m"],
        draws="5p2m3m5p",
        timeout_takes_win=takes_win,
        **OFF,
    )
    play(rnd, "0:discard:3s", "1:declare:9s", "2:discard:2m", "0:discard:3m")
    action = rnd.timeout_action(1)
    assert action == (
        Action(ActionType.WIN, 1) if takes_win else Action(ActionType.DISCARD, 1, parse_tile("5p"))
    )
    rnd.apply(action)  # type: ignore[arg-type]
    if takes_win:
        assert sorted(lines(rnd)) == sorted(
            [
                *each_pays(
                    [0, 2], 1, ("牌型:平胡", 1, "D6"), ("自摸", 1, "D10"), ("报听", 10, "D10")
                ),
                (0, 1, "连庄", 1, "D10a"),
            ]
        )
