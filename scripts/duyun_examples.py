"""Write the 都匀 worked examples: ``docs/rules/duyun/*.json`` and ``docs/rules/duyun-examples.md``.

    PYTHONPATH=. python3 scripts/duyun_examples.py

Each example is dealt with :func:`majiang.scenario.deal_scenario` (an explicit wall), played,
and written as a game record; the markdown shows its settlement as a table. The test
``tests/rules/duyun/test_duyun_examples.py`` replays every record and checks the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from majiang.actions import Action, ActionType
from majiang.record import dumps, record_of
from majiang.round import Round
from majiang.scenario import deal_scenario
from majiang.tiles import parse_tile
from majiang.variants import get_variant

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
DUYUN = get_variant("duyun")

WHY = {
    "自摸": "D10: self-drawn win, +`zimo_bonus` from each payer",
    "杠上花": "D10: won on a kong's replacement tile, +1 from each payer",
    "报听": "D10: the winner declared 报听, +10",
    "连庄": "D10a: winning payment between dealer and non-dealer, + the dealer's streak",
    "热炮": "D13: the konger's discard was won on: pattern doubled, +1",
    "抢杠": "D14: the robbed player pays 10 on top of the pattern",
    "明豆": "D11: exposed kong of a discard, the discarder pays 3 (owner ready or won, D12)",
    "暗豆": "D11: concealed kong, each other player pays 3 (owner ready or won, D12)",
    "转弯豆": "D11: added kong, each other player pays 3 (owner ready or won, D12)",
    "幺鸡": "D18 (D21 on 黄庄): 1s chickens, collected if ready, paid if not ready",
    "金鸡": "D15: the turned tile is 9s, so every 1s counts 2",
    "翻牌鸡": "D15/D18: the tile after the turned tile is a chicken, 1 each for a ready owner",
    "上下鸡": "D15/D18: the tiles either side of the turned tile are chickens",
    "英雄鸡": "D17 (D21 on 黄庄): the first 1s discarded and not claimed, 3 (6 under 金鸡)",
    "冲锋鸡": "D17 (D21 on 黄庄): the first 1s discarded and not claimed, 2 (4 under 金鸡)",
    "责任鸡": "D19: the first 1s was claimed; payment between discarder and claimer",
    "查叫": "D21: 黄庄, a not-ready player pays each ready player its best pattern",
    "包牌": "D8: a locked player could have won on this tile; pays each other player the pattern",
}


EXHAUST_NOTE = " (`exhaust`: every later drawn tile is discarded and every claim passed)."


@dataclass
class Example:
    """One worked hand."""

    slug: str
    title: str
    story: str
    hands: list[str]
    steps: list[str]
    draws: str = ""
    back: str = ""
    dealer: int = 0
    streak: int = 1
    settings: dict[str, Any] = field(default_factory=dict)


def _exhaust(rnd: Round) -> None:
    """Discard every drawn tile and pass every claim until the wall runs out."""
    while not rnd.ended:
        seat = rnd.pending()[0]
        if rnd.window is not None:
            rnd.apply(Action(ActionType.PASS, seat))
        else:
            rnd.apply(Action(ActionType.DISCARD, seat, rnd.seats[seat].drawn))


def _play(example: Example) -> Round:
    settings = {"players": len(example.hands), **example.settings}
    rnd, _ = deal_scenario(
        DUYUN,
        settings,
        dealer=example.dealer,
        streak=example.streak,
        hands=example.hands,
        draws=example.draws,
        back=example.back,
    )
    for step in example.steps:
        if step == "exhaust":
            _exhaust(rnd)
            continue
        seat_text, verb, *rest = step.split(":")
        kind = ActionType.DISCARD if verb == "declare" else ActionType(verb)
        tile = parse_tile(rest[0]) if rest else None
        if tile is None and kind in (ActionType.PUNG, ActionType.KONG) and rnd.window:
            tile = rnd.window.tile
        rnd.apply(Action(kind, int(seat_text), tile, declare=verb == "declare"))
    assert rnd.ended, example.slug
    return rnd


EXAMPLES = [
    Example(
        "01-zimo-pinghu-with-dou",
        "自摸 平胡 with a 豆",
        "The dealer makes a concealed kong of 9s on its first turn (暗豆), discards the "
        "replacement 7s, and self-draws 5p two turns later. 翻鸡: the next wall tile is 8m, "
        "so 9m is a chicken; the dealer holds one.",
        ["9999s123m456m789m5p", "336699m2258s147p", "2237m4578s13579p"],
        ["0:kong:9s", "0:discard:7s", "1:discard:3p", "2:discard:6p", "0:win"],
        draws="3p6p5p8m",
        back="7s",
    ),
    Example(
        "02-discard-big-pattern",
        "点炮 with a big pattern (清七对)",
        "Seat 1 waits on 7m with 清七对 and wins on the dealer's first discard. The next wall "
        "tile is 1m, so 2m is a chicken: seat 1 holds two.",
        ["3455m78m2468s245p9s", "1122334455667m", "89m3578s9s236789p"],
        ["0:discard:7m", "1:win"],
        draws="1m",
    ),
    Example(
        "03-multi-win",
        "一炮多响",
        "Seat 1 discards 5p; the dealer (小七对), seat 2 (大对子) and seat 3 (小七对) all win "
        "on it and seat 1 pays each. The dealer is among the winners, so it keeps the deal "
        "(D4). Turned 2m makes 3m a chicken: seat 3 holds two.",
        [
            "88m99m55s66s88p99p5p7m",
            "3579m23457s1389p",
            "222m444m666m999s5p",
            "11m33m33s44s66p77p5p",
        ],
        ["0:discard:7m", "1:discard:5p", "0:win", "2:win", "3:win"],
        draws="5p2m",
    ),
    Example(
        "04-hot-discard",
        "热炮 (杠上炮)",
        "The dealer kongs 8p, draws 1s, and discards 5p into seat 1's 大对子. The dealer pays "
        "2 × 5 + 1 and the streak; its 暗豆 is burnt (烧豆) but it keeps its 1s chicken. "
        "Turned 3m makes 4m a chicken: seat 1 holds three.",
        ["8888p123m456m789m5p", "222m444m666m999s5p", "3579m3578s3679p9m"],
        ["0:kong:8p", "0:discard:5p", "1:win"],
        draws="3m",
        back="1s",
    ),
    Example(
        "05-robbing-kong",
        "抢杠",
        "Seat 2 pungs the dealer's 6s and later adds the fourth 6s; seat 1 robs it with a bare "
        "平胡. Seat 2 pays 10 + 1. Seat 2 is ready on 1s but receives no 鸡 (D20); its own "
        "payments stand. Turned 5m makes 6m a chicken.",
        ["234566m2468p245p6s", "123m456m789m45s11s", "66s1s123m456p789p8s"],
        [
            "0:discard:6s",
            "2:pung",
            "2:discard:8s",
            "0:discard:7p",
            "1:discard:8p",
            "2:kong:6s",
            "1:win",
        ],
        draws="7p8p6s5m",
    ),
    Example(
        "06-baoting-win",
        "报听 win",
        "Seat 1 declares 报听 with its first discard. Its later draw 8s is discarded "
        "automatically; it wins a bare 平胡 on seat 2's 5p (no 豆 needed after 报听) and "
        "gets +10.",
        ["3455m78m2468s246p3s", "123m456m789m234p9s", "3579m3578s3679p9m"],
        ["0:discard:3s", "1:declare:9s", "2:discard:2m", "0:discard:3m", "2:discard:5p", "1:win"],
        draws="5p2m3m8s5p6s",
    ),
    Example(
        "07-gangshanghua",
        "杠上花 after a 转弯豆",
        "Seat 2 pungs 6s, draws the fourth 6s, adds it (转弯豆) and wins on the replacement "
        "8s: everyone pays as for any self-draw, +1 for 杠上花, and 3 each for the 转弯豆.",
        ["234566m2468p245p6s", "123m456m789m45p99s", "66s123m456p789p8s3s"],
        [
            "0:discard:6s",
            "2:pung",
            "2:discard:3s",
            "0:discard:7p",
            "1:discard:8p",
            "2:kong:6s",
            "2:win",
        ],
        draws="7p8p6s1p",
        back="8s",
    ),
    Example(
        "08-zeren-both-ready",
        "责任鸡: both ready (with a kong)",
        "The dealer's first 1s is kong-ed by seat 1 (明豆); both are ready, so the dealer pays "
        "seat 1 4 + 2 = 6 for the meld; seats 2 and 3 pay the meld as ordinary 鸡. Turned 6m "
        "makes 7m a chicken.",
        ["123m456m789m234p5p1s", "111s234s567s789p5m", "456m345p678p22s77s", "3578m2468s2469p9s"],
        ["0:discard:1s", "1:kong", "1:discard:9m", "2:win"],
        draws="7s6m",
        back="9m",
    ),
    Example(
        "09-zeren-discarder-not-ready-jin",
        "责任鸡: discarder not ready, under 金鸡",
        "The dealer's first 1s is punged by seat 1. The dealer is not ready and pays 8, doubled "
        "to 16 because the turned tile is 9s (金鸡); seats 2 and 3 pay 3 × 2 each for the meld.",
        ["123m456m789m24p58p1s", "11s234s567s789p5m9m", "456m345p678p22s77s", "3578m2468s2469p9s"],
        ["0:discard:1s", "1:pung", "1:discard:9m", "2:win"],
        draws="7s9s",
    ),
    Example(
        "10-zeren-claimer-not-ready",
        "责任鸡: claimer not ready",
        "The claimer (seat 1) is not ready: it pays the ready discarder 8, and pays seats 2 "
        "and 3 for its exposed 1s meld (D18). Turned 4p makes 5p a chicken (the dealer holds "
        "one).",
        ["123m456m789m234p5p1s", "11s234s567s78p5m9m3p", "456m345p678p22s77s", "3578m2468s2469p9s"],
        ["0:discard:1s", "1:pung", "1:discard:9m", "2:win"],
        draws="7s4p",
    ),
    Example(
        "11-zeren-both-not-ready",
        "责任鸡: both not ready",
        "Neither the discarder nor the claimer is ready: each pays both other players 3, "
        "instead of any payment for the meld. Turned 3p makes 4p a chicken.",
        ["123m456m789m24p58p1s", "11s234s567s78p5m9m3p", "456m345p678p22s77s", "3578m2468s2469p9s"],
        ["0:discard:1s", "1:pung", "1:discard:9m", "2:win"],
        draws="7s3p",
    ),
    Example(
        "12-exhausted-chajiao",
        "黄庄 with 查叫 and 幺鸡",
        "Nobody wins. The dealer is ready (小七对 on 9s) and seat 1 is ready (平胡 on 5s); seat "
        "2 is not and pays both their best pattern, plus 英雄鸡 for the table's first 1s and "
        "1 for a later 1s left in its river. No 翻鸡, no 豆 (D21). Seat 2, the first "
        "not-ready player going 顺时针 from the dealer, deals next (D4).",
        ["22m44m66m88m33p55p9s6s", "123m789m123p789p5s", "34m11s555s999s168p"],
        ["0:discard:6s", "exhaust"],
        draws="2p1s3m4p1s",
    ),
    Example(
        "13-baopai",
        "包牌",
        "Seat 1 waits on 5p with 大对子, passes seat 2's 5p (the D8 lock) and is still locked "
        "when the dealer discards 5p: it owes each other player 5 (包牌). It then draws the "
        "last 5p and wins by self-draw; both the win and the 包牌 stand.",
        ["3455m78m2468s246p3s", "222m444m666m999s5p", "3579m3578s3679p9m"],
        ["0:discard:3s", "1:discard:9p", "2:discard:5p", "1:pass", "0:discard:5p", "1:win"],
        draws="9p5p5p5p3p",
    ),
    Example(
        "14-streak-hand-1",
        "连庄 across two hands: hand 1",
        "The dealer wins 天胡 with streak 1, so it keeps the deal with streak 2 (D4).",
        ["123m456m789m234p55p", "336699m2258s147p", "2237m4578s13579p"],
        ["0:win"],
        draws="4s",
    ),
    Example(
        "15-streak-hand-2",
        "连庄 across two hands: hand 2",
        "The dealer deals again with streak 2. Seat 1 self-draws; only the dealer adds the "
        "streak (2) to its payment (D10a).",
        ["234566m2468s2468p", "123m456m789m234p5p", "3579m3579s3579p9m"],
        ["0:discard:8p", "1:win"],
        draws="5p4s",
        streak=2,
    ),
]


def _table(rnd: Round) -> list[str]:
    out = [
        "| # | payer | payee | category | points | ruling | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, line in enumerate(rnd.settlement().lines, 1):
        why = WHY.get(line.category, "D6: the winner's pattern (牌型)")
        if line.note:
            why += f" ({line.note})"
        out.append(
            f"| {number} | {line.payer} | {line.payee} | {line.category} | {line.points} "
            f"| {line.ruling} | {why} |"
        )
    return out


def main() -> None:
    """Play every example and write the records and the markdown."""
    (DOCS / "duyun").mkdir(parents=True, exist_ok=True)
    md = [
        "# 都匀独山捉鸡: worked examples",
        "",
        "Each hand below is a game record in `docs/rules/duyun/` (explicit wall, every action),",
        "followed by its settlement. `tests/rules/duyun/test_duyun_examples.py` replays every",
        "record and checks that its settlement equals the table here, line for line. Seats are",
        "numbered in turn order; the dealer is seat 0 unless said. Points are before the 底注.",
        "Regenerate with `PYTHONPATH=. python3 scripts/duyun_examples.py`.",
        "",
    ]
    for example in EXAMPLES:
        rnd = _play(example)
        path = DOCS / "duyun" / f"{example.slug}.json"
        path.write_text(dumps(record_of(rnd)), encoding="utf-8")
        dealer, streak = rnd.next_dealer()
        hands = ", ".join(f"seat {s}: `{h}`" for s, h in enumerate(example.hands))
        md += [
            f"## {example.slug[:2]}. {example.title}",
            "",
            f"Record: `docs/rules/duyun/{path.name}`",
            "",
            f"Dealt ({len(example.hands)} players, dealer {example.dealer}, streak "
            f"{example.streak}): {hands}. Actions: `{' '.join(example.steps)}`"
            + (EXHAUST_NOTE if "exhaust" in example.steps else "."),
            "",
            example.story,
            "",
            *_table(rnd),
            "",
            f"Totals: {list(rnd.settlement().totals)}. Next dealer: seat {dealer}, "
            f"streak {streak}.",
            "",
        ]
    (DOCS / "duyun-examples.md").write_text("\n".join(md), encoding="utf-8")


if __name__ == "__main__":
    main()
