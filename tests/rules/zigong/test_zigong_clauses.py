"""Clauses of the 自贡 rulings that had no test of their own: 萝卜 on 天胡/地胡 and 报叫 +1 on a
win (Z11), 萝卜 in melds (Z13), what 查叫 counts and leaves out (Z16), 报叫 +1 before the cap
and the 报叫 player's kongs at 流局 (Z18), and the bounds of ``base_stake``."""

from __future__ import annotations

import pytest

from majiang.errors import SettingsError
from majiang.round import Round
from majiang.tiles import parse_tile
from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, notes, play, play_out

# -- Z11: the flat 萝卜 is added on top of 天胡 / 地胡, and 报叫 is +1 fan on a win --------------


def test_Z11_Z13_luobo_added_on_top_of_tianhu() -> None:
    """Z11: "The flat extras that the win earns still add to them: 萝卜 for both, and 自摸加底
    for 天胡". 萝卜 6s and 3p; the dealer's dealt 14 hold 3×6s and 3×3p: 天胡 = cap 4 → 16,
    自摸加底 1 and 萝卜 6 (Z13) from each other player, the 萝卜 not swallowed by the cap."""
    rnd = deal(ZIGONG, ["333p666p999p33s666s", A, B, C], back="6s3p", luobo=2)
    play(rnd, "0 win")
    play_out(rnd)
    assert lines(rnd) == [
        line
        for p in (1, 2, 3)
        for line in (
            (p, 0, "牌型:天胡", 16, "Z11"),
            (p, 0, "自摸加底", 1, "Z11"),
            (p, 0, "萝卜", 6, "Z13"),
        )
    ]


def test_Z11_Z13_luobo_added_on_top_of_dihu() -> None:
    """Z11: 萝卜 adds to 地胡 too (地胡 is won on a discard: no 自摸加底). 萝卜 6s and 3p; seat 1
    wins on the dealer's first discard 6s holding 66s and 333p: 6s×3 (the winning tile counts,
    Z13) + 3p×3 = 6. The discarder alone pays 地胡 = cap 4 → 16, then 萝卜 6."""
    rnd = deal(ZIGONG, ["124578s124578p69s", "333p666p999p33s66s", B, C], back="6s3p", luobo=2)
    play(rnd, "1 pass; 0 discard 6s; 1 win")
    play_out(rnd)
    assert lines(rnd) == [(0, 1, "牌型:地胡", 16, "Z11"), (0, 1, "萝卜", 6, "Z13")]


def test_Z11_baojiao_adds_one_fan_on_a_self_drawn_win() -> None:
    """Z11 bonus table: 报叫 +1 when the winner declared 报叫. Seat 1 declares (不报) on
    ``111p23p111s23s678s`` and draws its wait 4p: 111p 234p 11s 123s 678s, two suits, no four:
    平胡 0 + 报叫 1 = 1 → 2, plus 自摸加底 1 (default ``zimo=add_base``)."""
    rnd = deal(ZIGONG, ["44599s5566789p99p", "111p23p111s23s678s"], draws="4p")
    play(rnd, "1 declare; 1 bubao; 0 discard 9p; 1 win")
    assert rnd.seats[1].won and rnd.seats[1].declared
    assert lines(rnd) == [(0, 1, "牌型:平胡", 2, "Z11"), (0, 1, "自摸加底", 1, "Z11")]
    assert notes(rnd)[0] == "平胡+0 报叫+1 = 1番, 2^1=2"


# -- Z13: 萝卜 counts the tiles in melds --------------------------------------------------------


def test_Z13_luobo_counts_tiles_in_a_pung() -> None:
    """Z13: "every tile in the winner's full hand (concealed, melds and winning tile) that
    matches a 萝卜 tile adds +1". 萝卜 5s and 4p. Seat 1 pungs the dealer's 5s, then wins on
    4p holding one 4p: 555s (meld) 111p 222p 333s 44p = 碰碰胡 1 → 2; 萝卜 = 3 (the 5s pung) + 2
    (the 4p held and won) = 5. Counting concealed tiles only would give 2.

    A kong of a 萝卜 tile cannot happen: the 萝卜 takes one of the four copies out of play
    (Z13), so a meld of a 萝卜 tile is at most a 碰.
    """
    rnd = deal(
        ZIGONG, ["5s4p114477s5588p6s9s", "55s111p222p333s4p9p"], draws="3s", back="5s4p", luobo=2
    )
    play(rnd, "0 discard 5s; 1 pung 5s; 1 discard 9p; 0 discard 4p; 1 win")
    assert [(m.kind.value, m.tile.code) for m in rnd.seats[1].melds] == [("pung", "5s")]
    assert lines(rnd) == [(0, 1, "牌型:碰碰胡", 2, "Z11"), (0, 1, "萝卜", 5, "Z13")]
    assert notes(rnd) == ["碰碰胡+1 = 1番, 2^1=2", "萝卜 5s 4p: 5张"]


