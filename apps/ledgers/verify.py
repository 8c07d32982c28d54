"""The ledger check behind ``manage.py ledger_verify``.

For every settled hand it deals the hand again from its seed, applies the actions of the
match's event log, settles it with the rules package and compares the result with the
ledger, line by line and seat by seat. It also checks every row's signature (结账 rows
included), that every
hand and every match sums to zero, and that each finished match's results agree with its
hands. Each problem names the row it concerns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from apps.matches.models import Hand, Match
from apps.matches.state import round_rebuild

from .models import AppendOnlyModel, Checkout, HandResult, LedgerEntry, MatchResult
from .selectors import base_stake


@dataclass(frozen=True, slots=True)
class Problem:
    """One difference found: which row (model and id, if any) and what is wrong."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _row(obj: AppendOnlyModel) -> str:
    return f"{obj._meta.model_name} #{obj.pk}"


def verify_signatures() -> Iterator[Problem]:
    """Rows whose content no longer matches their signature (edited behind the ORM)."""
    for model in (LedgerEntry, HandResult, MatchResult, Checkout):
        for obj in model.objects.order_by("pk").iterator():
            if not obj.signature_valid():
                yield Problem(_row(obj), "签名不符: 该行在写入后被改动")


def verify_hand(hand: Hand) -> Iterator[Problem]:
    """Recompute one settled hand from the event log and compare it with the ledger."""
    where = f"hand #{hand.pk} (match #{hand.match_id} 第{hand.number}局)"
    match = hand.match
    try:
        rnd = round_rebuild(match, hand)
        settlement = rnd.settlement()
    except Exception as exc:
        yield Problem(where, f"无法从日志重算: {exc}")
        return
    stake = base_stake(match)
    rows = {e.line_no: e for e in LedgerEntry.objects.filter(hand=hand, kind="settlement")}
    for line_no, line in enumerate(settlement.lines, start=1):
        entry = rows.pop(line_no, None)
        if entry is None:
            yield Problem(where, f"缺少第{line_no}行: {line.category} {line.points}分")
            continue
        got = (entry.payer_seat, entry.payee_seat, entry.category, entry.points, entry.ruling)
        want = (line.payer, line.payee, line.category, line.points, line.ruling)
        if got != want or entry.base_stake != stake or entry.amount != line.points * stake:
            yield Problem(_row(entry), f"与重算不符: 账本 {got} ×{entry.base_stake}={entry.amount}"
                          f", 重算 {want} ×{stake}")
    for entry in rows.values():
        yield Problem(_row(entry), "重算中没有这一行")
    results = {r.seat: r for r in HandResult.objects.filter(hand=hand)}
    winners = {w.seat for w in rnd.wins}
    for seat, points in enumerate(settlement.totals):
        result = results.pop(seat, None)
        if result is None:
            yield Problem(where, f"缺少座位{seat}的成绩")
        elif (result.points, result.amount, result.won) != (
            points, points * stake, seat in winners
        ):
            yield Problem(_row(result), f"成绩与重算不符: 应为 {points}分")
    for result in results.values():
        yield Problem(_row(result), "多余的成绩")
    if hand.record is not None and hand.record.get("actions") != [
        a.to_json() for a in rnd.history
    ]:
        yield Problem(where, "牌局记录与日志不一致")


def verify_zero_sum() -> Iterator[Problem]:
    """Every hand's and every match's rows sum to zero."""
    sums: dict[tuple[str, int], int] = {}
    rows = HandResult.objects.values_list("hand_id", "match_id", "points")
    for hand_id, match_id, points in rows:
        sums[("hand", hand_id)] = sums.get(("hand", hand_id), 0) + points
        sums[("match", match_id)] = sums.get(("match", match_id), 0) + points
    for match_id, points in MatchResult.objects.values_list("match_id", "points"):
        sums[("match result", match_id)] = sums.get(("match result", match_id), 0) + points
    for (kind, pk), total in sorted(sums.items()):
        if total != 0:
            yield Problem(f"{kind} #{pk}", f"合计 {total}，不为零")


def verify_match(match: Match) -> Iterator[Problem]:
    """A finished match's per-seat results equal the sum of its hands' results."""
    results = {r.seat: r for r in MatchResult.objects.filter(match=match)}
    if not results:
        yield Problem(f"match #{match.pk}", "已结束但没有每场成绩")
        return
    sums: dict[int, int] = {}
    for seat, points in HandResult.objects.filter(match=match).values_list("seat", "points"):
        sums[seat] = sums.get(seat, 0) + points
    stake = base_stake(match)
    for seat, result in results.items():
        total = sums.get(seat, 0)
        if result.points != total or result.amount != result.points * stake:
            yield Problem(_row(result), f"每场成绩 {result.points} 与各局合计 {total} 不符")


def verify_all() -> Iterator[Problem]:
    """Every check, over the whole database."""
    yield from verify_signatures()
    # 练习房 matches book nothing (apps.ledgers.receivers): there is nothing to check.
    hands = Hand.objects.filter(settlement__isnull=False, match__practice=False).select_related(
        "match"
    )
    for hand in hands.order_by("pk").iterator():
        yield from verify_hand(hand)
    orphans = LedgerEntry.objects.filter(kind="settlement", hand__settlement__isnull=True)
    for entry in orphans:
        yield Problem(_row(entry), "所属牌局没有结算")
    yield from verify_zero_sum()
    finished = Match.objects.exclude(status=Match.Status.PLAYING).filter(practice=False)
    for match in finished.order_by("pk").iterator():
        yield from verify_match(match)
