"""The room settings of 都匀独山捉鸡 (the table at the end of the D rulings)."""

from __future__ import annotations

from majiang.settings import Setting, SettingsSchema

__all__ = ["SCHEMA"]

SCHEMA = SettingsSchema(
    (
        Setting("players", "int", 4, "玩家人数 (D1)", choices=(3, 4), label="人数"),
        Setting(
            "base_stake", "int", 1, "每分的底注 (D22)", minimum=1, maximum=100000, label="底注"
        ),
        Setting("hands_per_match", "int", 8, "每场局数 (D4)", choices=(4, 8, 16), label="局数"),
        Setting(
            "turn_seconds", "int", 15, "每次操作限时(秒) (D5)", minimum=5, maximum=60, label="限时"
        ),
        Setting(
            "timeout_takes_win", "bool", True, "超时时如可胡则自动胡牌 (D5)", label="超时自动胡"
        ),
        Setting(
            "auto_play_after",
            "int",
            2,
            "连续超时几次后进入托管 (D5)",
            minimum=1,
            maximum=5,
            label="托管",
        ),
        Setting(
            "multi_win_dealer",
            "choice",
            "first_winner",
            "一炮多响后谁坐庄: 庄家逆时针数第一个胡牌者, 或点炮者 (D4)",
            choices=("first_winner", "discarder"),
            choice_labels=("庄家逆时针数第一个胡牌者", "点炮者"),
            label="一炮多响坐庄",
        ),
        Setting(
            "pinghu_discard_needs_dou",
            "bool",
            True,
            "平胡点炮须有豆 (热炮、抢杠、报听除外) (D7)",
            label="平胡需豆",
        ),
        Setting("baopai", "bool", True, "过胡后再遇可胡之牌须包牌 (D8)", label="包牌"),
        Setting("zimo_bonus", "int", 1, "自摸加分 (D10)", minimum=0, maximum=2, label="自摸加分"),
        Setting(
            "fanji",
            "choice",
            "next",
            "翻鸡: 翻牌鸡(下一张)、上下鸡或不翻 (D15)",
            choices=("next", "up_down", "off"),
            choice_labels=("翻牌鸡 (下一张)", "上下鸡", "不翻"),
            label="翻鸡",
        ),
        Setting("mantang", "bool", True, "满堂鸡: 打出的鸡也算收分 (D16)", label="满堂鸡"),
        Setting(
            "first_chicken",
            "choice",
            "hero",
            "第一张幺鸡: 英雄鸡(3/6分)或冲锋鸡(2/4分) (D17)",
            choices=("hero", "charge"),
            choice_labels=("英雄鸡 (3/6 分)", "冲锋鸡 (2/4 分)"),
            label="首张幺鸡",
        ),
        Setting(
            "claim_pause_ms",
            "int",
            0,
            "每次出牌、补杠后统一等待的毫秒数, 无人可碰杠胡时也等待, 0 为不等待 (H4)",
            minimum=0,
            maximum=3000,
            label="出牌停顿",
        ),
    )
)
