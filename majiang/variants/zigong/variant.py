"""The 自贡麻将 variant: the hooks that plug the Z rulings into the generic round."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from majiang.actions import Action, ActionType, Event
from majiang.settlement import Settlement
from majiang.tiles import Tile
from majiang.variant import LockRelease, Variant
from majiang.variants.zigong import baogang
from majiang.variants.zigong.baogang import ZigongState, state_of
from majiang.variants.zigong.settings import SCHEMA
from majiang.variants.zigong.settle import ZigongPlayer, ZigongSummary, settle

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["ZigongVariant"]

_KINDS = tuple(Tile(i) for i in range(9, 27))


class ZigongVariant(Variant):
    """自贡麻将: 72 tiles, 血战 to the last player, 报叫/报杠, 呼叫转移 and 查叫."""

    id = "zigong"
    name = "自贡麻将"
    summary = "只用条和筒 72 张，2 到 4 人血战到底；可报叫、报杠，有呼叫转移和查叫。"
    schema = SCHEMA
    dealer_drawn = True  # Z5

    win_lock_release: ClassVar[LockRelease] = "discard"  # Z8: until the seat's next discard
    self_draw_pass_locks = True  # Z8: passing a 自摸 locks too
    win_lock_blocks_self_draw = True  # Z8: the lock also blocks 自摸
    pung_lock_on_pass = True  # Z7: 过手碰
    has_declare_phase = True  # Z19: 报叫 at the deal, opened at every deal (H3)

    def tile_kinds(self, settings: Mapping[str, Any]) -> Sequence[Tile]:
        """Z1: 条 and 筒 only, 72 tiles."""
        return _KINDS

    def new_state(self, settings: Mapping[str, Any]) -> ZigongState:
        """Z13 and Z20: the 萝卜 tiles and the open 报杠 panels."""
        return ZigongState()

    def setup(self, rnd: Round) -> list[Event]:
        """Z13: take the 萝卜 tiles off the back of the wall and show them."""
        tiles = tuple(rnd.wall.draw_back() for _ in range(int(rnd.settings["luobo"])))
        state_of(rnd).luobo = tiles
        if not tiles:
            return []
        return [Event("luobo", data={"tiles": [t.code for t in tiles]})]

    def public_info(self, rnd: Round) -> dict[str, Any]:
        """Z13: the 萝卜 tiles, seen by everyone."""
        return {"luobo": [t.code for t in state_of(rnd).luobo]}

    def private_info(self, rnd: Round, seat: int, legal: Sequence[Action]) -> dict[str, Any]:
        """Z20: the open 报杠 panel (``baogang_panel``; answer it with ``declare``: ticks for
        报杠, none for 不报), else the panel each legal declaration would open
        (``baogang_options``, by the declaring discard's tile code, ``""`` for ``DECLARE``)."""
        open_panel = state_of(rnd).panels.get(seat)
        if open_panel is not None:
            return {"baogang_panel": [t.code for t in open_panel.options]}
        panels = {
            a.tile.code if a.tile is not None else "": [
                t.code for t in baogang.options_for(rnd, seat, a)
            ]
            for a in legal
            if a.type is ActionType.DECLARE or a.declare
        }
        return {"baogang_options": panels} if any(panels.values()) else {}

    def snapshot_info(self, rnd: Round) -> dict[str, Any]:
        """Z20: the open 报杠 panels."""
        return {
            "baogang_panels": {
                str(seat): {"action": p.action.to_json(), "options": [t.code for t in p.options]}
                for seat, p in sorted(state_of(rnd).panels.items())
            }
        }

    def declare_window(self, rnd: Round) -> list[int]:
        """Z19: ready non-dealers declare before the dealer's first discard."""
        return baogang.declare_window(rnd)

    def may_declare_with_discard(self, rnd: Round, seat: int) -> bool:
        """Z19: the dealer declares with the first discard, if they have not konged."""
        return baogang.may_declare_with_discard(rnd, seat)

    def check_action(self, rnd: Round, action: Action, legal: Sequence[Action]) -> None:
        """Z20: the 报杠 refusals, with the seed's messages."""
        baogang.check_action(rnd, action, legal)

    def hold_declaration(self, rnd: Round, action: Action) -> list[Event] | None:
        """Z20: a declaration without ticks opens the 报杠 panel when it has tiles to offer."""
        return baogang.hold(rnd, action)

    def pending_declarations(self, rnd: Round) -> Mapping[int, object]:
        """Z20: the open 报杠 panels."""
        return state_of(rnd).panels

    def pending_actions(self, rnd: Round, seat: int) -> list[Action] | None:
        """Z20: while the panel is open, ``DECLARE`` alone: with ticks 报杠, without 不报."""
        if seat in state_of(rnd).panels:
            return [Action(ActionType.DECLARE, seat)]
        return None

    def answer_pending(self, rnd: Round, action: Action) -> Action | None:
        """Z20: the answer completes the declaration, with the ticks it gives."""
        return baogang.release(rnd, action)

    def pending_timeout(self, rnd: Round, seat: int) -> Action | None:
        """Z20: a timeout is 不报; the 报叫 stands, with no kongs."""
        if seat in state_of(rnd).panels:
            return Action(ActionType.DECLARE, seat)
        return None

    def declared_kong(self, rnd: Round, seat: int, tile: Tile) -> bool:
        """Z20/Z10: a ticked tile is konged, unticked never, and never from an empty wall."""
        ticks = rnd.seats[seat].ticks
        return ticks is not None and tile in ticks and rnd.wall.remaining > 0

    def continues_after_win(self, rnd: Round) -> bool:
        """Z4: 血战, play goes on to the last player."""
        return True

    def multi_use(self, rnd: Round) -> bool:
        """Z21: setting ``multi_use``."""
        return bool(rnd.settings["multi_use"])

    def settle(self, rnd: Round) -> Settlement[ZigongSummary, ZigongPlayer]:
        """Z11–Z18, Z21: the itemised settlement."""
        return settle(rnd)

    def next_dealer(self, rnd: Round) -> tuple[int, int]:
        """Z5: the first winner; the discarder after 一炮多响, the robbed after 多人抢杠胡."""
        if not rnd.wins:
            return rnd.dealer, rnd.streak + 1
        first = rnd.wins[0]
        together = [w for w in rnd.wins if w.group == first.group]
        dealer = first.seat if len(together) == 1 else first.from_seat
        assert dealer is not None
        return dealer, rnd.streak + 1 if dealer == rnd.dealer else 1

    def first_dealer(self, settings: Mapping[str, Any], seed: str, opener: int) -> int:
        """Z5: a seat drawn from the match seed (SHA-256 of ``seed + "/dealer"``)."""
        digest = hashlib.sha256(f"{seed}/dealer".encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.players(settings)
