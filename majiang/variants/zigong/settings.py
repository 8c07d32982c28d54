"""The room settings of 自贡麻将 (the table at the end of the Z rulings).

Every setting has a Chinese label and a one-line description for players; ``rulings``
names the Z rulings it comes from (shown only in a 规则出处 detail).
"""

from __future__ import annotations

from majiang.settings import OFFLINE_SETTINGS, Setting, SettingsSchema

__all__ = ["SCHEMA"]

SCHEMA = SettingsSchema(
    (
        Setting(
            "players", "int", 4, "几个人一桌", choices=(2, 3, 4), label="人数", rulings=("Z1",)
        ),
        Setting(
            "base_stake",
            "int",
            1,
            "每 1 分折算多少底分，记入战绩账本",
            minimum=1,
            maximum=100000,
            label="底分",
        ),
        Setting(
            "hands_per_match",
            "int",
            8,
            "一场打几局",
            choices=(4, 8, 16),
            label="局数",
            rulings=("Z5",),
        ),
        Setting(
            "turn_seconds",
            "int",
            15,
            "每次出牌或碰杠胡的思考时间（秒）",
            minimum=5,
            maximum=60,
            label="出牌限时",
            rulings=("Z6",),
        ),
        Setting(
            "timeout_takes_win",
            "bool",
            True,
            "超时时如果能胡，系统自动替你胡牌",
            label="超时自动胡",
            rulings=("Z6",),
        ),
        Setting(
            "auto_play_after",
            "int",
            2,
            "连续超时几次后由系统托管出牌",
            minimum=1,
            maximum=5,
            label="超时托管",
            rulings=("Z6",),
        ),
        Setting(
            "fan_cap",
            "int",
            4,
            "一手牌最多算几番",
            choices=(3, 4, 5, 6),
            label="封顶番数",
            rulings=("Z11",),
        ),
        *OFFLINE_SETTINGS,
        Setting(
            "zimo",
            "choice",
            "add_base",
            "自摸时的奖励：每家多付 1 底分、多算 1 番，或不加",
            choices=("add_base", "add_fan", "none"),
            choice_labels=("每家加 1 底分", "加 1 番", "不加"),
            label="自摸",
            rulings=("Z11",),
        ),
        Setting(
            "dianganghua",
            "choice",
            "zimo",
            "别人点杠后杠上开花：按自摸算，或由点杠的人一家付",
            choices=("zimo", "feeder"),
            choice_labels=("按自摸算", "点杠者一家付"),
            label="点杠花",
            rulings=("Z12",),
        ),
        Setting(
            "tiandihu",
            "bool",
            True,
            "天胡、地胡直接按封顶番数算",
            label="天地胡",
            rulings=("Z11",),
        ),
        Setting(
            "luobo",
            "int",
            0,
            "翻几张萝卜牌，胡牌时手里每有一张多加 1 底分",
            minimum=0,
            maximum=4,
            label="萝卜",
            rulings=("Z13",),
        ),
        Setting(
            "multi_use",
            "bool",
            False,
            "被胡的那张牌仍然可以碰、杠",
            label="一牌多用",
            rulings=("Z21",),
        ),
        Setting(
            "hujiao_zhuanyi",
            "bool",
            True,
            "杠上炮时，杠钱转给接炮的人",
            label="呼叫转移",
            rulings=("Z15",),
        ),
        Setting(
            "chajiao_tuishui",
            "bool",
            True,
            "流局时没下叫的人退还收到的杠钱",
            label="查叫退税",
            rulings=("Z17",),
        ),
        Setting(
            "claim_pause_ms",
            "int",
            0,
            "每次出牌、补杠后统一停顿的毫秒数，没人能碰杠胡时也停顿，"
            "别人就看不出谁能操作；0 为不停顿",
            minimum=0,
            maximum=3000,
            label="出牌停顿",
            rulings=("H4",),
        ),
        Setting(
            "declare_pause_ms",
            "int",
            2000,
            "每局开局的报叫阶段至少持续的毫秒数，不论有没有人能报叫",
            minimum=0,
            maximum=5000,
            label="报叫停顿",
            rulings=("Z19", "H3"),
        ),
    )
)
