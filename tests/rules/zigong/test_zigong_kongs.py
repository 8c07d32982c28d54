"""Kong money (Z14), 呼叫转移 (Z15), 退税 (Z17) and 一牌多用 (Z21)."""

from __future__ import annotations

from majiang.state import MeldKind
from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, play, play_out

# The dealer makes an 暗杠 (3p), a 直杠 (6p, fed by seat 1) and a 补杠 (6s), then discards.
KONGS_HAND = "3333p666p33s66s9s99p"
KONGS_SCRIPT = (
    "0 kong 3p; 0 discard 1s; 1 discard 6p; 0 kong 6p; 0 discard 2s; 1 discard 6s; 0 pung 6s;"
    " 0 discard 9s; 1 discard 4s; 2 discard 5s; 3 discard 7s; 0 kong 6s"
)


def _kongs_round(**settings: object):
    return deal(ZIGONG, [KONGS_HAND, A, B, C], draws="6p6s4s5s7s6s", back="1s2s8s", **settings)


def test_Z14_all_three_kongs_then_Z16_chajiao() -> None:
    """暗杠 2 from each, 直杠 2 from the feeder, 补杠 1 from each; ready at the end: 查叫."""
    rnd = _kongs_round()
    play(rnd, KONGS_SCRIPT + "; 0 discard 8s")
    assert [m.kind for m in rnd.seats[0].melds] == [
        MeldKind.CONCEALED_KONG,
        MeldKind.EXPOSED_KONG,
        MeldKind.ADDED_KONG,
    ]
    play_out(rnd)
    # 33s99p waits 3s/9p: 碰碰胡 1 + 根 3 (3p 6p 6s) = 4 → 16 from each seat not ready.
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "补杠", 1, "Z14"),
        (2, 0, "补杠", 1, "Z14"),
        (3, 0, "补杠", 1, "Z14"),
        (1, 0, "查叫", 16, "Z16"),
        (2, 0, "查叫", 16, "Z16"),
        (3, 0, "查叫", 16, "Z16"),
    ]


def test_Z17_tuishui_konger_not_ready() -> None:
    """The konger breaks their hand (discards 3s) and is not ready at exhaustion: 退税."""
    rnd = _kongs_round()
    play(rnd, KONGS_SCRIPT + "; 0 discard 3s")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (0, 1, "退税", 2, "Z17"),
        (0, 2, "退税", 2, "Z17"),
        (0, 3, "退税", 2, "Z17"),
        (1, 0, "直杠", 2, "Z14"),
        (0, 1, "退税", 2, "Z17"),
        (1, 0, "补杠", 1, "Z14"),
        (2, 0, "补杠", 1, "Z14"),
        (3, 0, "补杠", 1, "Z14"),
        (0, 1, "退税", 1, "Z17"),
        (0, 2, "退税", 1, "Z17"),
        (0, 3, "退税", 1, "Z17"),
    ]
    assert rnd.settlement().totals == (0, 0, 0, 0)


def test_Z17_tuishui_off_keeps_kong_money() -> None:
    """With ``chajiao_tuishui`` off the kong money of a konger who is not ready stays."""
    rnd = _kongs_round(chajiao_tuishui=False)
    play(rnd, KONGS_SCRIPT + "; 0 discard 3s")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (1, 0, "直杠", 2, "Z14"),
        (1, 0, "补杠", 1, "Z14"),
        (2, 0, "补杠", 1, "Z14"),
        (3, 0, "补杠", 1, "Z14"),
    ]


# The dealer's discard after the kong is their first, so these rooms turn 天地胡 off to keep
# the win at its pattern (a 地胡 would be capped, Z11).
HUJIAO_DEALER = "3333p12459s1245p5p"
HUJIAO_WINNER = "123s456s789s46p99p"


def test_Z15_hujiao_zhuanyi_single_winner() -> None:
    """暗杠, then the discard is won by one seat (杠上炮): the kong money goes to the winner.

    退税 is off, so the transfer stands although the konger ends not ready.
    """
    rnd = deal(
        ZIGONG,
        [HUJIAO_DEALER, A, B, HUJIAO_WINNER], back="6s", chajiao_tuishui=False, tiandihu=False
    )
    play(rnd, "3 pass; 0 kong 3p; 0 discard 5p; 3 win")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (0, 3, "呼叫转移", 6, "Z15"),
        (0, 3, "牌型:平胡", 2, "Z11"),
    ]


def test_Z15_Z17_tuishui_overrides_hujiao_zhuanyi() -> None:
    """The konger is not ready at exhaustion and 退税 is on: 退税, and no transfer."""
    rnd = deal(ZIGONG, [HUJIAO_DEALER, A, B, HUJIAO_WINNER], back="6s", tiandihu=False)
    play(rnd, "3 pass; 0 kong 3p; 0 discard 5p; 3 win")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (0, 1, "退税", 2, "Z17"),
        (0, 2, "退税", 2, "Z17"),
        (0, 3, "退税", 2, "Z17"),
        (0, 3, "牌型:平胡", 2, "Z11"),
    ]


