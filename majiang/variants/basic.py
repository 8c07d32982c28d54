"""``basic``: plain rules with no scoring extras, for engine tests and benchmarks.

108 tiles, 2–4 players, no declarations, the hand ends at the first win. Each payer pays
each winner 1 point: everyone else on a self-draw, the discarder (or the robbed player)
otherwise. The winner deals next; with no winner the dealer stays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from majiang.settings import OFFLINE_SETTINGS, Setting, SettingsSchema
from majiang.settlement import LineKind, NoSummary, Settlement, SettlementLine
from majiang.state import WinSource
from majiang.tiles import Tile
from majiang.variant import Variant

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["BasicVariant"]


class BasicVariant(Variant):
    """Generic mahjong with 1-point wins; see the module docstring."""

    id = "basic"
    name = "基础规则"
    for_players = False
    schema = SettingsSchema(
        (
            Setting("players", "int", 4, "玩家人数", choices=(2, 3, 4), label="人数"),
            Setting("base_stake", "int", 1, "每分的底注", minimum=1, maximum=1000, label="底注"),
            Setting(
                "hands_per_match", "int", 8, "每场局数", choices=(4, 8, 16), label="局数"
            ),
            Setting(
                "turn_seconds",
                "int",
                15,
                "每次操作限时(秒)",
                minimum=5,
                maximum=60,
                label="出牌限时",
            ),
            Setting(
                "timeout_takes_win", "bool", True, "超时时如可胡则自动胡牌", label="超时自动胡"
            ),
            Setting(
                "auto_play_after",
                "int",
                2,
                "连续超时几次后进入托管",
                minimum=1,
                maximum=5,
                label="超时托管",
            ),
            *OFFLINE_SETTINGS,
        )
    )

    def tile_kinds(self, settings: Mapping[str, Any]) -> Sequence[Tile]:
        """All 27 kinds: 108 tiles."""
        return list(Tile)

    def settle(self, rnd: Round) -> Settlement[NoSummary, NoSummary]:
        """One point per payer per winner."""
        lines: list[SettlementLine] = []
        for win in rnd.wins:
            payers = win.payers if win.source is WinSource.SELF_DRAW else (win.from_seat,)
            for payer in payers:
                assert payer is not None
                lines.append(SettlementLine(payer, win.seat, "胡牌", 1, "basic", kind=LineKind.WIN))
        return Settlement.of(lines, rnd.players, NoSummary(), [])

    def next_dealer(self, rnd: Round) -> tuple[int, int]:
        """The first winner deals; with no winner the dealer stays and the streak grows."""
        nxt = rnd.wins[0].seat if rnd.wins else rnd.dealer
        return nxt, rnd.streak + 1 if nxt == rnd.dealer else 1