# -- Z16: what 查叫 counts and what it leaves out -----------------------------------------------


def test_Z16_chajiao_counts_qingyise() -> None:
    """Z16 "Counted: 根, 清一色 and 卡二条". The dealer ends ready on ``123p456p789p55p78p``
    (waits 6p, 9p), all 筒, no four of a kind: 平胡 0 + 清一色 2 = 2 → 4 from seat 1 (not
    ready)."""
    rnd = deal(ZIGONG, ["123p456p789p55p78p9s", "114477s2258s369p"])
    play(rnd, "0 discard 9s")
    play_out(rnd)
    assert lines(rnd) == [(1, 0, "查叫", 4, "Z16")]
    assert notes(rnd) == ["清一色: 平胡+0 清一色+2 = 2番, 2^2=4"]


def test_Z16_chajiao_leaves_out_jingougou_gangshanghua_and_zimo() -> None:
    """Z16 "Left out: … the situational bonuses (自摸, 杠上开花, 杠上炮, 抢杠, 金钩钩 …)".
    Seat 1 makes a 直杠 of 1s (drawing a replacement) and pungs 2s, 3p and 4p, so it ends
    with four melds and the lone 9s: the 金钩钩 shape, after a kong. With ``zimo=add_fan`` and
    ``fan_cap`` 6 no bonus could hide under the cap. 查叫 counts only 碰碰胡 1 + 根 1 (the 1s
    kong) = 2 → 4; any of 金钩钩, 杠上开花 or 自摸 would make it 8 or more. The kong is kept
    (seat 1 is ready): the discarder's 直杠 2 (Z14)."""
    rnd = deal(
        ZIGONG,
        ["1233669s1345889p", "111s22s33p44p9s5s7s5p"],
        draws="4s2p7s",
        back="8s",
        fan_cap=6,
        zimo="add_fan",
    )
    play(
        rnd,
        "0 discard 1s; 1 kong 1s; 1 discard 8s; 0 discard 2s; 1 pung 2s; 1 discard 5s;"
        " 0 discard 3p; 1 pung 3p; 1 discard 7s; 0 discard 4p; 1 pung 4p; 1 discard 5p",
    )
    assert len(rnd.seats[1].melds) == 4
    play_out(rnd)
    assert lines(rnd) == [(0, 1, "直杠", 2, "Z14"), (0, 1, "查叫", 4, "Z16")]
    assert notes(rnd)[1] == "碰碰胡: 碰碰胡+1 根+1 = 2番, 2^2=4"
    assert rnd.settlement().players[1]["chajiao_fan"] == 2


# -- Z18: 报叫 +1 before the cap; the 报叫 player's kongs at 流局 ---------------------------------

# Seat 1 (declares) and seat 2 (does not) are both ready at the deal with 清碰: waits 7s/9s and
# 8p/9p, 碰碰胡 1 + 清一色 2 = 3 fan, no four of a kind. The dealer ends with five pairs and no
# set: not ready.
CAP_HANDS = ["2s2s4s6s6s8s8s1p3p5p5p7p7p9p", "111s333s555s77s99s", "222p444p666p88p99p"]


@pytest.mark.parametrize(("cap", "points"), [(3, 8), (4, 16), (5, 16)])
def test_Z18_baojiao_fan_added_before_the_cap(cap: int, points: int) -> None:
    """Z18 "The +1 for 报叫 is added before the cap": points = 2^min(3 + 1, cap). At cap 3 the
    3-fan hand already sits on the cap and stays at 8 (adding after the cap would give 16);
    at cap 4 (one below) the +1 reaches it: 16; at cap 5 nothing is capped: 16. Both the 查叫
    the dealer pays the 报叫 seat and the 反查叫 the 报叫 seat pays ready seat 2 carry the +1;
    the dealer's plain 查叫 to seat 2 is 2^min(3, cap) = 8."""
    rnd = deal(ZIGONG, CAP_HANDS, fan_cap=cap)
    play(rnd, "1 declare; 1 bubao; 2 pass; 0 discard 4s")
    play_out(rnd)
    assert lines(rnd) == [
        (0, 1, "查叫", points, "Z18"),
        (0, 2, "查叫", 8, "Z16"),
        (1, 2, "反查叫", points, "Z18"),
    ]
    capped = " (封顶3番)" if cap == 3 else ""
    fan = min(4, cap)
    assert notes(rnd)[0] == f"清碰碰胡: 碰碰胡+1 清一色+2 报叫+1 = 4番{capped}, 2^{fan}={points}"


