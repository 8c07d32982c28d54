"""Tiles and deal (Z1), actions (Z2), claims (Z3), 血战 (Z4), dealer (Z5), timeouts (Z6)."""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.match import Match
from majiang.round import Round
from majiang.state import Phase, WinSource
from majiang.tiles import Tile
from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, play, play_out

THREE_WAY = [
    "5p36p2233p678s44p4s1s",
    "55p1p7p8p9s5s6s7s3p6p9p1s",
    "123s456s789s46p99p",
    "123s456s789s46p88p",
]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_Z1_72_tiles_dealer_14_others_13(players: int) -> None:
    """72 tiles of 条 and 筒; the dealer holds 14, the others 13; no 万 in the wall."""
    rnd, _ = Round.deal(ZIGONG, {"players": players}, dealer=1, seed="z1")
    assert len(rnd.wall.tiles) == 72
    assert all(t >= Tile.S1 for t in rnd.wall.tiles)
    assert [sum(s.hand) for s in rnd.seats] == [14 if i == 1 else 13 for i in range(players)]
    assert rnd.wall.remaining == 72 - 13 * players - 1
    with pytest.raises(ValueError):
        deal(ZIGONG, ["1m" + A[:-3], B, C][:players])


def test_Z2_no_chow() -> None:
    """Seat 1 holds 46p: the dealer's 5p opens no window for it (there is no 吃)."""
    rnd = deal(ZIGONG, ["124578s12478p5p3p6s", "46p1235689s1378p"])
    play(rnd, "0 discard 5p")
    assert rnd.window is None and rnd.turn == 1
    play_out(rnd)
    assert lines(rnd) == []


def test_Z3_multi_win_waits_for_every_seat_and_Z4_Z5() -> None:
    """Seat 1 may 碰 the 5p, seats 2 and 3 may 胡 it. Seat 1 chooses first, then seat 2: the
    window stays open (they see "waiting") until seat 3 decides. 胡 beats 碰: 一炮多响.

    Z4: the next to draw is the first seat after the discarder that is neither it nor a
    winner (seat 1). Z5: after 一炮多响 the discarder deals next.
    """
    rnd = deal(ZIGONG, THREE_WAY, tiandihu=False)
    play(rnd, "2 pass; 3 pass; 0 discard 5p")
    assert rnd.pending() == (1, 2, 3)
    play(rnd, "1 pung 5p")
    assert rnd.pending() == (2, 3) and rnd.phase is Phase.CLAIM
    assert rnd.observation(1)["waiting"] is True and rnd.observation(1)["me"]["legal"] == []
    play(rnd, "2 win")
    assert rnd.pending() == (3,) and rnd.wins == []
    play(rnd, "3 win")
    assert [w.seat for w in rnd.wins] == [2, 3]
    assert rnd.seats[1].melds == [] and rnd.turn == 1 and rnd.seats[1].drawn is not None
    play_out(rnd)
    assert lines(rnd) == [(0, 2, "牌型:平胡", 1, "Z11"), (0, 3, "牌型:平胡", 1, "Z11")]
    assert rnd.next_dealer() == (0, 2)


def test_Z4_single_win_next_drawer_and_Z5_winner_deals() -> None:
    """Seat 2 alone wins the dealer's 5p: seat 3 (the first after the winner) draws next;
    the hand goes on (血战) and the winner deals the next hand."""
    rnd = deal(ZIGONG, THREE_WAY, tiandihu=False)
    play(rnd, "2 pass; 3 pass; 0 discard 5p; 1 pass; 2 win; 3 pass")
    assert rnd.turn == 3 and not rnd.ended
    play_out(rnd)
    # Seat 3 stays ready on 5p: the two seats not ready 查叫 it at exhaustion (Z16).
    assert lines(rnd) == [
        (0, 2, "牌型:平胡", 1, "Z11"),
        (0, 3, "查叫", 1, "Z16"),
        (1, 3, "查叫", 1, "Z16"),
    ]
    assert rnd.next_dealer() == (2, 1)


def test_Z4_two_players_end_at_first_win() -> None:
    """A 2-player hand ends at the first win."""
    rnd = deal(ZIGONG, ["5p12458s12478p9s3s3p", "123s456s789s46p99p"])
    play(rnd, "1 pass; 0 discard 5p; 1 win")
    assert rnd.ended and rnd.end_reason == "last_player"
    assert lines(rnd) == [(0, 1, "牌型:地胡", 16, "Z11")]


