"""Reads of the ledger, with the permission rules applied here (pages and API share them).

Who sees what:

- A player sees their own matches, hands and lines (我的战绩).
- The club's owner and admins see the whole club ledger.
- Plain members see only their own rows, unless the owner set
  ``Club.ledger_visible_to_members``; then they see the whole club ledger too.
- Anyone who is not a member of the club sees nothing of it (404).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any, TypeVar

from django.db.models import Count, Model, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.crypto import salted_hmac

from apps.accounts.models import User
from apps.clubs.models import Club, Membership
from apps.clubs.selectors import membership_role, variant_name
from apps.matches.models import BOOKED, Hand, Match, MatchPlayer
from majiang.record import replay
from majiang.settlement import line_kind

from .errors import ClubNotFound
from .kinds import ADJUSTMENT, SUBTOTAL_ROWS, subtotal_row
from .models import CHAINED, Checkout, HandResult, LedgerEntry, LedgerHead, MatchResult
from .payments import settle_payments
from .recompute import hand_wins, seat_facts
from .words import category_in_words, line_sentence

MANAGERS = (Membership.Role.OWNER, Membership.Role.ADMIN)

_M = TypeVar("_M", bound=Model)


@dataclass(frozen=True, slots=True)
class LedgerAccess:
    """A user's view of one club's ledger."""

    club: Club
    user: User
    role: Membership.Role
    sees_all: bool

    @property
    def is_owner(self) -> bool:
        """Whether the user owns the club (and so may make corrections)."""
        return self.role == Membership.Role.OWNER


@dataclass(frozen=True, slots=True)
class LedgerFilters:
    """Filters of the club ledger: a date range (inclusive, club time zone) and more."""

    start: date | None = None
    end: date | None = None
    member_id: int | None = None
    room_id: int | None = None
    variant: str = ""


def ledger_access(*, club_id: int, user: User | Any) -> LedgerAccess:
    """The user's access to the club's ledger; :class:`ClubNotFound` for non-members."""
    club = Club.objects.filter(pk=club_id).first()
    role = membership_role(club, user) if club is not None else None
    if club is None or role is None:
        raise ClubNotFound("亲友圈不存在")
    sees_all = role in MANAGERS or club.ledger_visible_to_members
    return LedgerAccess(club, user, role, sees_all)


def _day_bounds(filters: LedgerFilters) -> Q:
    q = Q()
    if filters.start is not None:
        q &= Q(occurred_at__gte=day_start(filters.start))
    if filters.end is not None:
        q &= Q(occurred_at__lte=day_end(filters.end))
    return q


def _scoped(
    qs: QuerySet[_M], access: LedgerAccess, filters: LedgerFilters, who: str
) -> QuerySet[_M]:
    """Restrict rows of the club to the filters and to what the user may see.

    ``who`` says how a row names its member: ``"entry"`` (payer or payee) or ``"user"``.
    """
    qs = qs.filter(club=access.club).filter(_day_bounds(filters))
    if filters.room_id is not None:
        qs = qs.filter(room_id=filters.room_id)
    if filters.variant:
        qs = qs.filter(variant=filters.variant)
    members = [filters.member_id] if filters.member_id is not None else []
    if not access.sees_all:
        members = [access.user.pk] if not members or members == [access.user.pk] else [-1]
    for member in members:
        qs = (
            qs.filter(Q(payer_id=member) | Q(payee_id=member))
            if who == "entry"
            else qs.filter(user_id=member)
        )
    return qs


def ledger_entry_list(*, access: LedgerAccess, filters: LedgerFilters) -> QuerySet[LedgerEntry]:
    """The club ledger's rows the user may see, oldest first."""
    qs = _scoped(LedgerEntry.objects.all(), access, filters, "entry")
    qs = qs.select_related("payer", "payee", "room", "hand", "match", "created_by")
    return qs.order_by("occurred_at", "pk")


def ledger_entry_get(*, access: LedgerAccess, entry_id: int) -> LedgerEntry:
    """One row of the club ledger, if the user may see it; :class:`ClubNotFound` otherwise."""
    entry = ledger_entry_list(access=access, filters=LedgerFilters()).filter(pk=entry_id).first()
    if entry is None:
        raise ClubNotFound("账本记录不存在")
    return entry


