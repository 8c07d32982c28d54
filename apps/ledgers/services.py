"""Writes of the ledger. Rows are only ever inserted.

- :func:`ledger_hand_post`: a settled hand's lines and per-seat results (called by live
  play at a booked hand's end, inside the match's transaction). Idempotent.
- :func:`ledger_match_post`: a finished match's per-seat results (at a booked match's end).
- :func:`ledger_adjustment_plan`: check an owner's correction and say what it will do
  (the 调账 preview; writes nothing).
- :func:`ledger_adjustment_create`: an owner's signed correction, with a reason; once per
  form key (:class:`AdjustmentReceipt`).
- :func:`ledger_checkout_create`: the owner marks a 结账 as paid (a new :class:`Checkout`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.models import Club, Membership
from apps.clubs.selectors import membership_role
from apps.matches.models import Hand, Match, MatchPlayer
from majiang.settlement import LineJSON, line_with_kind

from .errors import (
    ActionForbidden,
    ClubNotFound,
    InvalidInputError,
    LedgerMismatchError,
    RequestKeyReusedError,
)
from .models import (
    AdjustmentReceipt,
    Checkout,
    HandResult,
    LedgerEntry,
    MatchResult,
    ledger_chain,
)
from .recompute import hand_recompute, lines_as_json
from .selectors import base_stake, checkout_compute, ledger_access, match_table

MAX_ADJUSTMENT_POINTS = 1_000_000


def _seat_users(match: Match) -> dict[int, int]:
    return dict(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))


def ledger_hand_post(
    *, hand: Hand, match: Match | None = None, seat_users: Mapping[int, int] | None = None,
) -> list[LedgerEntry]:
    """Write a settled hand's settlement lines and per-seat results; return the lines.

    The lines are recomputed from the hand's record by the rules package and must equal
    the stored settlement, else :class:`LedgerMismatchError` aborts the transaction.
    Posting a hand again writes nothing: when its rows exist (and agree) they are returned;
    the unique constraints on ``(hand, line_no)`` and ``(hand, seat)`` back this up.
    Live play passes the hand's ``match`` and ``seat_users`` (seat → user ID), which it
    holds locked, sparing two reads at every hand's end.
    """
    if hand.record is None or hand.settlement is None or hand.ended_at is None:
        raise LedgerMismatchError(f"hand #{hand.pk} is not settled")
    recomputed = hand_recompute(hand.record)
    # Hands settled before lines had a ``kind`` are stored without it: compare with it derived.
    if lines_as_json(recomputed.lines) != [line_with_kind(x) for x in hand.settlement["lines"]]:
        raise LedgerMismatchError(f"hand #{hand.pk}: 存储的结算与规则重算不一致")
    # No savepoint (two more round trips): inside the match's transaction, any failure
    # here aborts the whole hand's end anyway.
    with transaction.atomic(savepoint=False):
        # Results are written with the lines, one per seat, even when there are no lines.
        if HandResult.objects.filter(hand=hand).exists():
            existing = list(LedgerEntry.objects.filter(hand=hand).order_by("line_no"))
            _check_same(hand, existing, lines_as_json(recomputed.lines))
            return existing
        if match is None:
            match = Match.objects.get(pk=hand.match_id)
        users = seat_users if seat_users is not None else _seat_users(match)
        stake = base_stake(match)
        common: dict[str, Any] = {
            "club_id": match.club_id, "room_id": match.room_id, "match_id": match.pk,
            "variant": match.variant, "occurred_at": hand.ended_at,
        }
        with ledger_chain(match.club_id) as chain:
            entries = LedgerEntry.insert_signed([
                LedgerEntry(
                    kind=LedgerEntry.Kind.SETTLEMENT, hand=hand, line_no=line_no,
                    payer_id=users[line.payer], payee_id=users[line.payee],
                    payer_seat=line.payer, payee_seat=line.payee, category=line.category,
                    points=line.points, base_stake=stake, amount=line.points * stake,
                    ruling=line.ruling, note=line.note, **common,
                )
                for line_no, line in enumerate(recomputed.lines, start=1)
            ], chain)
            HandResult.insert_signed([
                HandResult(
                    hand=hand, user_id=users[seat], seat=seat, points=points,
                    amount=points * stake, won=seat in recomputed.winners, **common,
                )
                for seat, points in enumerate(recomputed.totals)
            ], chain)
    return entries


def _check_same(hand: Hand, existing: list[LedgerEntry], expected: list[LineJSON]) -> None:
    written = [
        {
            "payer": e.payer_seat, "payee": e.payee_seat, "category": e.category,
            "points": e.points, "ruling": e.ruling, **({"note": e.note} if e.note else {}),
        }
        for e in existing
    ]
    written = [line_with_kind(row) for row in written]  # the rows keep no kind
    if written != expected:
        raise LedgerMismatchError(f"hand #{hand.pk}: 账本已有不同的记录")


def ledger_match_post(*, match: Match) -> list[MatchResult]:
    """Write a finished match's per-seat results (idempotent).

    The match's totals must equal the sum of its hands' ledger results, seat by seat, and
    sum to zero; otherwise :class:`LedgerMismatchError` aborts the transaction.
    """
    with transaction.atomic():
        existing = list(MatchResult.objects.filter(match=match).order_by("seat"))
        if existing:
            return existing
        users, stake = _seat_users(match), base_stake(match)
        sums = dict.fromkeys(users, 0)
        for seat, points in HandResult.objects.filter(match=match).values_list("seat", "points"):
            sums[seat] += points
        totals = [sums[seat] for seat in sorted(users)]
        if totals != list(match.totals) or sum(totals) != 0:
            raise LedgerMismatchError(
                f"match #{match.pk}: 总分 {list(match.totals)} 与账本 {totals} 不一致"
            )
        top = max(totals) if totals else 0
        return MatchResult.insert_signed([
            MatchResult(
                club_id=match.club_id, room_id=match.room_id, match=match,
                variant=match.variant, user_id=users[seat], seat=seat, points=points,
                amount=points * stake, hands_played=match.hands_played,
                big_winner=top > 0 and points == top,
                occurred_at=match.finished_at or timezone.now(),
            )
            for seat, points in enumerate(totals)
        ])


@dataclass(frozen=True, slots=True)
class AdjustmentPlan:
    """A checked 调账, not yet written: who pays whom how much in which match, and each
    side's total in the match before and after."""

    match: Match
    payer: User
    payee: User
    points: int
    stake: int
    reason: str
    corrects: LedgerEntry | None
    payer_before: int
    payee_before: int

    @property
    def amount(self) -> int:
        """Points × the match's 底注."""
        return self.points * self.stake

    @property
    def payer_after(self) -> int:
        """The payer's total in the match once the entry is written."""
        return self.payer_before - self.points

    @property
    def payee_after(self) -> int:
        """The payee's total in the match once the entry is written."""
        return self.payee_before + self.points


