"""D10–D14, D20–D23: the itemised settlement of a 都匀 hand.

Order (D22): each winner's winning payment; then, once per hand, 豆 and 鸡 for every seat by
its ready state (with the D20 voids); then 包牌. On 黄庄 (D21): 查叫, the discarded 幺鸡 of
players who are not ready, and 包牌; each player's 鸡 in the D23 summary are then those
discarded 幺鸡. On a won hand the summary likewise shows the 鸡 each player is settled on:
those it collects on if ready, those it pays for if not. Lines are in points; the ledger
multiplies them by the 底注 (``summary["base_stake"]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

from majiang.settlement import LineKind, Settlement, SettlementLine, VoidLineJSON, totals_of
from majiang.state import MeldKind, Win, WinSource
from majiang.variants.duyun.chickens import (
    chicken_lines,
    chicken_table,
    exhausted_yaoji_counts,
    exhausted_yaoji_lines,
    won_hand_ji_counts,
)
from majiang.variants.duyun.patterns import Pattern, best_wait_pattern, pattern_of

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["DOU_NAMES", "DuyunPlayer", "DuyunSummary", "settle", "win_pattern"]


class DuyunSummary(TypedDict):
    """D23: the hand's result as players see it (``Settlement.summary``).

    ``fanji`` is the turned tile (``None`` on 黄庄 or with 翻鸡 off); ``void`` holds the lines
    that did not count (D20), each with its reason.
    """

    result: Literal["胡", "黄庄"]
    dealer: int
    streak: int
    fanji: str | None
    jin_ji: bool
    chicken_tiles: list[str]
    base_stake: int
    void: list[VoidLineJSON]


class DuyunPlayer(TypedDict):
    """D23: one seat's result (``Settlement.players``): 鸡 and 豆 by kind and count."""

    seat: int
    ready: bool
    won: bool
    winning_tile: str | None
    pattern: str | None
    ji: dict[str, int]
    dou: dict[str, int]
    total: int
    stake_total: int

DOU_NAMES = {
    MeldKind.EXPOSED_KONG: "明豆",
    MeldKind.CONCEALED_KONG: "暗豆",
    MeldKind.ADDED_KONG: "转弯豆",
}
"""The 豆 name of each kind of kong (D11)."""


def win_pattern(win: Win) -> Pattern:
    """The D6 pattern of a recorded win."""
    found = pattern_of(win.counts, win.melds)
    assert found is not None, "a recorded win is a complete hand"
    return found


def _winning_lines(rnd: Round, win: Win) -> list[SettlementLine]:
    """D22 step 1: what each payer pays one winner (D6, D10, D10a, D13, D14)."""
    pattern = win_pattern(win)
    if win.source is WinSource.SELF_DRAW:
        payers: tuple[int, ...] = win.payers
    else:
        assert win.from_seat is not None
        payers = (win.from_seat,)
    extras: list[tuple[str, int, str, str]] = []
    if win.source is WinSource.SELF_DRAW:
        extras.append(("自摸", int(rnd.settings["zimo_bonus"]), "D10", ""))
        if win.kong_replacement:
            extras.append(("杠上花", 1, "D10", ""))
    elif win.source is WinSource.ROBBING:
        extras.append(("抢杠", 10, "D14", ""))
    elif win.after_kong_discard:
        extras.append(("热炮", pattern.points + 1, "D13", "牌型分加倍再加1"))
    if win.declared:
        extras.append(("报听", 10, "D10", ""))
    lines: list[SettlementLine] = []
    for payer in payers:
        lines.append(
            SettlementLine(
                payer, win.seat, pattern.category, pattern.points, "D6", kind=LineKind.PATTERN
            )
        )
        lines.extend(SettlementLine(payer, win.seat, *extra, kind=LineKind.WIN) for extra in extras)
        if rnd.dealer in (payer, win.seat):
            lines.append(
                SettlementLine(
                    payer,
                    win.seat,
                    "连庄",
                    rnd.streak,
                    "D10a",
                    f"连庄数{rnd.streak}",
                    kind=LineKind.WIN,
                )
            )
    return lines


def _dou_lines(rnd: Round, ready: list[bool]) -> list[SettlementLine]:
    """D11–D12: every kong of a ready (or winning) owner is paid."""
    lines: list[SettlementLine] = []
    for kong in rnd.kongs:
        if not ready[kong.seat]:
            continue
        name = DOU_NAMES[kong.kind]
        if kong.kind is MeldKind.EXPOSED_KONG:
            assert kong.from_seat is not None
            payers: tuple[int, ...] = (kong.from_seat,)
        else:
            payers = tuple(s for s in range(rnd.players) if s != kong.seat)
        lines.extend(
            SettlementLine(p, kong.seat, name, 3, "D11", kong.tile.code, kind=LineKind.DOU)
            for p in payers
        )
    return lines