def member_totals(*, access: LedgerAccess, filters: LedgerFilters) -> list[dict[str, Any]]:
    """Per member: net amount and points (adjustments included), hands played and won,
    大赢家 count and matches played; biggest winner first."""
    stats: dict[int, dict[str, Any]] = {}

    def row(user_id: int) -> dict[str, Any]:
        return stats.setdefault(user_id, {
            "user_id": user_id, "points": 0, "amount": 0, "hands_played": 0, "hands_won": 0,
            "matches": 0, "big_wins": 0,
        })

    entries = _scoped(LedgerEntry.objects.all(), access, filters, "entry")
    for side, sign in (("payee", 1), ("payer", -1)):
        for item in entries.values(f"{side}_id").annotate(p=Sum("points"), a=Sum("amount")):
            r = row(item[f"{side}_id"])
            r["points"] += sign * item["p"]
            r["amount"] += sign * item["a"]
    hands = _scoped(HandResult.objects.all(), access, filters, "user")
    counted = hands.values("user_id").annotate(n=Count("pk"), w=Count("pk", filter=Q(won=True)))
    for item in counted:
        r = row(item["user_id"])
        r["hands_played"], r["hands_won"] = item["n"], item["w"]
    matches = _scoped(MatchResult.objects.all(), access, filters, "user")
    for item in matches.values("user_id").annotate(
        n=Count("pk"), b=Count("pk", filter=Q(big_winner=True))
    ):
        r = row(item["user_id"])
        r["matches"], r["big_wins"] = item["n"], item["b"]
    if not access.sees_all:
        stats = {k: v for k, v in stats.items() if k == access.user.pk}
    # A club's computer accounts (电脑补位) are not members: their rows stay in the ledger,
    # which is zero-sum with them, but not among the members' figures.
    computers = set(
        User.objects.filter(pk__in=stats, is_computer=True).values_list("pk", flat=True)
    )
    stats = {k: v for k, v in stats.items() if k not in computers}
    # The name as shown everywhere (a bot's with （机器人）).
    names = {u.pk: str(u) for u in User.objects.filter(pk__in=stats)}
    for user_id, r in stats.items():
        r["name"] = names.get(user_id, "")
    return sorted(stats.values(), key=lambda r: (-r["amount"], r["name"]))


def daily_summary(*, access: LedgerAccess, filters: LedgerFilters) -> list[dict[str, Any]]:
    """Per day (club time zone): hands, matches, ledger rows, amount moved, adjustments."""
    tz = timezone.get_current_timezone()
    days: dict[date, dict[str, Any]] = {}
    entries = _scoped(LedgerEntry.objects.all(), access, filters, "entry")
    for item in (
        entries.annotate(day=TruncDate("occurred_at", tzinfo=tz)).values("day").annotate(
            rows=Count("pk"), moved=Sum("amount"),
            adjustments=Count("pk", filter=Q(kind=LedgerEntry.Kind.ADJUSTMENT)),
            matches=Count("match", distinct=True),
        )
    ):
        days[item["day"]] = {
            "day": item["day"], "rows": item["rows"], "moved": item["moved"],
            "adjustments": item["adjustments"], "matches": item["matches"], "hands": 0,
        }
    hands = _scoped(HandResult.objects.all(), access, filters, "user")
    for item in (
        hands.annotate(day=TruncDate("occurred_at", tzinfo=tz)).values("day")
        .annotate(n=Count("hand", distinct=True))
    ):
        days.setdefault(item["day"], {
            "day": item["day"], "rows": 0, "moved": 0, "adjustments": 0, "matches": 0,
        })["hands"] = item["n"]
    return [days[d] for d in sorted(days, reverse=True)]


def cumulative_series(
    *, access: LedgerAccess, filters: LedgerFilters, limit: int = 8
) -> list[dict[str, Any]]:
    """Each member's cumulative amount over time: ``[{name, points: [(time, total)]}]``.

    Built from hand results and adjustments, in order; the ``limit`` members with the
    most hands are drawn.
    """
    events: list[tuple[datetime, int, int]] = []
    hands = _scoped(HandResult.objects.all(), access, filters, "user")
    events += list(hands.values_list("occurred_at", "user_id", "amount"))
    adjustments = _scoped(
        LedgerEntry.objects.filter(kind=LedgerEntry.Kind.ADJUSTMENT), access, filters, "entry"
    )
    for when, payer, payee, amount in adjustments.values_list(
        "occurred_at", "payer_id", "payee_id", "amount"
    ):
        events += [(when, payer, -amount), (when, payee, amount)]
    if not access.sees_all:
        events = [e for e in events if e[1] == access.user.pk]
    counts: dict[int, int] = {}
    for _, user_id, _ in events:
        counts[user_id] = counts.get(user_id, 0) + 1
    shown = sorted(counts, key=lambda u: -counts[u])[:limit]
    names = {u.pk: str(u) for u in User.objects.filter(pk__in=shown)}
    series: dict[int, dict[str, Any]] = {
        u: {"user_id": u, "name": names[u], "points": []} for u in shown
    }
    running = dict.fromkeys(shown, 0)
    for when, user_id, amount in sorted(events, key=lambda e: e[0]):
        if user_id in series:
            running[user_id] += amount
            series[user_id]["points"].append((when, running[user_id]))
    return list(series.values())


@dataclass(frozen=True, slots=True)
class MyFilters:
    """Filters of 我的战绩: a club, a game and a date range (club time zone), all optional."""

    club_id: int | None = None
    variant: str = ""
    start: date | None = None
    end: date | None = None


