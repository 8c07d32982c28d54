"""Parts of rulings no other test checks: the 萝卜 clause of the 报杠 panel (Z20), 金钩钩 with an
暗杠 among the four melds (Z11), and who pays a 杠上开花 that follows a 直杠 and then an 暗杠 in
one turn under ``dianganghua=feeder`` (Z12).

Every expected value is worked out by hand from ``shared/rules/zigong.md``.

Not tested here:

- Z20's "not in a meld" clause cannot arise in play. The panel lists triplets the declarer
  holds three of, so at most one copy is left elsewhere, and a meld (碰 or 杠; there is no 吃)
  holds at least three copies of its tile. The panel is also built before any discard or meld
  exists: in the opening window, or on the dealer's first discard, which is held until the
  panel is answered.
- Z6's 托管 after ``auto_play_after`` timeouts: the timeout count and the 托管 flag live in the
  Django match code (``apps/matches/lifecycle.py``), not in the ``majiang`` package.
"""

from __future__ import annotations

import pytest

from majiang.actions import Action, ActionType
from majiang.errors import IllegalActionError
from majiang.state import MeldKind, Phase, WinSource
from majiang.tiles import Tile, parse_tile
from majiang.variants.zigong.baogang import options_for
from tests.rules.scenario import ZIGONG, A, B, C, action, deal, lines, notes, play, play_out

# -- Z20: a triplet whose fourth copy is a 萝卜 tile is not on the panel --------------------

# 2 players. Seat 1 holds the seed's case 3, 111p 23p 111s 23s 678s: ready at the deal, and
# with no 萝卜 its panel is 1s and 1p (see test_zigong_baojiao). Neither seat holds the fourth
# 1p or 1s, so when ``luobo`` takes them off the back of the wall they are 萝卜 tiles.
CASE3 = ["44599s5566789p99p", "111p23p111s23s678s"]


