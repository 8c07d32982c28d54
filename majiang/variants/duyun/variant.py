"""The 都匀独山捉鸡 variant (``duyun``): table, flow and eligibility (D1–D9), dealer (D4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from majiang.state import MeldKind, WinSource
from majiang.tiles import Tile
from majiang.variant import LockRelease, Variant
from majiang.variants.duyun.patterns import pattern_of
from majiang.variants.duyun.settings import SCHEMA
from majiang.variants.duyun.settle import settle

if TYPE_CHECKING:
    from majiang.round import Round
    from majiang.settlement import Settlement
    from majiang.variants.duyun.settle import DuyunPlayer, DuyunSummary

__all__ = ["DuyunVariant"]


class DuyunVariant(Variant):
    """都匀独山捉鸡: 108 tiles, 3–4 players, 豆 and 鸡 (rulings D1–D23)."""

    id = "duyun"
    name = "都匀独山捉鸡"
    summary = "万条筒 108 张，3 或 4 人；胡牌要有豆，胡牌后翻牌捉鸡，幺鸡和翻出的鸡都算分。"
    schema = SCHEMA
    win_lock_release: ClassVar[LockRelease] = "draw"  # D8: the lock ends at the seat's next draw
    win_lock_blocks_self_draw = False  # D8: winning on that draw is allowed
    pung_lock_on_pass = False  # D2: passing a 碰 sets no lock

    def tile_kinds(self, settings: Mapping[str, Any]) -> Sequence[Tile]:
        """D1: 万, 条 and 筒, 1–9 (108 tiles)."""
        return list(Tile)

    def may_declare_with_discard(self, rnd: Round, seat: int) -> bool:
        """D9: 报听 with the dealer's first discard, or a non-dealer's discard after its
        first draw, before any 碰 or 杠."""
        s = rnd.seats[seat]
        if s.declared or s.melds or s.discards:
            return False
        return s.draws == (0 if seat == rnd.dealer else 1)

    def self_draw_pass_locks_for(self, rnd: Round, seat: int) -> bool:
        """D9: a 报听 seat passing a drawn winning tile takes the D8 lock."""
        return rnd.seats[seat].declared

    def win_allowed(self, rnd: Round, seat: int, tile: Tile, source: WinSource) -> bool:
        """D7: a 平胡 on a discard needs a 豆, except 热炮 and 报听; 抢杠 and 自摸 always may."""
        if source is not WinSource.DISCARD or not rnd.settings["pinghu_discard_needs_dou"]:
            return True
        s = rnd.seats[seat]
        if s.declared or rnd.turn_kongs or any(m.kind.is_kong for m in s.melds):
            return True
        counts = list(s.hand)
        counts[tile] += 1
        pattern = pattern_of(counts, s.melds)
        return pattern is not None and not pattern.pinghu

    def kong_allowed(self, rnd: Round, seat: int, tile: Tile, kind: MeldKind) -> bool:
        """D2: a 转弯豆 needs the fourth tile drawn after the 碰."""
        if kind is not MeldKind.ADDED_KONG:
            return True
        s = rnd.seats[seat]
        meld = next(m for m in s.melds if m.kind is MeldKind.PUNG and m.tile is tile)
        return tile in s.draw_log[meld.draws_at :]

    def settle(self, rnd: Round) -> Settlement[DuyunSummary, DuyunPlayer]:
        """D22: winning payments, 豆, 鸡, 包牌; or on 黄庄 查叫, 幺鸡 and 包牌 (D21)."""
        return settle(rnd)

    def next_dealer(self, rnd: Round) -> tuple[int, int]:
        """D4: who deals next, and the streak (连庄数)."""
        nxt = self._next_dealer_seat(rnd)
        return nxt, rnd.streak + 1 if nxt == rnd.dealer else 1

    def _next_dealer_seat(self, rnd: Round) -> int:
        d, n = rnd.dealer, rnd.players
        winners = {w.seat for w in rnd.wins}
        if winners:
            if len(winners) > 1 and rnd.settings["multi_win_dealer"] == "discarder":
                feeder = rnd.wins[0].from_seat
                assert feeder is not None
                return feeder
            if d in winners:
                return d
            return next((d + i) % n for i in range(1, n) if (d + i) % n in winners)
        ready = [rnd.is_ready(s) for s in range(n)]
        if all(ready) or not any(ready):
            return d
        return next((d - i) % n for i in range(n) if not ready[(d - i) % n])
