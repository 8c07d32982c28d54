"""majiang: pure-Python rules for 都匀独山捉鸡 and 自贡麻将.

The package never imports Django. Start with :class:`Round` (one hand), the variants in
:mod:`majiang.variants`, and :mod:`majiang.record` for game records.
"""

from majiang.actions import Action, ActionType, Event
from majiang.errors import IllegalActionError, RecordError, SettingsError
from majiang.match import Match
from majiang.round import Round
from majiang.settlement import Settlement, SettlementLine
from majiang.state import Meld, MeldKind, Phase, Win, WinSource
from majiang.tiles import NotationError, Tile, format_tiles, parse_tile, parse_tiles
from majiang.variants import VARIANTS, get_variant

__all__ = [
    "VARIANTS",
    "Action",
    "ActionType",
    "Event",
    "IllegalActionError",
    "Match",
    "Meld",
    "MeldKind",
    "NotationError",
    "Phase",
    "RecordError",
    "Round",
    "SettingsError",
    "Settlement",
    "SettlementLine",
    "Tile",
    "Win",
    "WinSource",
    "format_tiles",
    "get_variant",
    "parse_tile",
    "parse_tiles",
]