def my_match_seat_list(
    *, user: User, filters: MyFilters | None = None
) -> QuerySet[MatchPlayer]:
    """我的战绩: the user's seats, newest match first (a queryset, to slice or paginate)."""
    qs = MatchPlayer.objects.filter(user=user)
    f = filters or MyFilters()
    if f.club_id is not None:
        qs = qs.filter(match__club_id=f.club_id)
    if f.variant:
        qs = qs.filter(match__variant=f.variant)
    if f.start is not None:
        qs = qs.filter(match__created_at__gte=day_start(f.start))
    if f.end is not None:
        qs = qs.filter(match__created_at__lte=day_end(f.end))
    return qs.select_related("match__room", "match__club").order_by(
        "-match__created_at", "-match_id", "-pk"
    )


def my_match_rows(*, user: User, seats: Iterable[MatchPlayer]) -> list[dict[str, Any]]:
    """我的战绩 rows of ``seats`` (e.g. one page of :func:`my_match_seat_list`), each with
    the game's name, the opponents, the user's per-hand results, total and rank.

    Five queries in all (the seats, the matches' players, the user's hand results, match
    results and 调账), however many seats there are. A match's points include the owner's
    调账 (``adjustment``: the user's net of them, or ``None``), as the ledger counts them.
    """
    seats = list(seats)
    match_ids = [player.match_id for player in seats]
    others: dict[int, list[str]] = {match_id: [] for match_id in match_ids}
    for p in (
        MatchPlayer.objects.filter(match_id__in=match_ids).exclude(user=user)
        .select_related("user").order_by("seat")
    ):
        others[p.match_id].append(str(p.user))
    hands: dict[int, list[HandResult]] = {match_id: [] for match_id in match_ids}
    for r in (
        HandResult.objects.filter(match_id__in=match_ids, user=user)
        .select_related("hand")
        .order_by("match_id", "hand__number", "pk")
    ):
        hands[r.match_id].append(r)
    results: dict[int, MatchResult] = {}
    for m in MatchResult.objects.filter(match_id__in=match_ids, user=user):
        results.setdefault(m.match_id, m)
    unbooked = _unbooked_hand_points({p.match_id: p.seat for p in seats if not p.match.booked})
    adjusted = adjustment_nets(match_ids=match_ids, user=user)
    rows = []
    for player in seats:
        mine_hands = unbooked.get(player.match_id) or [
            {"hand": r.hand, "points": r.points, "amount": r.amount, "won": r.won}
            for r in hands[player.match_id]
        ]
        adjusted_points, adjusted_amount = adjusted.get((player.match_id, user.pk), (0, 0))
        points = sum(h["points"] for h in mine_hands) + adjusted_points
        totals = [int(t) for t in player.match.totals] or [0]
        mine_total = totals[player.seat] if player.seat < len(totals) else points
        rows.append({
            "match": player.match,
            "seat": player.seat,
            "booked": player.match.booked,
            "variant_name": variant_name(player.match.variant),
            "opponents": others[player.match_id],
            "hands": mine_hands,
            "points": points,
            "amount": sum(h["amount"] for h in mine_hands) + adjusted_amount,
            "adjustment": adjusted_points if (player.match_id, user.pk) in adjusted else None,
            "stake": base_stake(player.match),
            "rank": 1 + sum(1 for t in totals if t > mine_total),
            "result": results.get(player.match_id),
        })
    return rows


def adjustment_nets(*, match_ids: Iterable[int], user: User | None = None
                    ) -> dict[tuple[int, int], tuple[int, int]]:
    """Each player's net 调账 (points, amount) in each of ``match_ids`` that has one, by
    (match, user), as the ledger books them, so that match lists and 战绩 agree with the
    ledger's totals and 结账; with ``user``, that player's alone. One query."""
    entries = LedgerEntry.objects.filter(match_id__in=match_ids,
                                         kind=LedgerEntry.Kind.ADJUSTMENT)
    if user is not None:
        entries = entries.filter(Q(payer=user) | Q(payee=user))
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for e in entries.values("match_id", "payer_id", "payee_id", "points", "amount"):
        for user_id, sign in ((e["payee_id"], 1), (e["payer_id"], -1)):
            key = (e["match_id"], user_id)
            points, amount = out.get(key, (0, 0))
            out[key] = (points + sign * e["points"], amount + sign * e["amount"])
    return out


def _unbooked_hand_points(seats: dict[int, int]) -> dict[int, list[dict[str, Any]]]:
    """The settled hands of matches the ledger does not book (不记账: 电脑, 练习房, bots
    not allowed), match → hands with the real points of the seat given for that match:
    they have no ledger rows, so the points come from the hands' settlements. One query."""
    out: dict[int, list[dict[str, Any]]] = {match_id: [] for match_id in seats}
    for hand in Hand.objects.filter(
        match_id__in=seats, settlement__isnull=False
    ).order_by("match_id", "number"):
        totals = (hand.settlement or {}).get("totals") or []
        seat = seats[hand.match_id]
        out[hand.match_id].append({
            "hand": hand, "points": int(totals[seat]) if seat < len(totals) else 0,
            "amount": 0, "won": False,
        })
    return out


