"""查叫 (Z16) and 反查叫 (Z18) at wall exhaustion."""

from __future__ import annotations

from tests.rules.scenario import ZIGONG, A, B, C, deal, lines, notes, play, play_out


def test_Z16_chajiao_counts_kaertiao_not_luobo() -> None:
    """The dealer waits on 2s holding 1s 3s (卡二条 +1); 萝卜 3s does not count in 查叫."""
    rnd = deal(ZIGONG, ["13s666p999p333p66s9s", A, B, C], back="3s", luobo=1)
    play(rnd, "0 discard 9s")
    play_out(rnd)
    assert lines(rnd) == [(p, 0, "查叫", 2, "Z16") for p in (1, 2, 3)]
    assert notes(rnd)[0] == "平胡: 平胡+0 卡二条+1 = 1番, 2^1=2"


FANCHA_HANDS = [
    "13579s13579p22p55p",
    "123s456s789s46p99p",
    "123s456s789s46p88p",
    "2468s1357p3377p9s",
]


def test_Z18_fanchajiao_declared_player_pays_ready_player() -> None:
    """Seat 1 declared and did not win: it pays ready seat 2 (fan + 1) and still 查叫s the
    seats that are not ready, each paying it its fan + 1."""
    rnd = deal(ZIGONG, FANCHA_HANDS)
    play(rnd, "1 declare; 2 pass")
    play_out(rnd)
    assert lines(rnd) == [
        (0, 1, "查叫", 2, "Z18"),
        (0, 2, "查叫", 1, "Z16"),
        (3, 1, "查叫", 2, "Z18"),
        (3, 2, "查叫", 1, "Z16"),
        (1, 2, "反查叫", 2, "Z18"),
    ]
    assert notes(rnd)[-1] == "平胡: 平胡+0 报叫+1 = 1番, 2^1=2"


def test_Z18_two_declared_players_do_not_fanchajiao_each_other() -> None:
    """Both ready seats declared: no 反查叫 between them; both 查叫 the others with +1."""
    rnd = deal(ZIGONG, FANCHA_HANDS)
    play(rnd, "1 declare; 2 declare")
    play_out(rnd)
    assert lines(rnd) == [
        (0, 1, "查叫", 2, "Z18"),
        (0, 2, "查叫", 2, "Z18"),
        (3, 1, "查叫", 2, "Z18"),
        (3, 2, "查叫", 2, "Z18"),
    ]
