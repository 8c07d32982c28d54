"""The ledger check behind ``manage.py ledger_verify``.

Each club's chain first: rows ``1 … n`` of all four tables, each signed over its content,
its ``seq`` and the signature before it, ending where the club's signed head says. So a
row edited, deleted (缺失, 末尾缺失), copied (重复), moved (顺序不符) or slipped in (签名不符,
链头之后多出) is reported, not only an edited one. Then for every settled hand it deals the
hand again from its seed, applies the actions of the match's event log, settles it with the
rules package and compares the result with the hand's stored settlement (what pages and
the API show) and with the ledger, line by line and seat by seat. Each 调账 is checked
against its match (seats, players, 底注), every hand and match sums to zero, and each
finished match's results agree with its hands and its totals. Each hand's seed must open the
commitment the match's log published and its rows name the players of their seats; each
user a club's rows name must be the account its identity row recorded. Each problem names
the club or row it concerns.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby, zip_longest
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.timezone import localtime

from apps.clubs.models import Club
from apps.matches.models import BOOKED, Hand, Match, MatchEvent, MatchPlayer
from apps.matches.state import round_rebuild
from majiang.settlement import line_with_kind

from .models import (
    CHAINED,
    AppendOnlyModel,
    HandResult,
    LedgerEntry,
    LedgerHead,
    LedgerIdentity,
    MatchResult,
)
from .recompute import lines_as_json
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


def _club(club_id: int, names: dict[int, str]) -> str:
    return f"亲友圈「{names.get(club_id, '?')}」(#{club_id})"


def _when(moment: datetime) -> str:
    return f"{localtime(moment):%Y-%m-%d %H:%M:%S}"


def _seats(first: int, last: int) -> str:
    return f"第{first}条" if first == last else f"第{first}–{last}条"


def _chain_rows(club_id: int) -> Iterator[AppendOnlyModel]:
    """The club's rows of every table, in ``seq`` order (ties by table, then id)."""
    def rows(order: int, model: type[AppendOnlyModel]) -> Iterator[tuple[Any, ...]]:
        for obj in model.objects.filter(club_id=club_id).order_by("seq", "pk").iterator():
            yield obj.seq, order, obj.pk, obj

    merged = heapq.merge(*(rows(order, model) for order, model in enumerate(CHAINED)))
    return (obj for *_, obj in merged)


def verify_chain(club_id: int, head: LedgerHead | None, names: dict[int, str]) -> Iterator[
    Problem
]:
    """One club's chain: numbered 1 … n without gap or repeat, each row signed and linked
    to the row before, the last one the signed head's."""
    club = _club(club_id, names)

    def where(obj: AppendOnlyModel) -> str:
        return f"{club} 第{obj.seq}条 {_row(obj)}"

    expected, previous = 1, ""
    for seq, group in groupby(_chain_rows(club_id), key=lambda obj: obj.seq):
        rows = list(group)
        if len(rows) > 1:
            yield Problem(club, f"第{seq}条重复: {'、'.join(_row(obj) for obj in rows)}")
        linked = [obj for obj in rows if obj.prev_signature == previous]
        row = (linked or rows)[0]
        if seq > expected:
            yield Problem(club, f"{_seats(expected, seq - 1)}缺失")
        elif not linked:
            yield Problem(where(row), f"顺序不符: 不接在第{seq - 1}条之后")
        for obj in rows:
            if not obj.signature_valid():
                yield Problem(where(obj), "签名不符: 该行在写入后被改动，或不是用本账本的密钥签名")
        expected, previous = seq + 1, row.signature
    last = expected - 1
    if head is None:
        if last:
            yield Problem(club, f"缺少链头: 账本有{last}条")
        return
    if not head.signature_valid():
        yield Problem(club, "链头签名不符: 链头在写入后被改动")
    if head.seq > last:
        yield Problem(club, f"末尾缺失: 链头记到第{head.seq}条，账本只到第{last}条")
    elif head.seq < last:
        yield Problem(club, f"链头之后多出{_seats(head.seq + 1, last)}")
    elif head.last != previous:
        yield Problem(club, f"第{last}条与链头不符")


def verify_kept(club_id: int, seq: int, last: str) -> Iterator[Problem]:
    """The club's chain still extends a head a member kept (``seq`` and its signature
    ``last``, as the ledger page's check shows it): the chain's own check cannot see a
    rollback to an older, validly signed head, a member who saw a later one can."""
    club = _club(club_id, dict(Club.objects.filter(pk=club_id).values_list("pk", "name")))
    head = LedgerHead.objects.filter(club_id=club_id).first()
    now = head.seq if head else 0
    if now < seq:
        yield Problem(club, f"账本被回退: 成员记下的账本到第{seq}条，现在链头只到第{now}条")
        return
    kept = [m.objects.filter(club_id=club_id, seq=seq).first() for m in CHAINED]
    if last not in {row.signature for row in kept if row is not None}:
        yield Problem(club, f"账本的历史被改写: 第{seq}条与成员记下的不同")