def test_Z5_first_dealer_from_seed_and_no_winner_stays() -> None:
    """The first dealer is drawn from the match seed, the same every time; with no winner the
    dealer stays."""
    dealers = {Match.start(ZIGONG, {}, seed=f"s{i}").dealer for i in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Match.start(ZIGONG, {}, seed="abc").dealer == Match.start(ZIGONG, {}, seed="abc").dealer
    rnd = deal(ZIGONG, ["124578s12457p36p6s", B, C, "1357s1357p36699p"], dealer=0, streak=2)
    play_out(rnd)
    assert lines(rnd) == []
    assert rnd.next_dealer() == (0, 3)


def test_Z5_after_multi_robbing_the_robbed_player_deals() -> None:
    """Seat 1 pungs the dealer's 6s, draws the fourth and adds it (补杠): seats 2 and 3 both
    rob it (多人抢杠胡), so the robbed seat 1 deals next. With one robber, the robber deals."""
    hands = [
        "6s1234s789s1p4p7p2p5p8p",
        "66s123s7s33p6p99p2s5s",
        "123p456p789p45s99s",
        "123p456p789p57s88s",
    ]
    for robbers, winners, dealer in (("2 win; 3 win", [2, 3], 1), ("2 win; 3 pass", [2], 2)):
        rnd = deal(ZIGONG, hands, draws="5p8p4p6s")
        play(rnd, "2 pass; 3 pass; 0 discard 6s; 1 pung 6s; 2 pass; 3 pass; 1 discard 7s")
        play(rnd, "2 discard 5p; 3 discard 8p; 0 discard 4p; 1 kong 6s")
        assert rnd.phase is Phase.ROB and rnd.pending() == (2, 3)
        play(rnd, robbers)
        assert [(w.seat, w.source, w.from_seat) for w in rnd.wins] == [
            (seat, WinSource.ROBBING, 1) for seat in winners
        ]
        play_out(rnd)
        assert rnd.next_dealer() == (dealer, 1)


ZIGONG_SETTINGS_TABLE = """
| `players` | 4 | 2, 3, 4 |
| `base_stake` (底分) | 1 | positive integer |
| `hands_per_match` | 8 | 4, 8, 16 |
| `turn_seconds` | 15 | 5–60 |
| `timeout_takes_win` | on | on/off |
| `auto_play_after` | 2 | 1–5 |
| `fan_cap` | 4 | 3, 4, 5, 6 |
| `offline_pause_seconds` | 60 | 10–600 |
| `offline_dissolve_seconds` | 600 | 60–7200 |
| `zimo` | `add_base` | `add_base`, `add_fan`, `none` |
| `dianganghua` | `zimo` | `zimo`, `feeder` |
| `tiandihu` | on | on/off |
| `luobo` | 0 | 0–4 |
| `multi_use` | off | on/off |
| `hujiao_zhuanyi` (呼叫转移) | on | on/off |
| `chajiao_tuishui` (退税) | on | on/off |
| `claim_pause_ms` | 0 | 0–3000 |
| `declare_pause_ms` | 2000 | 0–5000 |
"""
"""The settings table at the end of ``shared/rules/zigong.md``, row for row, then the
table-wide settings of ``shared/rules/README.md`` H4 and H3 (H3 gives no upper bound for
``declare_pause_ms``; the schema allows up to 5 s)."""


def _table_value(text: str) -> object:
    text = text.strip().strip("`")
    if text in ("on", "off"):
        return text == "on"
    return int(text) if text.isdigit() else text


def test_Z1_settings_schema_matches_the_table() -> None:
    """Every setting of the Z rulings' table, in its order, with its default and choices."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in ZIGONG_SETTINGS_TABLE.strip().splitlines()
    ]
    names = [row[0].split("`")[1] for row in rows]
    assert list(ZIGONG.schema.names) == names
    assert ZIGONG.schema.defaults() == {
        name: _table_value(row[1]) for name, row in zip(names, rows, strict=True)
    }
    for name, (_, default, choices) in zip(names, rows, strict=True):
        setting = ZIGONG.schema[name]
        if choices == "on/off":
            assert setting.kind == "bool", name
        elif choices == "positive integer":
            assert (setting.kind, setting.minimum, setting.choices) == ("int", 1, ()), name
        elif "–" in choices:
            low, high = (int(x) for x in choices.split("–"))
            assert (setting.minimum, setting.maximum, setting.choices) == (low, high, ()), name
        else:
            assert setting.choices == tuple(_table_value(c) for c in choices.split(",")), name
        assert setting.validate(_table_value(default)) == _table_value(default)


def test_Z6_timeouts() -> None:
    """An offered win is taken (``timeout_takes_win``) or passed; on a turn the drawn tile,
    or the rightmost tile (条 before 筒), is discarded."""
    for takes, expected in ((True, ActionType.WIN), (False, ActionType.PASS)):
        rnd = deal(ZIGONG, THREE_WAY, tiandihu=False, timeout_takes_win=takes)
        assert rnd.timeout_action(2) == Action(ActionType.PASS, 2)  # no 报叫 on a timeout
        play(rnd, "2 pass; 3 pass")
        assert rnd.timeout_action(0) == Action(ActionType.DISCARD, 0, Tile.P6)
        play(rnd, "0 discard 5p")
        assert rnd.timeout_action(2) == Action(expected, 2)
    play(rnd, "1 pass; 2 pass; 3 pass")
    assert rnd.timeout_action(1) == Action(ActionType.DISCARD, 1, rnd.seats[1].drawn)
    play_out(rnd)
    assert lines(rnd) == [(p, r, "查叫", 1, "Z16") for p in (0, 1) for r in (2, 3)]
