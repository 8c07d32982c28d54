"""Read-only admin for the ledger: rows can be looked at, never added, changed or deleted
here (corrections are made by the club owner as 调账 entries)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from .models import HandResult, LedgerEntry, MatchResult

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


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin[LedgerEntry]):
    list_display = (
        "occurred_at", "kind", "club", "match", "hand", "line_no", "category", "payer",
        "payee", "points", "base_stake", "amount", "ruling",
    )
    list_filter = ("kind", "variant", "club")
    search_fields = ("category", "ruling", "reason")
    date_hierarchy = "occurred_at"


@admin.register(HandResult)
class HandResultAdmin(ReadOnlyAdmin[HandResult]):
    list_display = ("occurred_at", "club", "match", "hand", "seat", "user", "points", "won")
    list_filter = ("variant", "club")


@admin.register(MatchResult)
class MatchResultAdmin(ReadOnlyAdmin[MatchResult]):
    list_display = ("occurred_at", "club", "match", "seat", "user", "points", "big_winner")
    list_filter = ("variant", "club")