def verify_identities(club_id: int, names: dict[int, str]) -> Iterator[Problem]:
    """Each user the club's rows name has an identity row in its chain, and the account
    behind the ID is still the one that row recorded (username, join date)."""
    club = _club(club_id, names)
    identities = {i.user_id: i for i in LedgerIdentity.objects.filter(club_id=club_id)}
    accounts = get_user_model().objects.in_bulk(list(identities))
    for user_id, identity in sorted(identities.items()):
        account = accounts.get(user_id)
        now = (account.get_username(), account.date_joined) if account else None
        if now != (identity.username, identity.date_joined):
            shown = f"「{now[0]}」，注册于 {_when(now[1])}" if now else "已不存在"
            yield Problem(
                f"{club} 第{identity.seq}条 {_row(identity)}",
                f"身份不符: 账本记下用户 #{user_id} 是「{identity.username}」，注册于 "
                f"{_when(identity.date_joined)}；该用户现在是{shown}",
            )
    named: set[int] = set()
    for model in CHAINED:
        for obj in model.objects.filter(club_id=club_id).iterator():
            named |= obj.user_ids()
    for user_id in sorted(named - set(identities)):
        yield Problem(club, f"用户 #{user_id} 在账本中没有身份记录")


def verify_chains() -> Iterator[Problem]:
    """Every club's chain (:func:`verify_chain`) and identities (:func:`verify_identities`),
    and every club with rows has a head."""
    heads = {head.club_id: head for head in LedgerHead.objects.all()}
    club_ids = set(heads)
    for model in CHAINED:
        club_ids.update(model.objects.values_list("club_id", flat=True).distinct())
    names = {pk: club.name for pk, club in Club.objects.in_bulk(club_ids).items()}
    for club_id in sorted(club_ids):
        yield from verify_chain(club_id, heads.get(club_id), names)
        yield from verify_identities(club_id, names)


def _line(payer: int, payee: int, category: str, points: int, ruling: str) -> str:
    return f"座位{payer}付座位{payee} {category} {points}分 ({ruling})"


def verify_settlement(hand: Hand, lines: Sequence[Mapping[str, Any]], totals: tuple[int, ...],
                      entries: Iterable[LedgerEntry], results: Iterable[HandResult]) -> Iterator[
    Problem
]:
    """The hand's stored settlement (what its pages and the API show) against the
    recomputed ``lines`` and ``totals``, and against its ledger rows."""
    where = f"hand #{hand.pk} (match #{hand.match_id} 第{hand.number}局)"
    stored = hand.settlement or {}
    stored_lines = [line_with_kind(line) for line in stored.get("lines", [])]
    if stored_lines != lines or list(stored.get("totals", [])) != list(totals):
        yield Problem(where, f"牌局结算与重算不符: 存储的各家得分 {stored.get('totals')}，"
                             f"重算 {list(totals)}")
    shown = [
        _line(x.get("payer", -1), x.get("payee", -1), x.get("category", ""), x.get("points", 0),
              x.get("ruling", ""))
        for x in stored_lines
    ]
    booked = [
        _line(e.payer_seat, e.payee_seat, e.category, e.points, e.ruling)
        for e in sorted(entries, key=lambda e: e.line_no or 0)
    ]
    for n, (ours, theirs) in enumerate(zip_longest(shown, booked, fillvalue="无"), start=1):
        if ours != theirs:
            yield Problem(where, f"账本第{n}行与牌局结算不符: 结算「{ours}」，账本「{theirs}」")
    points = {r.seat: r.points for r in results}
    for seat, total in enumerate(stored.get("totals", [])):
        if points.get(seat) != total:
            yield Problem(where, f"座位{seat}的成绩 {points.get(seat)} 与牌局结算 {total} 不符")


def _published(match: Match, hand: Hand) -> Iterator[dict[str, Any]]:
    """The public events of the match's log that speak of ``hand``'s deal: its commitment
    (published before the deal) and its ``hand_start``."""
    kinds = (MatchEvent.Kind.DEAL, MatchEvent.Kind.TABLE, MatchEvent.Kind.HAND_END)
    for payload in MatchEvent.objects.filter(match=match, kind__in=kinds).order_by(
        "seq"
    ).values_list("payload", flat=True):
        for event in payload.get("events", []):
            public = event.get("public") or {}
            if public.get("type") in ("commitment", "hand_start") and public.get(
                "hand"
            ) == hand.number:
                yield public