def ledger_adjustment_plan(
    *,
    club: Club,
    actor: User,
    match_id: int,
    payer_id: int,
    payee_id: int,
    points: int,
    reason: str,
    corrects_id: int | None = None,
) -> AdjustmentPlan:
    """Check an owner's correction and say what it will do; write nothing.

    Only the club's owner may correct. The payer and payee must be players of the match;
    a reason is required. Raises what :func:`ledger_adjustment_create` raises.
    """
    role = membership_role(club, actor)
    if role is None:
        raise ClubNotFound("亲友圈不存在")
    if role != Membership.Role.OWNER:
        raise ActionForbidden("只有圈主可以调账")
    errors: dict[str, Any] = {}
    reason = (reason or "").strip()
    if not reason:
        errors["reason"] = "请填写调账原因"
    if not 0 < points <= MAX_ADJUSTMENT_POINTS:
        errors["points"] = "调账分数必须为正整数"
    if payer_id == payee_id:
        errors["payee"] = "付方和收方不能是同一人"
    match = Match.objects.filter(pk=match_id, club=club).first()
    if match is None:
        raise ClubNotFound("对局不存在")
    if not match.booked:
        raise InvalidInputError(
            {"match": "这场对局不记账（有电脑或机器人参加，或是练习房），不能调账"}
        )
    seats = {user: seat for seat, user in _seat_users(match).items()}
    if payer_id not in seats:
        errors["payer"] = "付方不是该对局的玩家"
    if payee_id not in seats:
        errors["payee"] = "收方不是该对局的玩家"
    corrects = None
    if corrects_id is not None:
        corrects = LedgerEntry.objects.filter(pk=corrects_id, match=match).first()
        if corrects is None:
            errors["corrects"] = "被更正的记录不属于该对局"
    if errors:
        raise InvalidInputError(errors)
    totals = {p["user_id"]: p["points"] for p in match_table(match=match)["players"]}
    users = User.objects.in_bulk([payer_id, payee_id])
    return AdjustmentPlan(
        match=match, payer=users[payer_id], payee=users[payee_id], points=points,
        stake=base_stake(match), reason=reason, corrects=corrects,
        payer_before=totals[payer_id], payee_before=totals[payee_id],
    )


