"""Admin of matches and hands: the history read-only, a live summary of a match in play,
and 强制解散 (force dissolve) through the match service, recorded in the admin's log.

Nothing here writes a match row itself: the action calls
:func:`apps.matches.services.match_dissolve`, which ends a match in play as a passed
dissolve vote does (finished hands and their ledger rows kept). A hand's seed and record
are never shown while the hand is in play.
Every column is labelled in Chinese here, games by their Chinese names.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from apps.clubs.admin import VariantFilter
from apps.clubs.selectors import variant_name

from . import services
from .models import Hand, Match, MatchPlayer

ADMIN_DISSOLVE_REASON = "admin"
DISSOLVE_LOG = "强制解散（管理员操作，已结束的牌局保留）"


class StatusFilter(admin.SimpleListFilter):
    """Filter matches by status (对局中, 已结束, 已解散)."""

    title = "状态"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """Every status, by its Chinese name."""
        return [(value, str(label)) for value, label in Match.Status.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        """Matches of the chosen status."""
        value = self.value()
        return queryset.filter(status=value) if value else queryset


def _when(moment: Any) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else "—"


def _players(match: Match) -> list[MatchPlayer]:
    return list(match.players.select_related("user").order_by("seat"))


class ReadOnlyMixin:
    """History is looked at, never edited or deleted, here."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Matches and hands are made by play only."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Rows change through the match service only."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """History is kept."""
        return False


def _seat_name(match: Match, seat: int) -> str:
    player = match.players.select_related("user").filter(seat=seat).first()
    return str(player.user) if player is not None else f"{seat + 1}号位"


def _outcome(hand: Hand, names: dict[int, str] | None = None) -> str:
    if hand.settlement is None:
        return "未结算" if hand.ended_at is None else "中途解散，未结算"
    names = names if names is not None else {p.seat: str(p.user) for p in _players(hand.match)}
    totals = hand.settlement.get("totals") or []
    return "，".join(f"{names.get(seat, seat)} {points:+d}" for seat, points in enumerate(totals))


@admin.register(Match)
class MatchAdmin(ReadOnlyMixin, admin.ModelAdmin[Match]):
    """Every match: who played what, when, how it stands; 强制解散 for a stuck one."""

    list_display = (
        "label", "club", "room_code", "game", "status_name", "progress", "player_names",
        "started", "finished",
    )
    list_filter = (StatusFilter, VariantFilter, "club")
    list_select_related = ("club", "room")
    search_fields = (
        "=id", "room__code", "club__name", "players__user__display_name",
        "players__user__username",
    )
    date_hierarchy = "created_at"
    actions = ("force_dissolve",)
    fields = (
        "label", "club", "room_code", "game", "status_name", "progress", "live_summary",
        "standings", "hand_list", "started", "finished",
    )
    readonly_fields = fields

    @admin.display(description="牌局")
    def hand_list(self, obj: Match) -> SafeString:
        """Each hand: dealer, times and outcome, linked to its admin page."""
        names = {p.seat: str(p.user) for p in _players(obj)}
        return format_html_join(
            "", '<div><a href="{}">第{}局</a> 庄家 {} · {} · {}</div>',
            (
                (
                    reverse("admin:matches_hand_change", args=[h.pk]), h.number,
                    names.get(h.dealer, ""), _when(h.started_at),
                    _outcome(h, names) if h.ended_at else "进行中",
                )
                for h in obj.hands.order_by("number")
            ),
        )

    @admin.display(description="对局", ordering="id")
    def label(self, obj: Match) -> str:
        """``对局 #12``."""
        return f"对局 #{obj.pk}"

    @admin.display(description="房间", ordering="room__code")
    def room_code(self, obj: Match) -> str:
        """The room's code."""
        return obj.room.code

    @admin.display(description="玩法", ordering="variant")
    def game(self, obj: Match) -> str:
        """The game's Chinese name."""
        return variant_name(obj.variant)

    @admin.display(description="状态", ordering="status")
    def status_name(self, obj: Match) -> str:
        """对局中, 已结束 or 已解散."""
        return str(obj.get_status_display())

    @admin.display(description="局数")
    def progress(self, obj: Match) -> str:
        """Hands played of the total."""
        return f"{obj.hands_played}/{obj.hands_total}"

    @admin.display(description="玩家")
    def player_names(self, obj: Match) -> str:
        """The players, in seat order."""
        return "、".join(str(p.user) for p in _players(obj))

    @admin.display(description="开始", ordering="created_at")
    def started(self, obj: Match) -> str:
        """When the match started."""
        return _when(obj.created_at)

    @admin.display(description="结束", ordering="finished_at")
    def finished(self, obj: Match) -> str:
        """When the match ended, or —."""
        return _when(obj.finished_at)

    @admin.display(description="得分")
    def standings(self, obj: Match) -> SafeString:
        """Each player's points so far, with 托管 and timeouts."""
        totals = list(obj.totals)
        return format_html_join(
            "", "<div>{}：{}分{}</div>",
            (
                (
                    str(p.user), totals[p.seat] if p.seat < len(totals) else 0,
                    f"（托管，连续超时{p.consecutive_timeouts}次）" if p.auto_play else "",
                )
                for p in _players(obj)
            ),
        )

    @admin.display(description="实时状态")
    def live_summary(self, obj: Match) -> SafeString:
        """Where a match in play stands: stage, hand, dealer, deadline, dissolve vote."""
        if obj.status != Match.Status.PLAYING:
            return format_html("{}（{}）", obj.get_status_display(), _when(obj.finished_at))
        hand = obj.hands.order_by("-number").first()
        names = {p.seat: str(p.user) for p in _players(obj)}
        rows: list[tuple[str, str]] = [("阶段", str(obj.get_stage_display()))]
        if hand is not None:
            rows.append(("当前牌局", f"第{hand.number}局，庄家 {names.get(hand.dealer, '')}"
                                     f"，{_when(hand.started_at)} 开始"))
        if obj.deadline is not None:
            left = int((obj.deadline - timezone.now()).total_seconds())
            rest = f"还剩 {left} 秒" if left > 0 else "已到期"
            rows.append(("决策截止", f"{_when(obj.deadline)}（{rest}）"))
        rows.append(("最后变化", _when(obj.changed_at)))
        if obj.ready_seats:
            rows.append(("已准备", "、".join(names.get(s, str(s)) for s in obj.ready_seats)))
        vote = obj.dissolve_vote
        if vote:
            votes = vote.get("votes", {})
            agreed = "、".join(names.get(int(s), s) for s, yes in votes.items() if yes)
            proposer = names.get(vote.get("proposer"), "")
            rows.append(("解散投票", f"{proposer} 发起，已同意：{agreed or '无'}"))
        rows.append(("日志版本", str(obj.version)))
        return format_html_join("", "<div><b>{}</b>：{}</div>", rows)

    @admin.action(description="强制解散所选对局（已结束的牌局保留）")
    def force_dissolve(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        """End each selected match in play as a passed dissolve vote would, through the
        match service; each one ended is written to the admin's log (操作记录)."""
        staff_id = request.user.pk
        assert staff_id is not None, "the admin's actions run for a signed-in staff member"
        ended, skipped = [], []
        for match in queryset.order_by("pk"):
            dissolved = services.match_dissolve(match_id=match.pk, reason=ADMIN_DISSOLVE_REASON)
            if dissolved:
                LogEntry.objects.create(
                    user_id=staff_id, content_type=ContentType.objects.get_for_model(Match),
                    object_id=str(match.pk), object_repr=str(match),
                    action_flag=CHANGE, change_message=DISSOLVE_LOG,
                )
                ended.append(f"#{match.pk}")
            else:
                skipped.append(f"#{match.pk}")
        if ended:
            self.message_user(request, f"已强制解散对局 {'、'.join(ended)}", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"对局 {'、'.join(skipped)} 不在对局中，未改动", messages.WARNING
            )


@admin.register(Hand)
class HandAdmin(ReadOnlyMixin, admin.ModelAdmin[Hand]):
    """Every hand: its match, dealer, times and outcome; the seed only once it ended."""

    list_display = ("label", "match_label", "game", "dealer_name", "started", "ended", "outcome")
    list_select_related = ("match",)
    search_fields = ("=match__id",)
    fields = (
        "label", "match_label", "game", "dealer_name", "started", "ended", "outcome",
        "page_link", "commitment", "seed_reveal",
    )
    readonly_fields = fields

    @admin.display(description="牌局")
    def label(self, obj: Hand) -> str:
        """``第3局``."""
        return f"第{obj.number}局"

    @admin.display(description="对局", ordering="match_id")
    def match_label(self, obj: Hand) -> str:
        """``对局 #12``."""
        return f"对局 #{obj.match_id}"

    @admin.display(description="玩法")
    def game(self, obj: Hand) -> str:
        """The game's Chinese name."""
        return variant_name(obj.match.variant)

    @admin.display(description="庄家")
    def dealer_name(self, obj: Hand) -> str:
        """The dealer's name."""
        return _seat_name(obj.match, obj.dealer)

    @admin.display(description="开始", ordering="started_at")
    def started(self, obj: Hand) -> str:
        """When the hand was dealt."""
        return _when(obj.started_at)

    @admin.display(description="结束", ordering="ended_at")
    def ended(self, obj: Hand) -> str:
        """When the hand ended, or 进行中."""
        return _when(obj.ended_at) if obj.ended_at else "进行中"

    @admin.display(description="结果")
    def outcome(self, obj: Hand) -> str:
        """Each seat's points, or why there are none."""
        return _outcome(obj)

    @admin.display(description="结算页")
    def page_link(self, obj: Hand) -> SafeString | str:
        """A link to the hand's page, once settled."""
        if obj.settlement is None or obj.record is None:
            return "—"
        url = reverse("ledgers:hand", args=[obj.pk])
        return format_html('<a href="{}">查看结算与回放</a>', url)

    @admin.display(description="洗牌承诺")
    def commitment(self, obj: Hand) -> str:
        """The commitment published at the deal."""
        return obj.commitment

    @admin.display(description="洗牌种子")
    def seed_reveal(self, obj: Hand) -> str:
        """The seed, once the hand has ended (secret while it is played)."""
        return obj.seed if obj.ended_at is not None else "牌局进行中，不公开"
