"""The worked examples of ``docs/rules/zigong-examples.md``, and the script that writes them.

Each example is a scenario (hands, wall, actions) with a title and an explanation by ruling.
Run ``PYTHONPATH=. python3 tests/rules/zigong/zigong_examples.py`` to rewrite the JSON records
in ``docs/rules/zigong/`` and the markdown; ``test_zigong_examples.py`` replays every record
and checks its settlement against the markdown tables, so the two cannot drift apart.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from majiang.record import dumps, record_of
from majiang.round import Round
from tests.rules.scenario import ZIGONG, A, B, C, deal, play, play_out

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "rules"


@dataclass(frozen=True)
class Example:
    """One worked hand."""

    slug: str
    title: str
    explanation: str
    build: Callable[[], Round]


def _played(rnd: Round, script: str) -> Round:
    play(rnd, script)
    play_out(rnd)
    return rnd


EXAMPLES = [
    Example(
        "01-qingyise-gen",
        "清一色带根, 点炮 (2人)",
        "座1 `111123s456s789s` + `5s` 听 5s, 庄家打 5s 点炮。"
        "平胡 0 + 清一色 2 + 根 1 (四张 1s) = 3番, "
        "2^3 = 8 (Z11), 由点炮者一家付 (Z12)。地胡关闭, 以显示牌型。",
        lambda: _played(
            deal(ZIGONG, ["5s2689p3467p12359p", "111123s456s789s5s"], tiandihu=False),
            "1 pass; 0 discard 5s; 1 win",
        ),
    ),
    Example(
        "02-tianhu",
        "天胡 (4人)",
        "庄家起手 14 张 `333p666p999p33s666s` 即胡: 天胡按封顶 4番 = 16 (Z11, tiandihu 开),"
        " 自摸仍加 1 底分 "
        "(自摸加底), 三家各付 (Z12)。胡后其余三家血战到底 (Z4), 流局时都未下叫, 无查叫。",
        lambda: _played(deal(ZIGONG, ["333p666p999p33s666s", A, B, C]), "0 win"),
    ),
    Example(
        "03-three-kongs-chajiao",
        "暗杠、直杠、补杠与查大叫",
        "庄家暗杠 3p (三家各 2), 直杠座1打的 6p (座1付 2), 碰 6s 后下一轮补杠 (三家各 1) (Z14,"
        " Z9)。"
        "流局时庄家 `33s99p` 听 3s/9p: 碰碰胡 1 + 根 3 = 4番 = 16, 三家未下叫各付 (Z16)。",
        lambda: _played(
            deal(ZIGONG, ["3333p666p33s66s9s99p", A, B, C], draws="6p6s4s5s7s6s", back="1s2s8s"),
            "0 kong 3p; 0 discard 1s; 1 discard 6p; 0 kong 6p; 0 discard 2s; 1 discard 6s;"
            " 0 pung 6s; 0 discard 9s; 1 discard 4s; 2 discard 5s; 3 discard 7s; 0 kong 6s;"
            " 0 discard 8s",
        ),
    ),
    Example(
        "04-chajiao-tuishui",
        "查叫与退税 (3人)",
        "庄家暗杠 3p 后打散了牌, 流局时未下叫: 退税, 两家的暗杠钱退回 (Z17)。"
        "座1 听 5p (平胡 0番 = 1), "
        "庄家和座2 未下叫, 各付座1 1 (Z16)。",
        lambda: _played(
            deal(ZIGONG, ["3333p12459s1245p5p", "123s456s789s46p99p", B], back="6s"),
            "1 pass; 0 kong 3p; 0 discard 9s",
        ),
    ),
    Example(
        "05-hujiao-zhuanyi",
        "呼叫转移",
        "庄家暗杠 3p (三家各 2), 补牌后打 5p 被座3 胡 (杠上炮: 平胡 0 + 杠上炮 1 = 2) (Z11)。"
        "只有一家胡, "
        "这杠的 6 分转给座3 (Z15)。本房间关闭退税, 所以庄家流局未下叫时转移仍然有效;"
        "也关闭天地胡, 否则庄家的第一张打牌点炮算地胡 (Z11)。",
        lambda: _played(
            deal(
                ZIGONG,
                ["3333p12459s1245p5p", A, B, "123s456s789s46p99p"],
                back="6s",
                chajiao_tuishui=False,
                tiandihu=False,
            ),
            "3 pass; 0 kong 3p; 0 discard 5p; 3 win",
        ),
    ),
    Example(
        "06-hujiao-void",
        "杠上炮一炮双响: 杠钱作废 (3人)",
        "庄家暗杠 3p 后打 5p, 座1 座2 都胡 (一炮多响, Z3): 两家以上杠上炮, 杠钱不转移也不算 (Z15), "
        "两家各收杠上炮 2 (Z11; 本房间关闭天地胡)。只剩一人, 本局结束, 不查叫 (Z4)。"
        "下一局由放炮的庄家坐庄 (Z5)。",
        lambda: _played(
            deal(
                ZIGONG,
                ["3333p12459s1245p5p", "123s456s789s46p99p", "123s456s789s46p88p"],
                back="6s",
                tiandihu=False,
            ),
            "1 pass; 2 pass; 0 kong 3p; 0 discard 5p; 1 win; 2 win",
        ),
    ),
    Example(
        "07-fanchajiao",
        "反查叫",
        "座1 起手报叫 (Z19), 座2 听同样的牌但不报。流局 (Z16, Z18):"
        " 未下叫的座0 和座3 各付座1 平胡 0 + 报叫 1 = 2, "
        "各付座2 1; 报叫未胡的座1 反查叫, 付座2 (平胡 0 + 报叫 1) = 2。",
        lambda: _played(
            deal(
                ZIGONG,
                [
                    "13579s13579p22p55p",
                    "123s456s789s46p99p",
                    "123s456s789s46p88p",
                    "2468s1357p3377p9s",
                ]
            ),
            "1 declare; 2 pass",
        ),
    ),
    Example(
        "08-xuezhan-three-winners",
        "血战到底: 三家胡牌",
        "庄家第一张打 5p: 座2 座3 胡 (地胡, 封顶 16, Z11); 座1 能胡也能碰, 选了过 (过手胡, Z8)。"
        "一炮多响后由放炮者下家中未胡的座1 摸牌 (Z4)。座1 摸 9s 打出, 锁解除; 之后自摸 5p:"
        " 平胡 + 自摸加底, "
        "只剩庄家一家付 (Z12)。只剩一人, 本局结束。",
        lambda: _played(
            deal(
                ZIGONG,
                [
                    "5p1122p44p66p88p9p3s4s",
                    "55p678s333p777p22s",
                    "123s456s789s46p99p",
                    "123s456s789s46p88p",
                ],
                draws="9s2p5p",
            ),
            "1 pass; 2 pass; 3 pass; 0 discard 5p; 1 pass; 2 win; 3 win; 1 discard 9s;"
            " 0 discard 2p; 1 win",
        ),
    ),
    Example(
        "09-baogang-case1",
        "报叫报杠 (案例1)",
        "庄家 `111p222p33p4444p44s` 打 4p 报叫, 报杠勾选 1p 2p (Z19, Z20)。摸到第四张 1p 自动暗杠, "
        "座1 打出第四张 2p 自动直杠 (Z20)。流局时庄家听 3p/4s:"
        " 碰碰胡 1 + 根 2 + 报叫 1 = 4番 = 16 (Z18)。"
        "战绩中记录了勾选的 1p 2p。",
        lambda: _played(
            deal(ZIGONG, ["111p222p33p4444p44s", "12356789s56789p"], draws="9s1p2p", back="7s8s"),
            "0 declare 4p ticks=1p2p; 1 discard 9s; 1 discard 2p",
        ),
    ),
    Example(
        "10-qianggang-multi-use",
        "一牌多用: 抢杠胡后补杠照样成立 (3人)",
        "庄家碰 6s 后补杠, 座1 抢杠胡 (平胡 0 + 抢杠胡 1 = 2, 被抢者付, Z12)。一牌多用开启:"
        " 补杠照样完成, "
        "座2 付的 1 分转给抢杠者, 且不再退税 (Z21, Z17)。",
        lambda: _played(
            deal(
                ZIGONG,
                ["66s1234s1234p88s9p5p", "57s123p456p789p99s", "1234s1234p5678p9s"],
                draws="7p6s6p4s6s",
                back="8p",
                multi_use=True,
            ),
            "1 pass; 0 discard 5p; 1 discard 7p; 2 discard 6s; 1 pass; 0 pung 6s; 0 discard 9p;"
            " 1 discard 6p; 2 discard 4s; 0 kong 6s; 1 win",
        ),
    ),
    Example(
        "11-luobo",
        "萝卜 (2张)",
        "开局从牌墙尾翻出萝卜 6s、3p (Z13)。庄家自摸 6s: 碰碰胡 1番 = 2, 自摸加底 1,"
        " 手中 3 张 6s 和 3 张 3p "
        "各加 1 底分, 共 6 (Z11, Z13), 三家各付。",
        lambda: _played(
            deal(ZIGONG, ["333p666p999p33s669s", A, B, C], draws="1s2s4s6s", back="6s3p", luobo=2),
            "0 discard 9s; 1 discard 1s; 2 discard 2s; 3 discard 4s; 0 win",
        ),
    ),
    Example(
        "12-dianganghua-feeder",
        "点杠花由点杠者付",
        "座1 打 6p, 庄家直杠 (座1付 2, Z14), 补牌 3s 杠上开花:"
        " 碰碰胡 1 + 根 1 + 杠上开花 1 = 3番 = 8, "
        "加自摸加底 1。房间设置 dianganghua = feeder: 由点杠的座1 一家付自摸的分 (Z12)。",
        lambda: _played(
            deal(
                ZIGONG,
                ["666p333p999p33s66s1s", A, B, C],
                draws="6p",
                back="3s",
                dianganghua="feeder",
            ),
            "0 discard 1s; 1 discard 6p; 0 kong 6p; 0 win",
        ),
    ),
    Example(
        "13-guoshou-hu",
        "过手胡 (2人)",
        "座1 听 5p, 过了庄家打的 5p (本是地胡), 之后自己摸到 5p 也不能自摸 (Z8: 加番也不能胡),"
        " 打出后锁解除, "
        "再胡庄家的 5p: 平胡 0番 = 1。",
        lambda: _played(
            deal(ZIGONG, ["5p12458s12478p9s3s3p", "123s456s789s46p99p"], draws="5p5p"),
            "1 pass; 0 discard 5p; 1 pass; 1 discard 5p; 0 discard 5p; 1 win",
        ),
    ),
]


def table(rnd: Round) -> list[str]:
    """The settlement of ``rnd`` as markdown table rows (header included)."""
    rows = [
        "| payer | payee | category | points | ruling | note |",
        "|---|---|---|---|---|---|",
    ]
    for line in rnd.settlement().lines:
        rows.append(
            f"| {line.payer} | {line.payee} | {line.category} | {line.points} | "
            f"{line.ruling} | {line.note} |"
        )
    return rows


HEADER = """# 自贡麻将: worked examples