def my_match_list(*, user: User, limit: int = 30) -> list[dict[str, Any]]:
    """我的战绩: the user's latest ``limit`` matches, newest first, each with its per-hand
    results (see :func:`my_match_rows`)."""
    return my_match_rows(user=user, seats=my_match_seat_list(user=user)[:limit])


@dataclass(frozen=True, slots=True)
class MyStats:
    """A player's statistics over their filtered matches."""

    matches: int
    hands: int
    wins: int
    self_draws: int
    dealt_in: int
    points: int
    amount: int
    best: str
    series: list[dict[str, Any]]

    def _rate(self, count: int) -> str:
        return f"{100 * count / self.hands:.1f}%" if self.hands else "—"

    @property
    def win_rate(self) -> str:
        """胡牌率: hands won / hands played."""
        return self._rate(self.wins)

    @property
    def deal_in_rate(self) -> str:
        """点炮率: hands in which the player fed a win / hands played."""
        return self._rate(self.dealt_in)

    @property
    def self_draw_rate(self) -> str:
        """自摸率: hands won by 自摸 / hands played."""
        return self._rate(self.self_draws)

    @property
    def average(self) -> str:
        """平均得分: points per match."""
        return f"{self.points / self.matches:.1f}" if self.matches else "—"


FAN = re.compile(r"(\d+)番")


def my_stats(*, user: User, filters: MyFilters | None = None) -> MyStats:
    """场次, 局数, 胡牌率, 点炮率, 自摸率, 平均得分, 最大番/牌型 and 累计 over the user's
    booked matches in ``filters`` that have ended (those the club ledger books: the hand
    results and 调账 come from it), with the running total after each match (for the
    chart). A 不记账 match (练习房, a computer seat) or one still being played is in the
    match list, not in these figures.

    How each hand was won (自摸, 点炮) comes from replaying its record with the rules
    package; the biggest win is the largest 牌型 line the user was paid.
    """
    seats = my_match_seat_list(user=user, filters=filters).filter(
        match__in=Match.objects.filter(BOOKED).exclude(status=Match.Status.PLAYING))
    results = (
        HandResult.objects.filter(user=user, match_id__in=seats.values("match_id"))
        .values_list("seat", "won", "points", "amount", "match_id", "occurred_at",
                     "hand__record", "hand__settlement")
        .order_by("occurred_at", "pk")
    )
    hands = wins = self_draws = dealt_in = points = amount = 0
    best_points, best = 0, ""
    per_match: dict[int, tuple[datetime, int]] = {}
    for seat, won, p, a, match_id, when, record, settlement in results:
        hands += 1
        wins += won
        points += p
        amount += a
        per_match[match_id] = (when, per_match.get(match_id, (when, 0))[1] + p)
        if record:
            facts = seat_facts(hand_wins(record), seat)
            self_draws += facts.self_draw
            dealt_in += facts.dealt_in
        for line in (settlement or {}).get("lines", []):
            category = str(line.get("category", ""))
            if (
                line.get("payee") == seat and category.startswith("牌型:")
                and line["points"] > best_points
            ):
                fan = FAN.search(str(line.get("note", "")))
                best_points = line["points"]
                best = category_in_words(category) + (
                    f" {fan.group(1)}番" if fan else f" {line['points']}分"
                )
    for (match_id, user_id), (p, a) in adjustment_nets(
        match_ids=seats.values_list("match_id", flat=True), user=user
    ).items():  # 调账, with the match it corrects
        if user_id != user.pk:
            continue
        points += p
        amount += a
        when, total = per_match.get(match_id, (timezone.now(), 0))
        per_match[match_id] = (when, total + p)
    running, chart = 0, []
    for when, total in sorted(per_match.values(), key=lambda item: item[0]):
        running += total
        chart.append((when, running))
    return MyStats(
        matches=seats.count(), hands=hands, wins=wins, self_draws=self_draws,
        dealt_in=dealt_in, points=points, amount=amount, best=best or "—",
        series=[{"user_id": user.pk, "name": "我的累计", "points": chart}] if chart else [],
    )


