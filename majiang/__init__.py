"""majiang: pure-Python rules for 都匀独山捉鸡 and 自贡麻将.

The package never imports Django. Start with :class:`Round` (one hand), the variants in
:mod:`majiang.variants`, and :mod:`majiang.record` for game records; :mod:`majiang.rulings`
names every ruling a settlement line cites.
"""

from majiang.actions import Action, ActionType, Event
from majiang.errors import IllegalActionError, RecordError, SettingsError, UnknownRulingError
from majiang.match import Match
from majiang.round import Round
from majiang.rulings import Ruling, ruling, rulings_for
from majiang.settlement import LineKind, Settlement, SettlementLine, line_kind
from majiang.state import Meld, MeldKind, Phase, Win, WinSource
from majiang.tiles import NotationError, Tile, format_tiles, parse_tile, parse_tiles
from majiang.variants import VARIANTS, get_variant

__all__ = [
    "VARIANTS",
    "Action",
    "ActionType",
    "Event",
    "IllegalActionError",
    "LineKind",
    "Match",
    "Meld",
    "MeldKind",
    "NotationError",
    "Phase",
    "RecordError",
    "Round",
    "Ruling",
    "SettingsError",
    "Settlement",
    "SettlementLine",
    "Tile",
    "UnknownRulingError",
    "Win",
    "WinSource",
    "format_tiles",
    "get_variant",
    "line_kind",
    "parse_tile",
    "parse_tiles",
    "ruling",
    "rulings_for",
]