def verify_deal(hand: Hand, seats: Mapping[int, int]) -> Iterator[Problem]:
    """The hand's seed and seats: sha256(salt + seed) is the commitment the match's log
    published, the deal the log announced is the hand's (dealer, streak, contributions),
    the record was dealt from the wall seed they make, and every ledger row of the hand
    names the player who sat at its seat (``seats``: seat → user ID, the match's players)."""
    where = f"hand #{hand.pk} (match #{hand.match_id} 第{hand.number}局)"
    if hashlib.sha256((hand.salt + hand.seed).encode()).hexdigest() != hand.commitment:
        yield Problem(where, "洗牌种子不符: sha256(盐 + 种子) 不等于该局的承诺")
    published = list(_published(hand.match, hand))
    if not published:
        yield Problem(where, "对局日志中没有该局的承诺与发牌")
    for event in published:
        if event.get("commitment") != hand.commitment:
            yield Problem(where, f"承诺与对局日志不符: 日志公布的是 {event.get('commitment')}")
        if event["type"] == "hand_start" and (
            event.get("dealer"), event.get("streak"), event.get("contributions")
        ) != (hand.dealer, hand.streak, hand.contributions):
            yield Problem(where, "发牌与对局日志不符: 庄家、连庄数或玩家随机数不同")
    record = hand.record or {}
    if record and (record.get("seed"), record.get("dealer"), record.get("streak")) != (
        hand.wall_seed, hand.dealer, hand.streak
    ):
        yield Problem(where, "牌局记录的牌墙种子、庄家或连庄数与该局不符")
    rows: list[tuple[AppendOnlyModel, str, int, int]] = []
    for result in HandResult.objects.filter(hand=hand):
        rows.append((result, "玩家", result.seat, result.user_id))
    for entry in LedgerEntry.objects.filter(hand=hand):
        rows.append((entry, "付方", entry.payer_seat, entry.payer_id))
        rows.append((entry, "收方", entry.payee_seat, entry.payee_id))
    for obj, side, seat, user_id in rows:
        if seats.get(seat) != user_id:
            yield Problem(_row(obj), f"座位不符: {side}是用户 #{user_id}，对局座位{seat}坐的是"
                                     f"用户 #{seats.get(seat)}")


def verify_hand(hand: Hand) -> Iterator[Problem]:
    """Recompute one settled hand from the event log and compare it with the ledger."""
    where = f"hand #{hand.pk} (match #{hand.match_id} 第{hand.number}局)"
    match = hand.match
    seats = dict(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))
    yield from verify_deal(hand, seats)
    try:
        rnd = round_rebuild(match, hand)
        settlement = rnd.settlement()
    except Exception as exc:
        yield Problem(where, f"无法从日志重算: {exc}")
        return
    stake = base_stake(match)
    entries = list(LedgerEntry.objects.filter(hand=hand, kind="settlement"))
    rows = {e.line_no: e for e in entries}
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
    seat_results = list(HandResult.objects.filter(hand=hand))
    results = {r.seat: r for r in seat_results}
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
    yield from verify_settlement(
        hand, lines_as_json(settlement.lines), settlement.totals, entries, seat_results
    )
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
    booked = [results[seat].points for seat in sorted(results)]
    if list(match.totals) != booked:
        yield Problem(
            f"match #{match.pk}", f"对局总分 {list(match.totals)} 与每场成绩 {booked} 不符"
        )


def verify_adjustments() -> Iterator[Problem]:
    """Each 调账 agrees with its match: the match's club, room, variant and 底注; payer
    and payee players of the match at the seats it names; a correction of a row of the
    same match. (A 调账 moves points from one seat to another, so with its seats right it
    keeps the match zero-sum.)"""
    entries = LedgerEntry.objects.filter(kind=LedgerEntry.Kind.ADJUSTMENT).select_related(
        "match", "corrects"
    )
    for entry in entries.order_by("pk").iterator():
        match = entry.match
        seated = set(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))
        seated |= set(HandResult.objects.filter(match=match).values_list("seat", "user_id"))
        wrong = []
        if (entry.club_id, entry.room_id, entry.variant) != (
            match.club_id, match.room_id, match.variant
        ):
            wrong.append("亲友圈、房间或玩法不是该对局的")
        if entry.base_stake != base_stake(match):
            wrong.append(f"底注 {entry.base_stake}，对局为 {base_stake(match)}")
        for side, seat, user_id in (
            ("付方", entry.payer_seat, entry.payer_id), ("收方", entry.payee_seat, entry.payee_id)
        ):
            if (seat, user_id) not in seated:
                wrong.append(f"{side}不是该对局座位{seat}的玩家")
        if entry.corrects is not None and entry.corrects.match_id != entry.match_id:
            wrong.append("更正的记录不属于该对局")
        for what in wrong:
            yield Problem(_row(entry), f"调账与对局不符: {what}")


def verify_all() -> Iterator[Problem]:
    """Every check, over the whole database."""
    yield from verify_chains()
    # Matches the ledger does not book (练习房, computer seats, bots the club did not allow:
    # Match.booked): nothing to check.
    hands = Hand.objects.filter(
        settlement__isnull=False, match__in=Match.objects.filter(BOOKED)
    ).select_related("match")
    for hand in hands.order_by("pk").iterator():
        yield from verify_hand(hand)
    orphans = LedgerEntry.objects.filter(kind="settlement", hand__settlement__isnull=True)
    for entry in orphans:
        yield Problem(_row(entry), "所属牌局没有结算")
    yield from verify_adjustments()
    yield from verify_zero_sum()
    finished = Match.objects.exclude(status=Match.Status.PLAYING).filter(BOOKED)
    for match in finished.order_by("pk").iterator():
        yield from verify_match(match)
