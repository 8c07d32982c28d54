"""Reads of the ledger, with the permission rules applied here (pages and API share them).

Who sees what:

- A player sees their own matches, hands and lines (我的战绩).
- The club's owner and admins see the whole club ledger.
- Plain members see only their own rows, unless the owner set
  ``Club.ledger_visible_to_members``; then they see the whole club ledger too.
- Anyone who is not a member of the club sees nothing of it (404).
"""

from __future__ import annotations

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
from apps.clubs.selectors import membership_role
from apps.matches.models import Hand, Match, MatchPlayer

from .errors import ClubNotFound
from .models import HandResult, LedgerEntry, MatchResult

MANAGERS = (Membership.Role.OWNER, Membership.Role.ADMIN)
TILE_CODE = re.compile(r"[1-9][msp]")
NUMERALS = "一二三四五六七八九"
SUITS = {"m": "万", "s": "条", "p": "筒"}

_M = TypeVar("_M", bound=Model)


def tile_name(code: str) -> str:
    """A tile's Chinese name, as the table shows it: ``五万``; 1s is ``幺鸡``."""
    return "幺鸡" if code == "1s" else NUMERALS[int(code[0]) - 1] + SUITS[code[1]]


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
    tz = timezone.get_current_timezone()
    if filters.start is not None:
        q &= Q(occurred_at__gte=datetime.combine(filters.start, time.min, tzinfo=tz))
    if filters.end is not None:
        q &= Q(occurred_at__lte=datetime.combine(filters.end, time.max, tzinfo=tz))
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
    qs = qs.select_related("payer", "payee", "room", "hand", "created_by")
    return qs.order_by("occurred_at", "pk")


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
    names = dict(User.objects.filter(pk__in=stats).values_list("pk", "display_name"))
    usernames = dict(User.objects.filter(pk__in=stats).values_list("pk", "username"))
    for user_id, r in stats.items():
        r["name"] = names.get(user_id) or usernames.get(user_id, "")
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


def my_match_seat_list(*, user: User) -> QuerySet[MatchPlayer]:
    """我的战绩: the user's seats, newest match first (a queryset, to slice or paginate)."""
    return (
        MatchPlayer.objects.filter(user=user)
        .select_related("match__room", "match__club")
        .order_by("-match__created_at", "-match_id", "-pk")
    )


def my_match_rows(*, user: User, seats: Iterable[MatchPlayer]) -> list[dict[str, Any]]:
    """我的战绩 rows of ``seats`` (e.g. one page of :func:`my_match_seat_list`), each with
    the user's per-hand results, totals and match result.

    Three queries in all (the seats, their hand results, their match results), however
    many seats there are.
    """
    seats = list(seats)
    match_ids = [player.match_id for player in seats]
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
    return [
        {
            "match": player.match,
            "seat": player.seat,
            "hands": [
                {"hand": r.hand, "points": r.points, "amount": r.amount, "won": r.won}
                for r in hands[player.match_id]
            ],
            "points": sum(r.points for r in hands[player.match_id]),
            "amount": sum(r.amount for r in hands[player.match_id]),
            "result": results.get(player.match_id),
        }
        for player in seats
    ]


def my_match_list(*, user: User, limit: int = 30) -> list[dict[str, Any]]:
    """我的战绩: the user's latest ``limit`` matches, newest first, each with its per-hand
    results (see :func:`my_match_rows`)."""
    return my_match_rows(user=user, seats=my_match_seat_list(user=user)[:limit])


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
    ``冲锋鸡: 李四 → 张三 3分``."""
    names = seat_names(hand.match)
    rows = LedgerEntry.objects.filter(Q(hand=hand) | Q(corrects__hand=hand)).order_by("pk")
    out = []
    for e in rows:
        text = f"{e.category}: {names[e.payer_seat]} → {names[e.payee_seat]} {e.points}分"
        if e.note:
            text += f" ({tile_name(e.note) if TILE_CODE.fullmatch(e.note) else e.note})"
        out.append({
            "entry": e, "text": text, "adjustment": e.kind == LedgerEntry.Kind.ADJUSTMENT,
        })
    return out