def hand_get_for_viewer(*, hand_id: int, user: User | Any, share: str = "") -> Hand:
    """A settled hand the user may look at, else :class:`ClubNotFound`.

    Its players may; so may whoever sees the whole club ledger; and any club member who
    holds the hand's share link (``share`` token, see :func:`replay_share_token`).
    """
    hand = Hand.objects.select_related("match__club", "match__room").filter(pk=hand_id).first()
    if hand is None or hand.record is None or hand.settlement is None:
        raise ClubNotFound("牌局不存在或尚未结束")
    match = hand.match
    role = membership_role(match.club, user)
    if role is None:
        raise ClubNotFound("牌局不存在或尚未结束")
    if MatchPlayer.objects.filter(match=match, user=user).exists():
        return hand
    if role in MANAGERS or match.club.ledger_visible_to_members:
        return hand
    if share and share == replay_share_token(hand):
        return hand
    raise ClubNotFound("牌局不存在或尚未结束")


def replay_share_token(hand: Hand) -> str:
    """The token of a hand's share link (an HMAC of its id, keyed by ``SECRET_KEY``)."""
    return salted_hmac("apps.ledgers.replay-share", str(hand.pk)).hexdigest()[:24]


def seat_names(match: Match) -> dict[int, str]:
    """Each seat's player name."""
    players = MatchPlayer.objects.filter(match=match).select_related("user")
    return {p.seat: str(p.user) for p in players}


def hand_lines_in_words(hand: Hand) -> list[dict[str, Any]]:
    """The hand's ledger rows (adjustments included) as sentences:
    ``李四 付 张三 冲锋鸡 3分``, each with its row, its kind and whether it is an adjustment."""
    names = seat_names(hand.match)
    stored = (hand.settlement or {}).get("lines", [])
    rows = LedgerEntry.objects.filter(Q(hand=hand) | Q(corrects__hand=hand)).order_by("pk")
    out = []
    for e in rows:
        adjustment = e.kind == LedgerEntry.Kind.ADJUSTMENT
        line = stored[e.line_no - 1] if e.line_no and e.line_no <= len(stored) else {}
        kind = ADJUSTMENT if adjustment else line_kind({"category": e.category, **line})
        out.append({
            "entry": e, "kind": kind, "adjustment": adjustment,
            "text": line_sentence(names[e.payer_seat], names[e.payee_seat], e.category,
                                  e.points, e.note),
        })
    return out


@dataclass(frozen=True, slots=True)
class UnbookedLine:
    """A settlement line of a hand the ledger does not book (不记账), where the hand page
    shows a ledger row: who pays whom, how many points, under which ruling."""

    payer_seat: int
    payee_seat: int
    category: str
    points: int
    ruling: str
    note: str


def hand_lines_shown(hand: Hand) -> list[dict[str, Any]]:
    """The hand's lines in words as its page shows them: the ledger rows
    (:func:`hand_lines_in_words`) of a booked match; of a match the ledger does not book
    (不记账), the stored settlement's lines with their real points."""
    if hand.match.booked:
        return hand_lines_in_words(hand)
    names = seat_names(hand.match)
    out = []
    for line in (hand.settlement or {}).get("lines", []):
        entry = UnbookedLine(
            payer_seat=int(line["payer"]), payee_seat=int(line["payee"]),
            category=str(line["category"]), points=int(line["points"]),
            ruling=str(line.get("ruling", "")), note=str(line.get("note", "")),
        )
        out.append({
            "entry": entry, "kind": line_kind(line), "adjustment": False,
            "text": line_sentence(names[entry.payer_seat], names[entry.payee_seat],
                                  entry.category, entry.points, entry.note),
        })
    return out


EARLIEST_DAY = date(1, 1, 2)
"""Days before it start at the same instant: 0001-01-01 00:00 east of UTC lies before the
first representable UTC instant (a filter ``start=0001-01-01`` would overflow)."""


def day_start(day: date) -> datetime:
    """The first instant of ``day`` in the club time zone (``TIME_ZONE``, Asia/Shanghai)."""
    return datetime.combine(max(day, EARLIEST_DAY), time.min,
                            tzinfo=timezone.get_current_timezone())


def day_end(day: date) -> datetime:
    """The last instant of ``day`` in the club time zone."""
    return datetime.combine(day, time.max, tzinfo=timezone.get_current_timezone())


@dataclass(frozen=True, slots=True)
class CheckoutRow:
    """One member at 结账: carried over from before the period, won in it, and the sum."""

    user_id: int
    name: str
    carried: int
    period: int

    @property
    def total(self) -> int:
        """What the member is owed (+) or owes (−) in all."""
        return self.carried + self.period


@dataclass(frozen=True, slots=True)
class CheckoutPayment:
    """``payer`` pays ``payee`` ``amount`` to settle."""

    payer_id: int
    payer: str
    payee_id: int
    payee: str
    amount: int


@dataclass(frozen=True, slots=True)
class CheckoutView:
    """结账 of a period: each member's unsettled balance and the payments that settle it.

    Counted are the club's ledger rows after the last 结账 (``since``) up to the end of the
    period or now (``through``); those before the period's first day are ``carried``.
    ``digest`` fingerprints what is shown, so a mark of settled pays exactly that.
    """

    start: date
    end: date
    last: Checkout | None
    since: datetime | None
    through: datetime
    rows: list[CheckoutRow]
    payments: list[CheckoutPayment]
    digest: str

    @property
    def settled(self) -> bool:
        """Whether nothing is owed."""
        return not self.payments

    @property
    def carried_any(self) -> bool:
        """Whether any balance comes from before the period."""
        return any(row.carried for row in self.rows)