def _baojiao_konger_at_liuju() -> Round:
    """Seat 1 declares 报叫 ticking 1p and 暗杠s the drawn fourth 1p; seat 2 暗杠s 6p, which
    leaves it not ready; the hand is then played out to 流局."""
    rnd = deal(
        ZIGONG,
        ["5s5s7s7s9s3p3p5p5p7p7p8s2p9p", "111p23p111s23s678s", "6666p2p4p9p9p2s4s5s8s9s"],
        draws="1p8p",
        back="9s8s",
    )
    play(rnd, "1 declare ticks=1p; 0 discard 2p; 1 kong 1p; 2 kong 6p; 2 discard 8s")
    play_out(rnd)
    return rnd


def test_Z17_Z18_baojiao_players_kongs_stand_at_liuju() -> None:
    """Z18 "is exempt from 退税". That case cannot arise: after 报叫 every non-winning draw
    is discarded for the player (Z19) and a 报杠 tick that would leave the hand not ready is
    refused (Z20), so a 报叫 player who has not won is always ready at 流局, and 退税 (Z17)
    only touches players who are not ready. What does happen: the 报叫 seat 1 ticks 1p, the
    fourth 1p is drawn and konged (暗杠, 2 from each of seats 0 and 2); it ends ready on 4p
    and keeps that money, while seat 2, whose 6p 暗杠 leaves it not ready, refunds its kong
    to both payers (退税 is on by default), including the 报叫 seat. 查叫 of seat 1: 平胡 0 +
    根 1 (the 1p kong) + 报叫 1 = 2 → 4 from each seat not ready (Z18)."""
    rnd = _baojiao_konger_at_liuju()
    assert [(m.kind.value, m.tile.code) for m in rnd.seats[1].melds] == [("concealed_kong", "1p")]
    assert rnd.seats[1].declared
    assert [p["ready"] for p in rnd.settlement().players] == [False, True, False]
    # Kong payers are listed in turn order after the konger.
    assert lines(rnd) == [
        (2, 1, "暗杠", 2, "Z14"),
        (0, 1, "暗杠", 2, "Z14"),
        (0, 2, "暗杠", 2, "Z14"),
        (1, 2, "暗杠", 2, "Z14"),
        (2, 0, "退税", 2, "Z17"),
        (2, 1, "退税", 2, "Z17"),
        (0, 1, "查叫", 4, "Z18"),
        (2, 1, "查叫", 4, "Z18"),
    ]


def test_Z18_a_baojiao_player_not_ready_at_liuju_keeps_its_kong_money() -> None:
    """Z18: a 报叫 player "is exempt from 退税". Play cannot reach a 报叫 player who is not
    ready (see above), so the ended round of that test is edited: seat 1's 678s becomes 679s,
    which leaves it waiting on nothing. Settled again, seat 2's kong is still refunded, seat
    1's 暗杠 money stands; without the 报叫 flag the same hand would refund it (Z17)."""
    rnd = _baojiao_konger_at_liuju()
    seat = rnd.seats[1]
    seat.remove(parse_tile("8s"))
    seat.add(parse_tile("9s"))

    def refunds() -> list[tuple[int, int, str, int, str]]:
        settled = rnd.variant.settle(rnd)
        assert [p["ready"] for p in settled.players] == [False, False, False]
        return [
            (x.payer, x.payee, x.category, x.points, x.ruling)
            for x in settled.lines
            if x.category == "退税"
        ]

    assert refunds() == [(2, 0, "退税", 2, "Z17"), (2, 1, "退税", 2, "Z17")]
    seat.declared = False
    assert refunds() == [
        (1, 2, "退税", 2, "Z17"),
        (1, 0, "退税", 2, "Z17"),
        (2, 0, "退税", 2, "Z17"),
        (2, 1, "退税", 2, "Z17"),
    ]


# -- Room settings: base_stake --------------------------------------------------------------


def test_settings_base_stake_accepts_100000_refuses_100001() -> None:
    """``base_stake`` (底分): the ruling says "positive integer"; the product deliberately caps
    it at 100000. 100000 is accepted, by the schema and by a dealt round; 100001 is refused
    with the Chinese message, and so is 0."""
    assert ZIGONG.schema.validate({"base_stake": 100000})["base_stake"] == 100000
    assert deal(ZIGONG, ["333p666p999p33s666s", A, B, C], base_stake=100000).settings[
        "base_stake"
    ] == (100000)
    for bad, message in ((100001, "不能大于 100000"), (0, "不能小于 1")):
        with pytest.raises(SettingsError) as refused:
            ZIGONG.schema.validate({"base_stake": bad})
        assert refused.value.errors == {"base_stake": message}
    with pytest.raises(SettingsError) as refused:
        deal(ZIGONG, ["333p666p999p33s666s", A, B, C], base_stake=100001)
    assert refused.value.errors == {"base_stake": "不能大于 100000"}
