"""Admin for clubs, memberships, join requests, rule templates and rooms.

Edits here bypass the services' rules; the database constraints (one owner per club,
one seat per user and room) still hold. Games show by their Chinese names.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from majiang.variants import player_variants

from .models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate
from .selectors import variant_name


class VariantFilter(admin.SimpleListFilter):
    """Filter by game (玩法), listed by Chinese name."""

    title = "玩法"
    parameter_name = "variant"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """The games players play (not the engine-test 基础规则)."""
        return [(v.id, v.name) for v in player_variants()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        """Rows of the chosen game."""
        value = self.value()
        return queryset.filter(variant=value) if value else queryset


@admin.display(description="玩法", ordering="variant")
def variant_column(obj: Model) -> str:
    """A row's game by its Chinese name."""
    return variant_name(str(getattr(obj, "variant", "")))


class MembershipInline(admin.TabularInline[Membership, Club]):
    model = Membership
    extra = 0
    fields = ("user", "role", "joined_at")
    readonly_fields = ("joined_at",)
    autocomplete_fields = ("user",)


class RuleTemplateInline(admin.TabularInline[RuleTemplate, Club]):
    model = RuleTemplate
    extra = 0
    fields = ("name", "game", "updated_at")
    readonly_fields = ("game", "updated_at")
    show_change_link = True

    @admin.display(description="玩法")
    def game(self, obj: RuleTemplate) -> str:
        """The template's game by its Chinese name."""
        return variant_name(obj.variant)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin[Club]):
    list_display = ("id", "name", "invite_code", "member_cap", "is_open", "created_at")
    list_filter = ("is_open", "members_can_open_rooms")
    search_fields = ("=id", "name", "invite_code")
    inlines = (MembershipInline, RuleTemplateInline)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin[Membership]):
    list_display = ("club", "user", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("club__name", "user__username", "user__display_name")
    autocomplete_fields = ("club", "user")


@admin.register(JoinRequest)
class JoinRequestAdmin(admin.ModelAdmin[JoinRequest]):
    list_display = ("club", "user", "status", "created_at", "decided_by")
    list_filter = ("status",)
    search_fields = ("club__name", "user__username", "user__display_name")
    autocomplete_fields = ("club", "user", "decided_by")


@admin.register(RuleTemplate)
class RuleTemplateAdmin(admin.ModelAdmin[RuleTemplate]):
    list_display = ("name", "club", variant_column, "updated_at")
    list_filter = (VariantFilter,)
    search_fields = ("name", "club__name")
    autocomplete_fields = ("club",)


class RoomSeatInline(admin.TabularInline[RoomSeat, Room]):
    model = RoomSeat
    extra = 0
    fields = ("seat", "user", "ready")
    autocomplete_fields = ("user",)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin[Room]):
    list_display = ("code", "club", variant_column, "status", "created_at")
    list_filter = ("status", VariantFilter)
    search_fields = ("code", "name", "club__name")
    autocomplete_fields = ("club", "template", "created_by")
    inlines = (RoomSeatInline,)