def test_Z15_hujiao_zhuanyi_off_money_stays() -> None:
    """Setting ``hujiao_zhuanyi`` off: the kong money stays with the konger."""
    rnd = deal(
        ZIGONG,
        [HUJIAO_DEALER, A, B, HUJIAO_WINNER],
        back="6s",
        chajiao_tuishui=False,
        hujiao_zhuanyi=False,
        tiandihu=False,
    )
    play(rnd, "3 pass; 0 kong 3p; 0 discard 5p; 3 win")
    play_out(rnd)
    assert lines(rnd) == [
        (1, 0, "暗杠", 2, "Z14"),
        (2, 0, "暗杠", 2, "Z14"),
        (3, 0, "暗杠", 2, "Z14"),
        (0, 3, "牌型:平胡", 2, "Z11"),
    ]


def test_Z15_two_winners_void_the_kong_money() -> None:
    """Two seats win the discard after the kong: that kong money is void (seed 特殊规则 2)."""
    rnd = deal(
        ZIGONG, [HUJIAO_DEALER, HUJIAO_WINNER, "123s456s789s46p88p"], back="6s", tiandihu=False
    )
    play(rnd, "1 pass; 2 pass; 0 kong 3p; 0 discard 5p; 1 win; 2 win")
    assert rnd.end_reason == "last_player"
    assert lines(rnd) == [
        (0, 1, "牌型:平胡", 2, "Z11"),
        (0, 2, "牌型:平胡", 2, "Z11"),
    ]
    assert rnd.settlement().summary["void_kongs"] == [0]


def test_Z15_transfer_covers_every_kong_of_the_turn_after_a_passed_rob() -> None:
    """暗杠, then a 补杠 whose rob is passed, then the discard is won by one seat: the money
    of both kongs of that turn moves to the winner ("every kong that player made in that
    turn"), not only the last one's."""
    rnd = deal(
        ZIGONG,
        ["3333p66s12s78s2p5p8p9p", "6s45s456p789p999s1p", "123s789s567p46p11p"],
        draws="1p8s2s9p", back="6s2p", chajiao_tuishui=False, tiandihu=False,
    )
    play(
        rnd,
        "1 pass; 2 pass; 0 discard 1s; 1 discard 6s; 0 pung 6s; 0 discard 2s; 1 discard 8s;"
        " 2 discard 2s; 0 kong 3p; 0 kong 6s",
    )
    assert rnd.pending() == (1,)  # seat 1 waits on 6s and may rob the 补杠
    play(rnd, "1 pass; 0 discard 5p; 2 win")
    assert rnd.wins[0].turn_kongs == (0, 1)
    play_out(rnd)
    transfers = [line for line in lines(rnd) if line[2] == "呼叫转移"]
    assert transfers == [(0, 2, "呼叫转移", 4, "Z15"), (0, 2, "呼叫转移", 2, "Z15")]


ROB_HANDS = ["66s1234s1234p88s9p5p", "57s123p456p789p99s", "1234s1234p5678p9s"]
ROB_SCRIPT = (
    "1 pass; 0 discard 5p; 1 discard 7p; 2 discard 6s; 1 pass; 0 pung 6s; 0 discard 9p;"
    " 1 discard 6p; 2 discard 4s; 0 kong 6s; 1 win"
)


def test_Z21_robbed_kong_completes_money_to_robber() -> None:
    """一牌多用: the robbed 补杠 is still made; its money goes to the one robber, final (Z17)."""
    rnd = deal(ZIGONG, ROB_HANDS, draws="7p6s6p4s6s", back="8p", multi_use=True)
    play(rnd, ROB_SCRIPT)
    assert [m.kind for m in rnd.seats[0].melds] == [MeldKind.ADDED_KONG]
    assert rnd.pending() == (0,) and rnd.seats[0].drawn is not None
    play_out(rnd)
    # The konger ends not ready, yet the money passed to the robber is not refunded.
    assert lines(rnd) == [
        (2, 0, "补杠", 1, "Z14"),
        (0, 1, "抢杠转移", 1, "Z21"),
        (0, 1, "牌型:平胡", 2, "Z11"),
    ]


def test_Z12_Z14_robbed_kong_without_multi_use_is_not_made() -> None:
    """Without 一牌多用 the robbed 补杠 is not made: no money, the konger keeps the 碰."""
    rnd = deal(ZIGONG, ROB_HANDS, draws="7p6s6p4s6s")
    play(rnd, ROB_SCRIPT)
    assert [m.kind for m in rnd.seats[0].melds] == [MeldKind.PUNG]
    play_out(rnd)
    # 抢杠胡: 平胡 0 + 抢杠胡 1 = 1, paid by the robbed player alone (Z12).
    assert lines(rnd) == [(0, 1, "牌型:平胡", 2, "Z11")]


def test_Z21_won_discard_still_ponged() -> None:
    """一牌多用: seat 1 pungs the 5p that seat 2 won on, and takes the turn (Z4)."""
    rnd = deal(
        ZIGONG,
        ["5p36p2233p678s44p4s1s", "55p1p7p8p9s5s6s7s3p6p9p1s", "123s456s789s46p99p", C],
        multi_use=True,
        tiandihu=False,
    )
    play(rnd, "2 pass; 0 discard 5p; 1 pung 5p; 2 win")
    assert rnd.turn == 1 and [m.kind for m in rnd.seats[1].melds] == [MeldKind.PUNG]
    play_out(rnd)
    assert lines(rnd) == [(0, 2, "牌型:平胡", 1, "Z11")]