@pytest.mark.parametrize(
    ("back", "panel"),
    [
        ("", ["1s", "1p"]),  # control: no 萝卜, both triplets offered
        ("1p", ["1s"]),  # the fourth 1p is a 萝卜 tile
        ("1s", ["1p"]),  # the fourth 1s is a 萝卜 tile
    ],
)
def test_Z20_panel_leaves_out_a_triplet_whose_fourth_copy_is_luobo(
    back: str, panel: list[str]
) -> None:
    """Z20: "the player is shown every concealed triplet that could be konged later while the
    hand stays ready: exactly three identical tiles held, with the fourth copy still unseen
    (not discarded, not in a meld, not a 萝卜 tile)." A triplet whose fourth copy is the 萝卜
    tile is not shown, and ticking it is refused."""
    rnd = deal(ZIGONG, CASE3, back=back, luobo=len(back) // 2)
    assert rnd.observation(1)["luobo"] == ([back] if back else [])
    assert rnd.phase is Phase.DECLARE and rnd.pending() == (1,)
    play(rnd, "1 declare")
    assert rnd.observation(1)["me"]["baogang_panel"] == panel
    if back:
        # The 萝卜 triplet is not on the panel, so it cannot be ticked.
        with pytest.raises(IllegalActionError) as refused:
            rnd.apply(action(f"1 baogang ticks={back}"))
        assert refused.value.code == "baogang_not_offered"
        assert 1 in rnd.pending_declarations
    # The tile still offered can be ticked.
    play(rnd, f"1 baogang ticks={panel[0]}")
    assert rnd.seats[1].declared and rnd.seats[1].ticks == frozenset({parse_tile(panel[0])})


def test_Z20_no_panel_when_every_fourth_copy_is_luobo() -> None:
    """Z20: a triplet is shown only "with the fourth copy still unseen (... not a 萝卜 tile)",
    and "With no triplet to offer, no panel is shown, and that too is 不报." With the fourth
    1p and the fourth 1s both 萝卜 tiles, seat 1's 报叫 is decided at once, as 不报."""
    rnd = deal(ZIGONG, CASE3, back="1p1s", luobo=2)
    assert rnd.observation(1)["luobo"] == ["1p", "1s"]
    assert options_for(rnd, 1, Action(ActionType.DECLARE, 1)) == []
    events = rnd.apply(action("1 declare"))
    # Decided at once: no panel step, and (seat 1 being the only one asked) play goes on.
    assert events[0].type == "decided"
    assert "baogang_panel" not in [e.type for e in events]
    assert rnd.pending_declarations == {} and "baogang_panel" not in rnd.observation(1)["me"]
    assert rnd.phase is Phase.TURN and rnd.turn == 0
    assert rnd.seats[1].declared and rnd.seats[1].ticks is None  # 不报: no kongs this hand


# -- Z11: 金钩钩 with an 暗杠 among the four melds ----------------------------------------------

# 2 players, 天胡/地胡 off. Seat 1 is dealt 5555p 11s 22s 33p 9s 4s 7p. It draws 8s, makes the
# 暗杠 5p (replacement 1p from the back) and discards 4s; then it 碰s the dealer's 1s, 2s and 3p,
# discarding 7p, 8s and 1p. It is left with the lone 9s and wins the dealer's 9s.
JINGOUGOU_HANDS = ["1s2s9s3p4s6s8s1p2p4p6p8p9p7s", "5555p11s22s33p9s4s7p"]
JINGOUGOU_SCRIPT = (
    "0 discard 6p; 1 kong 5p; 1 discard 4s;"
    " 0 discard 1s; 1 pung 1s; 1 discard 7p;"
    " 0 discard 2s; 1 pung 2s; 1 discard 8s;"
    " 0 discard 3p; 1 pung 3p; 1 discard 1p;"
    " 0 discard 9s"
)


def test_Z11_jingougou_counts_with_a_concealed_kong_among_the_melds() -> None:
    """Z11: "金钩钩 | every set a declared meld (碰 or any 杠, 暗杠 included); the win completes
    the lone pair tile | +1". One of the four melds is an 暗杠: the bonus still counts."""
    rnd = deal(ZIGONG, JINGOUGOU_HANDS, draws="8s3s7s8p9p", back="1p", tiandihu=False)
    play(rnd, JINGOUGOU_SCRIPT)
    assert [(m.kind, m.tile) for m in rnd.seats[1].melds] == [
        (MeldKind.CONCEALED_KONG, Tile.P5),
        (MeldKind.PUNG, Tile.S1),
        (MeldKind.PUNG, Tile.S2),
        (MeldKind.PUNG, Tile.P3),
    ]
    assert [t.code for t in rnd.seats[1].concealed()] == ["9s"]
    assert rnd.legal_actions(1) == [Action(ActionType.WIN, 1), Action(ActionType.PASS, 1)]
    play(rnd, "1 win")
    assert rnd.end_reason == "last_player"  # Z4: a 2-player hand ends at the first win
    # Z14: 暗杠 → 2 from each other player still in the hand (the dealer only).
    # Z11: 5555p 111s 222s 333p 99s, two suits: 碰碰胡 1 + 根 1 (the 5p kong) + 金钩钩 1 = 3
    # → 2^3 = 8, paid by the discarder (Z12). Without 金钩钩 it would be 2^2 = 4.
    assert lines(rnd) == [(0, 1, "暗杠", 2, "Z14"), (0, 1, "牌型:碰碰胡", 8, "Z11")]
    assert notes(rnd)[1] == "碰碰胡+1 根+1 金钩钩+1 = 3番, 2^3=8"


# -- Z12: 直杠, then 暗杠, then 杠上开花, under dianganghua=feeder --------------------------------

# 4 players. The dealer holds 666p 333p 999p 33s 66s and discards 1s. Seat 1 draws 6p and
# discards it; the dealer 直杠s it (fed by seat 1) and draws 3p from the back; it 暗杠s 3p and
# draws 3s from the back, completing 999p 333s 66s + the 6p and 3p kongs. A, B and C never
# get ready.
CHAIN_HANDS = ["666p333p999p33s66s1s", A, B, C]


def test_Z12_feeder_does_not_pay_a_flower_on_a_later_concealed_kong() -> None:
    """Z12: "杠上开花 after a 直杠 (点杠花): as 自摸 by default. Setting ``dianganghua`` =
    ``zimo`` (default) or ``feeder`` (the player who fed the 直杠 pays alone, the 自摸
    amount)." Z11 defines 杠上开花 as "wins on a kong replacement".

    Here the winning tile is the replacement of the 暗杠, not of the 直杠: the 直杠's own
    replacement (3p) did not win, and the dealer made the 暗杠 from its own tiles. So the
    flower follows an 暗杠, which nobody fed, and it is not "杠上开花 after a 直杠". Z12's
    first line applies: "自摸: each other player still in the hand". (Where the rulings mean
    every kong of a turn they say so, as Z15 does with "every kong that player made in that
    turn"; Z12 names "a 直杠" and "the player who fed the 直杠".) This is a reading of the
    text; the contrasting case, a flower on the 直杠's own replacement, is paid by the feeder
    alone (test_zigong_fan.test_Z12_dianganghua_feeder_pays_alone).
    """
    rnd = deal(ZIGONG, CHAIN_HANDS, draws="6p", back="3p3s", dianganghua="feeder")
    play(rnd, "0 discard 1s; 1 discard 6p; 0 kong 6p")
    assert rnd.seats[0].drawn is Tile.P3
    play(rnd, "0 kong 3p")
    assert [(m.kind, m.tile, m.from_seat) for m in rnd.seats[0].melds] == [
        (MeldKind.EXPOSED_KONG, Tile.P6, 1),
        (MeldKind.CONCEALED_KONG, Tile.P3, None),
    ]
    assert rnd.seats[0].drawn is Tile.S3
    play(rnd, "0 win")
    win = rnd.wins[0]
    assert win.source is WinSource.SELF_DRAW and win.kong_replacement
    play_out(rnd)
    assert rnd.end_reason == "exhausted"
    # Z14: 直杠 6p → 2 from the feeder, seat 1; 暗杠 3p → 2 from each of seats 1, 2, 3.
    # Z11: 999p 333s 66s + 6p and 3p kongs, two suits: 碰碰胡 1 + 根 2 + 杠上开花 1 = 4
    # (the default cap, 4) → 2^4 = 16, and 自摸加底 1, from each of seats 1, 2, 3 as 自摸.
    # (Read as 点杠花, seat 1 alone would pay 16 + 1.) Seats 1–3 are not ready: no 查叫.
    assert lines(rnd) == [
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
    ] + [
        line
        for p in (1, 2, 3)
        for line in ((p, 0, "牌型:碰碰胡", 16, "Z11"), (p, 0, "自摸加底", 1, "Z11"))
    ]
    assert notes(rnd)[4] == "碰碰胡+1 根+2 杠上开花+1 = 4番, 2^4=16"
    # 2 + 3×2 + 3×(16 + 1) = 59 to the dealer.
    assert rnd.settlement().totals == (59, -21, -19, -19)