Every hand below is a game record in `docs/rules/zigong/` (explicit wall, every action). The
tables are the settlement the engine computes when it replays the record: payer pays payee
`points` 底分 for `category`, by ruling `ruling` (`shared/rules/zigong.md`). Seats are numbered
from 0 in turn order; the dealer is seat 0. `tests/rules/zigong/test_zigong_examples.py`
replays every record and compares its settlement with these tables, so they cannot drift.

Regenerate with `PYTHONPATH=. python3 tests/rules/zigong/zigong_examples.py`.
"""


def markdown() -> str:
    """The whole examples document."""
    parts = [HEADER]
    for number, example in enumerate(EXAMPLES, 1):
        rnd = example.build()
        totals = ", ".join(f"座{s} {t:+d}" for s, t in enumerate(rnd.settlement().totals))
        parts.append(
            f"## {number}. {example.title}\n\n"
            f"Record: [`zigong/{example.slug}.json`](zigong/{example.slug}.json)\n\n"
            f"{example.explanation}\n\n" + "\n".join(table(rnd)) + f"\n\nTotals: {totals}.\n"
        )
    return "\n".join(parts)


def write() -> None:
    """Write every record and the markdown."""
    (DOCS / "zigong").mkdir(parents=True, exist_ok=True)
    for example in EXAMPLES:
        path = DOCS / "zigong" / f"{example.slug}.json"
        path.write_text(dumps(record_of(example.build())), encoding="utf-8")
    (DOCS / "zigong-examples.md").write_text(markdown(), encoding="utf-8")


if __name__ == "__main__":
    write()