def checkout_last(*, club: Club) -> Checkout | None:
    """The club's latest 结账, if any."""
    return Checkout.objects.filter(club=club).order_by("-through", "-pk").first()


def checkout_list(*, club: Club, limit: int = 10) -> list[Checkout]:
    """The club's latest 结账 records, newest first."""
    return list(
        Checkout.objects.filter(club=club).select_related("created_by")
        .order_by("-through", "-pk")[:limit]
    )


def checkout_compute(*, access: LedgerAccess, start: date, end: date) -> CheckoutView:
    """结账 of the days ``start``–``end`` (club time zone) for whoever sees the whole ledger.

    Amounts are ledger amounts (points × 底注), adjustments included. The payments come
    from :func:`apps.ledgers.payments.settle_payments` and bring every member to zero.
    """
    if not access.sees_all:
        raise ClubNotFound("只有圈主、管理员可以查看结账")
    last = checkout_last(club=access.club)
    since = last.through if last is not None else None
    through = min(day_end(end), timezone.now())
    first = day_start(start)
    entries = LedgerEntry.objects.filter(club=access.club, occurred_at__lte=through)
    if since is not None:
        entries = entries.filter(occurred_at__gt=since)
    carried: dict[int, int] = {}
    period: dict[int, int] = {}
    for side, sign in (("payee", 1), ("payer", -1)):
        for item in entries.values(f"{side}_id").annotate(
            before=Sum("amount", filter=Q(occurred_at__lt=first)),
            within=Sum("amount", filter=Q(occurred_at__gte=first)),
        ):
            user_id = item[f"{side}_id"]
            carried[user_id] = carried.get(user_id, 0) + sign * (item["before"] or 0)
            period[user_id] = period.get(user_id, 0) + sign * (item["within"] or 0)
    users = {u.pk: str(u) for u in User.objects.filter(pk__in=set(carried) | set(period))}
    rows = sorted(
        (CheckoutRow(u, users[u], carried.get(u, 0), period.get(u, 0)) for u in users),
        key=lambda r: (-r.total, r.name, r.user_id),
    )
    rows = [row for row in rows if row.carried or row.period]
    balances = {row.user_id: row.total for row in rows}
    payments = [
        CheckoutPayment(p.payer, users[p.payer], p.payee, users[p.payee], p.amount)
        for p in settle_payments(balances, order=users)
    ]
    return CheckoutView(
        start=start, end=end, last=last, since=since, through=through, rows=rows,
        payments=payments, digest=checkout_digest(since=since, balances=balances),
    )


