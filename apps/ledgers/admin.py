"""Read-only admin for the ledger: rows can be looked at, never added, changed or deleted
here (corrections are made by the club owner as 调账 entries, 结账 by the owner's mark).
Matches, hands and games show in Chinese."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.utils.html import format_html_join

from apps.accounts.models import User
from apps.clubs.admin import VariantFilter, variant_column

from .models import (
    AdjustmentReceipt,
    Checkout,
    HandResult,
    LedgerEntry,
    LedgerIdentity,
    MatchResult,
)

_M = TypeVar("_M", bound=Model)


class ReadOnlyAdmin(admin.ModelAdmin[_M]):
    """An admin with view permission only, and no bulk delete action."""

    actions = None

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Rows are written by the services only."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Rows never change."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Rows are never deleted."""
        return False

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """The row's fields, its game by the Chinese name."""
        return [variant_column if f == "variant" else f for f in super().get_fields(request, obj)]

    @admin.display(description="对局", ordering="match_id")
    def match_column(self, obj: Any) -> str:
        """``对局 #12``."""
        return f"对局 #{obj.match_id}"

    @admin.display(description="牌局")
    def hand_column(self, obj: Any) -> str:
        """``第3局`` (blank for a row of no single hand)."""
        return f"第{obj.hand.number}局" if obj.hand_id else ""


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin[LedgerEntry]):
    list_display = (
        "occurred_at", "kind", "club", "match_column", "hand_column", "line_no", "category",
        "payer", "payee", "points", "base_stake", "amount", "ruling",
    )
    list_filter = ("kind", VariantFilter, "club")
    list_select_related = ("club", "hand", "payer", "payee")
    search_fields = ("category", "ruling", "reason")
    date_hierarchy = "occurred_at"


@admin.register(HandResult)
class HandResultAdmin(ReadOnlyAdmin[HandResult]):
    list_display = (
        "occurred_at", "club", "match_column", "hand_column", variant_column, "user", "points",
        "won",
    )
    list_filter = (VariantFilter, "club")
    list_select_related = ("club", "hand", "user")


@admin.register(MatchResult)
class MatchResultAdmin(ReadOnlyAdmin[MatchResult]):
    list_display = (
        "occurred_at", "club", "match_column", variant_column, "user", "points", "hands_played",
        "big_winner",
    )
    list_filter = (VariantFilter, "club")
    list_select_related = ("club", "user")


@admin.register(Checkout)
class CheckoutAdmin(ReadOnlyAdmin[Checkout]):
    list_display = ("through", "club", "period_start", "period_end", "created_by", "count")
    list_filter = ("club",)
    list_select_related = ("club", "created_by")

    @admin.display(description="付款笔数")
    def count(self, obj: Checkout) -> int:
        """How many payments the 结账 settled."""
        return len(obj.payments)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """The payments read as ``王五 → 张三 31``, not as their stored list."""
        return [self.payment_lines if f == "payments" else f
                for f in super().get_fields(request, obj)]

    @admin.display(description="付款清单")
    def payment_lines(self, obj: Checkout) -> str:
        """Who paid whom how much, one payment a line."""
        names = {u.pk: str(u) for u in User.objects.filter(
            pk__in=[p[k] for p in obj.payments for k in ("payer", "payee")])}
        return format_html_join(
            "", "{} → {} {}<br>",
            ((names.get(p["payer"], "?"), names.get(p["payee"], "?"), p["amount"])
             for p in obj.payments),
        )


@admin.register(AdjustmentReceipt)
class AdjustmentReceiptAdmin(ReadOnlyAdmin[AdjustmentReceipt]):
    list_display = ("created_at", "club", "entry")
    list_select_related = ("club", "entry__payer", "entry__payee")


@admin.register(LedgerIdentity)
class LedgerIdentityAdmin(ReadOnlyAdmin[LedgerIdentity]):
    list_display = ("seq", "club", "user", "username", "date_joined")
    list_filter = ("club",)
