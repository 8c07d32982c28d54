"""The room settings of 自贡麻将 (the table at the end of the Z rulings)."""

from __future__ import annotations

from majiang.settings import Setting, SettingsSchema

__all__ = ["SCHEMA"]

SCHEMA = SettingsSchema(
    (
        Setting("players", "int", 4, "玩家人数 (Z1)", choices=(2, 3, 4), label="人数"),
        Setting("base_stake", "int", 1, "每分的底分", minimum=1, maximum=100000, label="底分"),
        Setting("hands_per_match", "int", 8, "每场局数 (Z5)", choices=(4, 8, 16), label="局数"),
        Setting(
            "turn_seconds", "int", 15, "每次操作限时(秒) (Z6)", minimum=5, maximum=60, label="限时"
        ),
        Setting(
            "timeout_takes_win", "bool", True, "超时时如可胡则自动胡牌 (Z6)", label="超时自动胡"
        ),
        Setting(
            "auto_play_after",
            "int",
            2,
            "连续超时几次后进入托管 (Z6)",
            minimum=1,
            maximum=5,
            label="托管",
        ),
        Setting("fan_cap", "int", 4, "番数封顶 (Z11)", choices=(3, 4, 5, 6), label="封顶"),
        Setting(
            "zimo",
            "choice",
            "add_base",
            "自摸: 每家加1底分、加1番或不加 (Z11)",
            choices=("add_base", "add_fan", "none"),
            choice_labels=("每家加 1 底分", "加 1 番", "不加"),
            label="自摸",
        ),
        Setting(
            "dianganghua",
            "choice",
            "zimo",
            "点杠花: 按自摸算, 或由点杠者一家付自摸的分 (Z12)",
            choices=("zimo", "feeder"),
            choice_labels=("按自摸算", "点杠者一家付"),
            label="点杠花",
        ),
        Setting("tiandihu", "bool", True, "天胡、地胡按封顶计 (Z11)", label="天地胡"),
        Setting(
            "luobo",
            "int",
            0,
            "萝卜牌张数, 胡牌时每张加1底分 (Z13)",
            minimum=0,
            maximum=4,
            label="萝卜",
        ),
        Setting("multi_use", "bool", False, "一牌多用: 被胡的牌仍可碰杠 (Z21)", label="一牌多用"),
        Setting(
            "hujiao_zhuanyi",
            "bool",
            True,
            "呼叫转移: 杠上炮时杠钱转给接炮者 (Z15)",
            label="呼叫转移",
        ),
        Setting(
            "chajiao_tuishui",
            "bool",
            True,
            "查叫退税: 流局未下叫者退还杠钱 (Z17)",
            label="查叫退税",
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
        Setting(
            "declare_pause_ms",
            "int",
            2000,
            "每局开局的报叫阶段至少持续的毫秒数, 不论有没有人能报叫 (Z19, H3)",
            minimum=0,
            maximum=5000,
            label="报叫停顿",
        ),
    )
)
