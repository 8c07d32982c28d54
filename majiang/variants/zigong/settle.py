"""The itemised settlement of a 自贡 hand: wins (Z11–Z13), kong money (Z14, Z15, Z17, Z21)
and, at wall exhaustion, 查叫 and 反查叫 (Z16, Z18)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from majiang.settlement import LineKind, Settlement, SettlementLine
from majiang.state import EndReason, Win, WinSource
from majiang.tiles import Tile
from majiang.variants.zigong.baogang import state_of
from majiang.variants.zigong.chajiao import best_ready_fan, chajiao_lines
from majiang.variants.zigong.fan import Fan, win_fan
from majiang.variants.zigong.kong_money import kong_lines

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["ZigongPlayer", "ZigongSummary", "settle", "win_lines"]


class ZigongSummary(TypedDict):
    """The hand's result beside the lines (``Settlement.summary``).

    ``reason`` is why the hand ended (``Round.end_reason``); ``luobo`` the 萝卜 tiles (Z13);
    ``void_kongs`` the indices into ``Round.kongs`` whose money is void (Z15, Z21).
    """

    reason: EndReason | None
    luobo: list[str]
    void_kongs: list[int]


class ZigongPlayer(TypedDict):
    """One seat's result (``Settlement.players``).

    ``ready`` is set only at wall exhaustion for seats that have not won (Z16), else
    ``None``; ``chajiao_fan`` is a ready seat's largest fan then (before the cap).
    """

    won: bool
    declared: bool
    ready: bool | None
    chajiao_fan: int | None


def _luobo_count(win: Win, luobo: tuple[Tile, ...]) -> int:
    """Z13: tiles of the winner's full hand matching each 萝卜 tile, each 萝卜 counted apart."""
    counts = win.counts
    for meld in win.melds:
        counts[meld.tile] += meld.size
    return sum(counts[tile] for tile in luobo)


def win_lines(rnd: Round, win: Win) -> list[SettlementLine]:
    """Z11–Z13: one fan line per payer, then the 自摸加底 and 萝卜 lines."""
    settings = rnd.settings
    cap = int(settings["fan_cap"])
    fan = win_fan(win, settings)
    points = 2 ** fan.capped(cap)
    self_draw = win.source is WinSource.SELF_DRAW
    note = fan.note(cap)
    payers: tuple[int, ...]
    if not self_draw:
        assert win.from_seat is not None
        payers = (win.from_seat,)
    elif (
        win.kong_replacement and win.kong_feeder is not None and settings["dianganghua"] == "feeder"
    ):
        payers = (win.kong_feeder,)
        note += "; 点杠花由点杠者付 (Z12)"
    else:
        payers = win.payers
    luobo = state_of(rnd).luobo
    extra = _luobo_count(win, luobo)
    lines: list[SettlementLine] = []
    for payer in payers:
        lines.append(
            SettlementLine(
                payer, win.seat, f"牌型:{fan.name}", points, "Z11", note, kind=LineKind.PATTERN
            )
        )
        if self_draw and settings["zimo"] == "add_base":
            lines.append(SettlementLine(payer, win.seat, "自摸加底", 1, "Z11", kind=LineKind.WIN))
        if extra:
            codes = " ".join(t.code for t in luobo)
            lines.append(
                SettlementLine(
                    payer,
                    win.seat,
                    "萝卜",
                    extra,
                    "Z13",
                    f"萝卜 {codes}: {extra}张",
                    kind=LineKind.WIN,
                )
            )
    return lines


def settle(rnd: Round) -> Settlement[ZigongSummary, ZigongPlayer]:
    """The settlement of an ended hand; see the module docstring for the order of lines."""
    exhausted = rnd.end_reason == "exhausted"
    active = [s for s in range(rnd.players) if not rnd.seats[s].won]
    fans: dict[int, Fan] = {}
    if exhausted:
        for seat in active:
            fan = best_ready_fan(rnd, seat)
            if fan is not None:
                fans[seat] = fan
    # Z18: a 报叫 player is exempt from 退税. Z19/Z20 keep such a hand ready, so today the
    # exemption only guards against a future path that breaks that.
    refunded = (
        {s for s in active if s not in fans and not rnd.seats[s].declared}
        if exhausted and rnd.settings["chajiao_tuishui"]
        else set()
    )
    lines, void = kong_lines(rnd, refunded)
    for win in rnd.wins:
        lines.extend(win_lines(rnd, win))
    if exhausted:
        lines.extend(chajiao_lines(rnd, active, fans))
    summary: ZigongSummary = {
        "reason": rnd.end_reason,
        "luobo": [t.code for t in state_of(rnd).luobo],
        "void_kongs": void,
    }
    per_player: list[ZigongPlayer] = [
        {
            "won": rnd.seats[s].won,
            "declared": rnd.seats[s].declared,
            "ready": None if not exhausted or rnd.seats[s].won else s in fans,
            "chajiao_fan": fans[s].total if s in fans else None,
        }
        for s in range(rnd.players)
    ]
    return Settlement.of(lines, rnd.players, summary, per_player)
