"""The room settings of 都匀独山捉鸡 (the table at the end of the D rulings).

Every setting has a Chinese label and a one-line description for players; ``rulings``
names the D rulings it comes from (shown only in a 规则出处 detail).
"""

from __future__ import annotations

from majiang.settings import OFFLINE_SETTINGS, Setting, SettingsSchema

__all__ = ["SCHEMA"]

SCHEMA = SettingsSchema(
    (
        Setting(
            "players", "int", 4, "几个人一桌", choices=(3, 4), label="人数", rulings=("D1",)
        ),
        Setting(
            "base_stake",
            "int",
            1,
            "每 1 分折算多少底注，记入战绩账本",
            minimum=1,
            maximum=100000,
            label="底注",
            rulings=("D22",),
        ),
        Setting(
            "hands_per_match",
            "int",
            8,
            "一场打几局",
            choices=(4, 8, 16),
            label="局数",
            rulings=("D4",),
        ),
        Setting(
            "turn_seconds",
            "int",
            15,
            "每次出牌或碰杠胡的思考时间（秒）",
            minimum=5,
            maximum=60,
            label="出牌限时",
            rulings=("D5",),
        ),
        Setting(
            "timeout_takes_win",
            "bool",
            True,
            "超时时如果能胡，系统自动替你胡牌",
            label="超时自动胡",
            rulings=("D5",),
        ),
        Setting(
            "auto_play_after",
            "int",
            2,
            "连续超时几次后由系统托管出牌",
            minimum=1,
            maximum=5,
            label="超时托管",
            rulings=("D5",),
        ),
        *OFFLINE_SETTINGS,
        Setting(
            "multi_win_dealer",
            "choice",
            "first_winner",
            "一炮多响之后下一局由谁坐庄",
            choices=("first_winner", "discarder"),
            choice_labels=("庄家逆时针数第一个胡牌者", "点炮者"),
            label="一炮多响坐庄",
            rulings=("D4",),
        ),
        Setting(
            "pinghu_discard_needs_dou",
            "bool",
            True,
            "平胡接炮必须有豆（热炮、抢杠、报听除外）",
            label="平胡需豆",
            rulings=("D7",),
        ),
        Setting(
            "baopai",
            "bool",
            True,
            "过胡之后再胡同一张牌要包牌",
            label="包牌",
            rulings=("D8",),
        ),
        Setting(
            "zimo_bonus",
            "int",
            1,
            "自摸时每家多给的分数",
            minimum=0,
            maximum=2,
            label="自摸加分",
            rulings=("D10",),
        ),
        Setting(
            "fanji",
            "choice",
            "next",
            "胡牌后翻一张牌定鸡：翻出牌的下一张、上下两张，或不翻",
            choices=("next", "up_down", "off"),
            choice_labels=("翻牌鸡（下一张）", "上下鸡", "不翻"),
            label="翻鸡",
            rulings=("D15",),
        ),
        Setting(
            "mantang",
            "bool",
            True,
            "打出去的鸡也照样算分",
            label="满堂鸡",
            rulings=("D16",),
        ),
        Setting(
            "first_chicken",
            "choice",
            "hero",
            "第一张打出的幺鸡算英雄鸡还是冲锋鸡",
            choices=("hero", "charge"),
            choice_labels=("英雄鸡（3/6 分）", "冲锋鸡（2/4 分）"),
            label="首张幺鸡",
            rulings=("D17",),
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
    )
)