def checkout_digest(*, since: datetime | None, balances: dict[int, int]) -> str:
    """A fingerprint of a 结账's starting point and balances."""
    text = json.dumps(
        {"since": since.isoformat() if since else None, "balances": sorted(balances.items())}
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def checkout_history(*, club: Club, limit: int = 10) -> list[dict[str, Any]]:
    """The club's latest 结账 records, newest first, with their payments in names."""
    checkouts = checkout_list(club=club, limit=limit)
    ids = {p[k] for c in checkouts for p in c.payments for k in ("payer", "payee")}
    names = {u.pk: str(u) for u in User.objects.filter(pk__in=ids)}
    return [
        {
            "checkout": c,
            "payments": [
                {"payer": names.get(p["payer"], ""), "payee": names.get(p["payee"], ""),
                 "amount": p["amount"]}
                for p in c.payments
            ],
        }
        for c in checkouts
    ]


def match_get_for_viewer(*, access: LedgerAccess, match_id: int) -> Match:
    """A match of the club the user may see in full: any, for whoever sees the whole
    ledger; else only one they played. :class:`ClubNotFound` otherwise."""
    match = (
        Match.objects.select_related("room", "club")
        .filter(pk=match_id, club=access.club).first()
    )
    if match is None or not (
        access.sees_all or MatchPlayer.objects.filter(match=match, user=access.user).exists()
    ):
        raise ClubNotFound("对局不存在")
    return match


def match_table(*, match: Match) -> dict[str, Any]:
    """A match as a table: one row per settled hand (each seat's points, who won), one per
    adjustment, then each seat's total points and amount (points × 底注)."""
    players = list(MatchPlayer.objects.filter(match=match).select_related("user").order_by("seat"))
    seats = [p.seat for p in players]
    hands: dict[int, dict[str, Any]] = {}
    for r in HandResult.objects.filter(match=match).select_related("hand").order_by(
        "hand__number", "seat"
    ):
        row = hands.setdefault(r.hand_id, {"hand": r.hand, "cells": {}})
        row["cells"][r.seat] = {"points": r.points, "won": r.won}
    if not match.booked:  # 不记账: no ledger rows; the real points of each settled hand
        for hand in Hand.objects.filter(match=match, settlement__isnull=False).order_by(
            "number"
        ):
            totals = (hand.settlement or {}).get("totals") or []
            hands[hand.pk] = {"hand": hand, "cells": {
                seat: {"points": int(points)} for seat, points in enumerate(totals)
            }}
    rows = [
        {"hand": row["hand"], "cells": [row["cells"].get(s, {"points": 0}) for s in seats]}
        for row in hands.values()
    ]
    totals = dict.fromkeys(seats, 0)
    for row in rows:
        for seat, cell in zip(seats, row["cells"], strict=True):
            totals[seat] += cell["points"]
    adjustments = []
    for e in LedgerEntry.objects.filter(match=match, kind=LedgerEntry.Kind.ADJUSTMENT).order_by(
        "occurred_at", "pk"
    ).select_related("payer", "payee", "created_by"):
        cells = [
            {"points": e.points if s == e.payee_seat else -e.points if s == e.payer_seat else 0}
            for s in seats
        ]
        totals[e.payee_seat] += e.points
        totals[e.payer_seat] -= e.points
        adjustments.append({
            "entry": e, "cells": cells,
            "text": f"{e.payer} 付 {e.payee} {e.points}分（{e.reason}）",
        })
    stake = base_stake(match)
    top = max(totals.values()) if totals else 0
    return {
        "match": match,
        "booked": match.booked,
        "variant_name": variant_name(match.variant),
        "stake": stake,
        "players": [
            {"name": str(p.user), "user_id": p.user_id, "seat": p.seat, "points": totals[p.seat],
             "amount": totals[p.seat] * stake, "top": top > 0 and totals[p.seat] == top}
            for p in players
        ],
        "rows": rows,
        "adjustments": adjustments,
    }


def base_stake(match: Match) -> int:
    """The match's frozen 底注 (1 if the variant has none)."""
    return int(match.settings.get("base_stake", 1))


def club_match_list(*, access: LedgerAccess, filters: LedgerFilters) -> QuerySet[Match]:
    """The club's matches in the filters (started within the dates), newest first; only the
    user's own unless they see the whole ledger."""
    qs = Match.objects.filter(club=access.club)
    if filters.start is not None:
        qs = qs.filter(created_at__gte=day_start(filters.start))
    if filters.end is not None:
        qs = qs.filter(created_at__lte=day_end(filters.end))
    if filters.room_id is not None:
        qs = qs.filter(room_id=filters.room_id)
    if filters.variant:
        qs = qs.filter(variant=filters.variant)
    member = filters.member_id if access.sees_all else access.user.pk
    if member is not None:
        qs = qs.filter(players__user_id=member)
    return qs.select_related("room").order_by("-created_at", "-pk")


def club_match_rows(matches: Iterable[Match]) -> list[dict[str, Any]]:
    """Rows of a match list: date, room, game, and each player's name and points so far,
    the owner's 调账 included (as the ledger's totals and 结账 count them)."""
    matches = list(matches)
    players: dict[int, list[MatchPlayer]] = {m.pk: [] for m in matches}
    for p in MatchPlayer.objects.filter(match__in=matches).select_related("user").order_by(
        "seat"
    ):
        players[p.match_id].append(p)
    adjusted = adjustment_nets(match_ids=[m.pk for m in matches])
    adjusted_matches = {match_id for match_id, _ in adjusted}
    return [
        {
            "match": m,
            "booked": m.booked,
            "variant_name": variant_name(m.variant),
            "adjusted": m.pk in adjusted_matches,
            "players": [
                {"name": str(p.user),
                 "points": (m.totals[p.seat] if p.seat < len(m.totals) else 0)
                 + adjusted.get((m.pk, p.user_id), (0, 0))[0]}
                for p in players[m.pk]
            ],
        }
        for m in matches
    ]


MELD_NAMES = {"pung": "碰", "exposed_kong": "明杠", "concealed_kong": "暗杠", "added_kong": "补杠"}
WIN_WORDS = {"self_draw": "自摸", "on_discard": "点炮", "robbing_kong": "抢杠"}
SUIT_ORDER = {"m": 0, "s": 1, "p": 2}


def _tile_order(code: str) -> tuple[int, str]:
    return SUIT_ORDER[code[1]], code[0]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat on the hand page: its final tiles, how it won, its subtotals by row
    (:data:`~apps.ledgers.kinds.SUBTOTAL_ROWS`)."""

    seat: int
    name: str
    dealer: bool
    concealed: list[str]
    melds: list[dict[str, Any]]
    win_tile: str | None
    how: str
    subtotals: dict[str, int]

    @property
    def total(self) -> int:
        """The seat's net points in the hand."""
        return sum(self.subtotals.values())


def hand_view(hand: Hand) -> dict[str, Any]:
    """Everything the hand page shows: each seat's final tiles (the winning tile apart and
    how it was won), each seat's subtotal by kind of line, and the lines in words.

    The final tiles come from replaying the hand's record with the rules package.
    """
    record = hand.record or {}
    names = seat_names(hand.match)
    final = replay(record)
    snap = final.snapshot()
    wins = {w.seat: w for w in final.wins}
    lines = hand_lines_shown(hand)
    seats: list[SeatView] = []
    for seat, s in enumerate(snap["seats"]):
        concealed = list(s["hand"])
        melds = [
            {"name": MELD_NAMES.get(m["kind"], m["kind"]), "tiles": [m["tile"]] * (
                3 if m["kind"] == "pung" else 4
            ), "concealed": m["kind"] == "concealed_kong"}
            for m in s["melds"]
        ]
        win = wins.get(seat)
        how = ""
        if win is not None:
            if len(concealed) + 3 * len(melds) == 14 and win.tile.code in concealed:
                concealed.remove(win.tile.code)
            how = WIN_WORDS[win.source.value]
            if win.from_seat is not None and win.source.value != "self_draw":
                how += f"（{names[win.from_seat]}）"
        subtotals: dict[str, int] = {}
        for line in lines:
            e = line["entry"]
            sign = 1 if e.payee_seat == seat else -1 if e.payer_seat == seat else 0
            if sign:
                row = subtotal_row(line["kind"])
                subtotals[row] = subtotals.get(row, 0) + sign * e.points
        seats.append(SeatView(
            seat=seat, name=names[seat], dealer=seat == hand.dealer,
            concealed=sorted(concealed, key=_tile_order), melds=melds,
            win_tile=win.tile.code if win is not None else None, how=how,
            subtotals=subtotals,
        ))
    rows = [name for name, _ in SUBTOTAL_ROWS if any(name in s.subtotals for s in seats)]
    summary = (hand.settlement or {}).get("summary") or {}
    return {
        "variant_name": variant_name(hand.match.variant),
        "booked": hand.match.booked,
        "seats": seats,
        "kinds": [
            {"name": name, "cells": [s.subtotals.get(name, 0) for s in seats]}
            for name in rows
        ],
        "lines": lines,
        "fanji": summary.get("fanji"),
        "luobo": list(summary.get("luobo") or []),
        "drawn_game": not final.wins,
    }


def adjust_match_choices(*, club: Club, limit: int = 60) -> list[tuple[int, str]]:
    """The club's latest matches as picker choices: ``12-01 20:30 · 都匀独山捉鸡 · 张三、李四…``."""
    rows = club_match_rows(
        Match.objects.filter(BOOKED, club=club).order_by("-created_at", "-pk")[:limit]
    )
    return [
        (
            row["match"].pk,
            f"{timezone.localtime(row['match'].created_at):%m-%d %H:%M} · {row['variant_name']} · "
            + "、".join(p["name"] for p in row["players"]),
        )
        for row in rows
    ]


def match_players(*, match: Match) -> list[tuple[int, str]]:
    """The match's players as picker choices (user ID, name), in seat order."""
    players = MatchPlayer.objects.filter(match=match).select_related("user").order_by("seat")
    return [(p.user_id, str(p.user)) for p in players]


def match_line_choices(*, match: Match) -> list[tuple[int, str]]:
    """The match's ledger rows as picker choices: ``第2局 李四 付 张三 幺鸡 1分``."""
    names = seat_names(match)
    rows = LedgerEntry.objects.filter(match=match).select_related("hand").order_by("pk")
    return [
        (
            e.pk,
            (f"第{e.hand.number}局 " if e.hand is not None else "调账 ")
            + line_sentence(names[e.payer_seat], names[e.payee_seat], e.category, e.points),
        )
        for e in rows
    ]


@dataclass(frozen=True, slots=True)
class ChainLinks:
    """A club's chain head and the links of its rows from ``since`` on: what a member's
    browser needs to check that the head extends the one it kept (``static/ledgers/chain.js``).
    A link is ``(seq, signature of the row before, signature)``; no row's content."""

    seq: int
    last: str
    links: list[tuple[int, str, str]]


def ledger_chain_links(*, access: LedgerAccess, since: int) -> ChainLinks:
    """The head of the club's chain and the links of rows ``since … head`` (none for
    ``since`` 0). Any member may read them: signatures say nothing of a row's content."""
    head = LedgerHead.objects.filter(club=access.club).first()
    links: list[tuple[int, str, str]] = []
    if since > 0:
        for model in CHAINED:
            links += model.objects.filter(club=access.club, seq__gte=since).values_list(
                "seq", "prev_signature", "signature"
            )
    return ChainLinks(head.seq if head else 0, head.last if head else "", sorted(links))
