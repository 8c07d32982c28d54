"""The ruling registry: every ruling ID the engine cites, with a short Chinese summary.

The rulings are the numbered decisions of the rulebook, ``docs/rules/rulebook.md`` (都匀:
D1–D23 and D10a; 自贡: Z1–Z21; both: H1–H4, what the table may reveal), plus ``basic``, the
one rule of the test variant; ``tests/rules/test_ruling_ids.py`` keeps every cited ID here.
Every :class:`~majiang.settlement.SettlementLine` names one in its ``ruling``; the 玩法说明
pages and the "规则出处" details read them from here::

    >>> ruling("D17").title_zh
    '冲锋鸡 / 英雄鸡'
    >>> [r.id for r in rulings_for("zigong")][:3]
    ['Z1', 'Z2', 'Z3']

A numbered step of a ruling, such as ``D21.3`` (step 3 of D21), resolves to its ruling.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from majiang.errors import UnknownRulingError

__all__ = ["RULINGS", "Ruling", "ruling", "rulings_for"]


@dataclass(frozen=True, slots=True)
class Ruling:
    """One ruling: its ``id`` (``D17``), the ``variant`` id it belongs to (``None`` for the
    H rulings that hold at every table), a short title and a one-line summary, in Chinese."""

    id: str
    variant: str | None
    title_zh: str
    summary_zh: str


_TABLE: tuple[tuple[str, str | None, str, str], ...] = (
    ("basic", "basic", "基础规则", "测试用玩法: 每个付款人付给每个胡牌者1分, 胡牌者下局坐庄。"),
    # 都匀独山捉鸡 (duyun.md)
    ("D1", "duyun", "牌与发牌", "108张万条筒, 3或4人; 庄家14张, 闲家13张, 庄家先打。"),
    (
        "D2",
        "duyun",
        "可做的操作",
        "摸、打、碰、杠、胡、报听、过; 不能吃; 转弯豆须碰后摸到第四张; 过碰不锁。",
    ),
    ("D3", "duyun", "点炮时的抢牌", "胡优先于杠碰, 可一炮多响; 有人胡牌本局即结束; 海底牌只能胡。"),
    (
        "D4",
        "duyun",
        "坐庄与连庄",
        "胡牌者坐庄; 一炮多响看设置; 黄庄时按叫牌情况定庄; 连庄数逐局累加。",
    ),
    (
        "D5",
        "duyun",
        "操作限时",
        "超时自动打出最右边的牌或过; 可胡时按设置自动胡; 连续超时进入托管。",
    ),
    (
        "D6",
        "duyun",
        "牌型分",
        "取最大的一种牌型: 平胡1, 大对子5, 小七对10, 单吊10, 龙七对20, 清一色类更高。",
    ),
    (
        "D7",
        "duyun",
        "胡牌条件",
        "自摸总可胡; 平胡点炮须有豆, 热炮、抢杠、报听除外; 大牌可直接点炮胡。",
    ),
    (
        "D8",
        "duyun",
        "过胡与包牌",
        "过胡后到下次摸牌前不能胡; 锁定期间再遇可胡之牌须向每家包付牌型分。",
    ),
    ("D9", "duyun", "报听", "起手第一次打牌时可报听; 之后自动摸打, 不能碰杠, 胡牌加10分。"),
    ("D10", "duyun", "胡牌加分", "每个付款人另付: 自摸加1 (可设置), 杠上花加1, 报听加10。"),
    ("D10a", "duyun", "庄闲连庄分", "庄家与闲家之间的胡牌付款加上庄家的连庄数, 只加在胡牌分上。"),
    (
        "D11",
        "duyun",
        "豆的种类",
        "明豆由打牌者付3分, 暗豆和转弯豆由其他每家各付3分; 杠后从牌尾补牌。",
    ),
    ("D12", "duyun", "豆何时算分", "只有有人胡牌时才算豆, 且杠的人须胡牌或叫牌; 黄庄不算豆。"),
    ("D13", "duyun", "热炮", "杠后打出的牌被胡: 烧掉杠者本局的豆, 付牌型分加倍再加1。"),
    ("D14", "duyun", "抢杠", "转弯豆可被抢胡; 被抢者付10分加牌型分, 本局不收任何鸡和豆。"),
    (
        "D15",
        "duyun",
        "鸡牌与翻鸡",
        "幺鸡总是鸡; 胡牌后翻开下一张牌定翻牌鸡; 翻出9条则幺鸡为金鸡, 分数加倍。",
    ),
    ("D16", "duyun", "鸡归谁", "手牌、碰杠和自己牌河里的牌; 牌河里的鸡只在满堂鸡时收分。"),
    (
        "D17",
        "duyun",
        "冲锋鸡 / 英雄鸡",
        "全桌第一张打出且没被碰杠的幺鸡: 叫牌者收每家, 未叫牌者赔每家。",
    ),
    ("D18", "duyun", "普通鸡与翻牌鸡", "叫牌者每只鸡收每家1分; 未叫牌者为打出或碰杠的幺鸡赔每家。"),
    ("D19", "duyun", "责任鸡", "第一张幺鸡被碰杠时, 打鸡者与碰鸡者之间按双方叫牌情况另算。"),
    ("D20", "duyun", "不算的鸡和豆", "被抢杠者本局不收鸡和豆; 点热炮者只烧豆。"),
    (
        "D21",
        "duyun",
        "黄庄",
        "不翻鸡不算豆; 未叫牌者向叫牌者查叫, 并为牌河里的幺鸡赔每家; 包牌照算。",
    ),
    ("D22", "duyun", "结算顺序", "先算胡牌分, 再一次性算翻鸡、豆和鸡, 最后算包牌; 每分乘以底注。"),
    (
        "D23",
        "duyun",
        "结算显示",
        "显示胡或黄庄、庄家、连庄、翻牌与鸡牌、底注, 以及每家的叫牌、鸡、豆和输赢。",
    ),
    # 自贡麻将 (zigong.md)
    ("Z1", "zigong", "牌与发牌", "72张条和筒, 2至4人; 庄家14张, 闲家13张。"),
    (
        "Z2",
        "zigong",
        "可做的操作",
        "摸、打、碰、杠、胡 (自摸、点炮、抢杠)、报叫、报杠、过; 不能吃。",
    ),
    (
        "Z3",
        "zigong",
        "抢牌",
        "所有可操作的玩家同时选择, 胡 > 杠 > 碰; 可一炮多响、多人抢杠; 海底牌只能胡。",
    ),
    ("Z4", "zigong", "血战到底", "胡牌者离场, 其余玩家继续, 直到只剩一家未胡或牌摸完。"),
    ("Z5", "zigong", "坐庄", "首局随机定庄; 之后由本局第一个胡牌者坐庄, 一炮多响时由点炮者坐庄。"),
    (
        "Z6",
        "zigong",
        "操作限时",
        "同都匀: 超时自动打牌或过, 可胡时按设置自动胡; 报叫后的自动打牌不算超时。",
    ),
    ("Z7", "zigong", "过手碰", "能碰而不碰, 到自己下次摸牌前不能碰; 直杠不受限。"),
    ("Z8", "zigong", "过手胡", "能胡而不胡, 到自己再打出一张牌前不能胡, 加番也不行, 自摸也不行。"),
    ("Z9", "zigong", "碰后", "碰后必须打牌, 本轮不能杠。"),
    ("Z10", "zigong", "杠后", "杠后从牌尾补牌, 可再杠, 可杠上开花; 牌墙摸完时不能杠。"),
    ("Z11", "zigong", "牌型与番", "每家付 底分×2^番, 番数封顶; 牌型番加清一色、根、卡二条等加番。"),
    (
        "Z12",
        "zigong",
        "谁付胡牌分",
        "自摸由未胡的每家付, 点炮由点炮者付, 抢杠由被抢者付; 点杠花看设置。",
    ),
    ("Z13", "zigong", "萝卜", "开局从牌尾翻出萝卜牌; 胡牌时手中每有一张萝卜牌, 每家多付1底分。"),
    ("Z14", "zigong", "刮风下雨", "直杠由点杠者付2, 补杠每家付1, 暗杠每家付2; 局终才最终结算。"),
    ("Z15", "zigong", "呼叫转移", "杠后打出的牌被一家胡, 该轮的杠分转给胡牌者; 多家胡则杠分作废。"),
    ("Z16", "zigong", "查叫", "牌摸完时, 未下叫者按下叫者最大的番付给每个下叫者。"),
    ("Z17", "zigong", "查叫退税", "牌摸完时未下叫者退还本局收到的全部杠分。"),
    (
        "Z18",
        "zigong",
        "反查叫",
        "报叫而未胡者: 向下叫者付其最大番加1番, 也按自己的番加1番查未下叫者, 且不退税。",
    ),
    (
        "Z19",
        "zigong",
        "报叫",
        "起手听牌的闲家在庄家出牌前报叫, 庄家以第一张打牌报叫; 之后自动摸打。",
    ),
    (
        "Z20",
        "zigong",
        "报杠",
        "报叫后可勾选手中的暗刻报杠, 勾选的牌出现时自动开杠, 未勾选的牌不能杠。",
    ),
    (
        "Z21",
        "zigong",
        "一牌多用",
        "开启时被胡的牌仍可碰杠, 被抢的补杠照样完成, 杠分转给唯一的抢杠者。",
    ),
    # 两种玩法都适用 (README.md)
    (
        "H1",
        None,
        "窗口期不泄露",
        "抢牌、抢杠、报叫窗口期间, 不公开还没公开行动的玩家; 自己的选择只发给自己。",
    ),
    ("H2", None, "不发空更新", "只取决于他人私下选择的消息不发给任何人。"),
    (
        "H3",
        "zigong",
        "报叫阶段",
        "每局开局都有同样的报叫阶段, 至少持续设定的时间, 不暴露谁能报叫。",
    ),
    ("H4", None, "出牌停顿", "可设置每次打牌和补杠后的最短等待, 有没有人能抢牌看起来都一样。"),
)

RULINGS: Mapping[str, Ruling] = MappingProxyType({row[0]: Ruling(*row) for row in _TABLE})
"""Every ruling by ID, in the order of the rulings files."""

_STEP = re.compile(r"^([DZH][0-9]+[a-z]?)\.[0-9]+$")


def ruling(ruling_id: str) -> Ruling:
    """The ruling with this ID (``D17``, ``Z20``, ``H3``, ``basic``; a step such as ``D21.3``
    gives its ruling). Raises :class:`~majiang.errors.UnknownRulingError` if there is none."""
    found = RULINGS.get(ruling_id)
    if found is None:
        step = _STEP.match(ruling_id)
        found = RULINGS.get(step.group(1)) if step else None
    if found is None:
        raise UnknownRulingError(ruling_id)
    return found


def rulings_for(variant_id: str) -> tuple[Ruling, ...]:
    """The rulings of one variant together with those of every table (H1, H2, H4), in the
    order of the rulings files. Empty for an unknown variant."""
    if not any(r.variant == variant_id for r in RULINGS.values()):
        return ()
    return tuple(r for r in RULINGS.values() if r.variant in (variant_id, None))