def ledger_adjustment_create(
    *,
    club: Club,
    actor: User,
    match_id: int,
    payer_id: int,
    payee_id: int,
    points: int,
    reason: str,
    corrects_id: int | None = None,
    request_key: str = "",
) -> LedgerEntry:
    """Record the owner's correction: ``payer`` pays ``payee`` ``points`` in a match.

    Checked as :func:`ledger_adjustment_plan` checks it. The original rows stay as they
    are; the correction is a new, signed row shown as 调账. With a ``request_key`` (the
    form's once-only key, or the API's ``Idempotency-Key``) a second submit of the same
    request returns the entry the first wrote; the same key with another request raises
    :class:`RequestKeyReusedError` and writes nothing.
    """
    def done() -> LedgerEntry | None:
        receipt = (
            AdjustmentReceipt.objects.filter(club=club, key=request_key)
            .select_related("entry").first()
        )
        if receipt is None:
            return None
        entry = receipt.entry
        asked = (match_id, payer_id, payee_id, points, (reason or "").strip(), corrects_id)
        wrote = (entry.match_id, entry.payer_id, entry.payee_id, entry.points, entry.reason,
                 entry.corrects_id)
        if asked != wrote:
            raise RequestKeyReusedError()
        return entry

    if request_key and (entry := done()) is not None:
        return entry
    try:
        with transaction.atomic():
            plan = ledger_adjustment_plan(
                club=club, actor=actor, match_id=match_id, payer_id=payer_id,
                payee_id=payee_id, points=points, reason=reason, corrects_id=corrects_id,
            )
            seats = {user: seat for seat, user in _seat_users(plan.match).items()}
            entry = LedgerEntry(
                kind=LedgerEntry.Kind.ADJUSTMENT, club=club, room_id=plan.match.room_id,
                match=plan.match, variant=plan.match.variant, payer_id=payer_id,
                payee_id=payee_id, payer_seat=seats[payer_id], payee_seat=seats[payee_id],
                category="调账", points=points, base_stake=plan.stake, amount=plan.amount,
                reason=plan.reason, corrects=plan.corrects, created_by=actor,
                occurred_at=timezone.now(),
            )
            entry.save()
            if request_key:
                AdjustmentReceipt.objects.create(club=club, key=request_key, entry=entry)
    except IntegrityError:
        # The same form submitted twice at once: the other submit's entry stands, this
        # one's was rolled back with its receipt.
        if request_key and (entry := done()) is not None:
            return entry
        raise
    return entry


def ledger_checkout_create(
    *, club: Club, actor: User, start: date, end: date, previous_id: int | None, digest: str,
) -> Checkout:
    """Mark the 结账 of ``start``–``end`` as paid: a new signed :class:`Checkout` row.

    Only the owner may. ``previous_id`` and ``digest`` are those of the 结账 the owner was
    shown (:class:`~apps.ledgers.selectors.CheckoutView`): a submit of the same 结账 again
    returns the row already written; a 结账 that changed since (new results, or another
    结账 in between) is refused with :class:`InvalidInputError`, nothing written.
    """
    access = ledger_access(club_id=club.pk, user=actor)
    if not access.is_owner:
        raise ActionForbidden("只有圈主可以结账")
    with transaction.atomic():
        last: Checkout | None = (
            Checkout.objects.select_for_update().filter(club=club)
            .order_by("-through", "-pk").first()
        )
        if (
            last is not None and last.previous_id == previous_id
            and (last.period_start, last.period_end) == (start, end)
        ):
            return last  # the same 结账 submitted again
        if (last.pk if last is not None else None) != previous_id:
            raise InvalidInputError({"checkout": "此后已有新的结账，请刷新后查看"})
        view = checkout_compute(access=access, start=start, end=end)
        if view.digest != digest:
            raise InvalidInputError({"checkout": "结账后又有新的输赢，请刷新后再确认"})
        if view.settled:
            raise InvalidInputError({"checkout": "没有需要结清的输赢"})
        checkout = Checkout(
            club=club, previous=last, period_start=start, period_end=end, since=view.since,
            through=view.through, created_by=actor,
            balances={str(row.user_id): row.total for row in view.rows},
            payments=[
                {"payer": p.payer_id, "payee": p.payee_id, "amount": p.amount}
                for p in view.payments
            ],
        )
        try:
            with transaction.atomic():
                checkout.save()
        except IntegrityError as error:
            raise InvalidInputError({"checkout": "此后已有新的结账，请刷新后查看"}) from error
    return checkout