def _void(
    lines: list[SettlementLine], seats: set[int], why: str
) -> tuple[list[SettlementLine], list[VoidLineJSON]]:
    """D20: drop the lines that would pay ``seats``; report what was dropped."""
    kept = [line for line in lines if line.payee not in seats]
    dropped: list[VoidLineJSON] = [
        {**line.to_json(), "void": why} for line in lines if line.payee in seats and line.points
    ]
    return kept, dropped


def _baopai_lines(rnd: Round) -> list[SettlementLine]:
    """D8: a locked seat pays every other seat the pattern of each win it could not take."""
    if not rnd.settings["baopai"]:
        return []
    lines: list[SettlementLine] = []
    for chance in rnd.locked_chances:
        counts = [0] * 27
        for tile in chance.concealed:
            counts[tile] += 1
        counts[chance.tile] += 1
        pattern = pattern_of(counts, chance.melds)
        assert pattern is not None, "a locked chance completes the hand"
        for other in range(rnd.players):
            if other != chance.seat:
                lines.append(
                    SettlementLine(
                        chance.seat,
                        other,
                        "包牌",
                        pattern.points,
                        "D8",
                        f"过胡后{chance.tile.code}可胡{pattern.name}",
                        kind=LineKind.BAOPAI,
                    )
                )
    return lines


def _chajiao_lines(rnd: Round, ready: list[bool]) -> list[SettlementLine]:
    """D21.2: each not-ready seat pays each ready seat its best pattern over its waits."""
    if all(ready) or not any(ready):
        return []
    lines: list[SettlementLine] = []
    for seat in range(rnd.players):
        if not ready[seat]:
            continue
        s = rnd.seats[seat]
        pattern = best_wait_pattern(s.hand, s.melds, rnd.waits(seat))
        assert pattern is not None, "a ready hand has a wait"
        lines.extend(
            SettlementLine(
                other, seat, "查叫", pattern.points, "D21", pattern.name, kind=LineKind.CHAJIAO
            )
            for other in range(rnd.players)
            if not ready[other]
        )
    return lines


def _dou_counts(rnd: Round, seat: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for kong in rnd.kongs:
        if kong.seat == seat:
            name = DOU_NAMES[kong.kind]
            out[name] = out.get(name, 0) + 1
    return out


def settle(rnd: Round) -> Settlement[DuyunSummary, DuyunPlayer]:
    """The D22 settlement of an ended hand, with the D23 summary."""
    ready = [rnd.is_ready(s) for s in range(rnd.players)]
    table = chicken_table(rnd)
    lines: list[SettlementLine] = []
    voided: list[VoidLineJSON] = []
    robbed = {
        w.from_seat for w in rnd.wins if w.source is WinSource.ROBBING and w.from_seat is not None
    }
    if rnd.wins:
        for win in rnd.wins:
            lines.extend(_winning_lines(rnd, win))
        dou = _dou_lines(rnd, ready)
        ji = chicken_lines(rnd, table, ready)
        hot = {w.from_seat for w in rnd.wins if w.after_kong_discard and w.from_seat is not None}
        dou, dropped = _void(dou, hot, "热炮烧豆 (D13, D20)")
        voided += dropped
        dou, dropped = _void(dou, robbed, "被抢杠 (D14, D20)")
        voided += dropped
        ji, dropped = _void(ji, robbed, "被抢杠 (D14, D20)")
        voided += dropped
        lines += dou + ji
    else:
        lines += _chajiao_lines(rnd, ready)
        lines += exhausted_yaoji_lines(rnd, ready)
    lines += _baopai_lines(rnd)
    kept = [line for line in lines if line.points]
    totals = totals_of(kept, rnd.players)
    stake = int(rnd.settings["base_stake"])
    summary: DuyunSummary = {
        "result": "胡" if rnd.wins else "黄庄",
        "dealer": rnd.dealer,
        "streak": rnd.streak,
        "fanji": table.turned.code if table.turned is not None else None,
        "jin_ji": table.jin,
        "chicken_tiles": [t.code for t in table.tiles],
        "base_stake": stake,
        "void": voided,
    }
    per_player: list[DuyunPlayer] = []
    for seat in range(rnd.players):
        won = next((w for w in rnd.wins if w.seat == seat), None)
        per_player.append(
            {
                "seat": seat,
                "ready": ready[seat],
                "won": won is not None,
                "winning_tile": won.tile.code if won is not None else None,
                "pattern": win_pattern(won).name if won is not None else None,
                "ji": won_hand_ji_counts(rnd, seat, table, ready, robbed=seat in robbed)
                if rnd.wins
                else exhausted_yaoji_counts(rnd, seat, ready[seat]),
                "dou": _dou_counts(rnd, seat),
                "total": totals[seat],
                "stake_total": totals[seat] * stake,
            }
        )
    return Settlement.of(kept, rnd.players, summary, per_player)
