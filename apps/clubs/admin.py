"""Admin for clubs, memberships, join requests, rule templates and rooms.

Edits here bypass the services' rules; the database constraints (one owner per club,
one seat per user and room) still hold. Games show by their Chinese names.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django import forms
from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from majiang.variants import player_variants

from .models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate
from .selectors import rules_display, variant_name

_WithRules = TypeVar("_WithRules", Room, RuleTemplate)


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


class RulesShownAdmin(admin.ModelAdmin[_WithRules]):
    """A room or template: its game and rules are chosen on the club's pages, which check
    them (and number a room); here they are shown, and nothing is added."""

    exclude = ("variant", "settings")
    readonly_fields = ("game", "rules")

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Rooms and templates are made on the club's pages."""
        return False

    @admin.display(description="玩法", ordering="variant")
    def game(self, obj: _WithRules) -> str:
        """The game by its Chinese name."""
        return variant_name(obj.variant)

    @admin.display(description="规则设置")
    def rules(self, obj: _WithRules) -> str:
        """The rules as the room's page shows them: ``底分：1；局数：8；…``."""
        return "；".join(f"{rule['label']}：{rule['value']}"
                        for rule in rules_display(obj.variant, obj.settings))


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

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Templates are made on the club's pages."""
        return False

    @admin.display(description="玩法")
    def game(self, obj: RuleTemplate) -> str:
        """The template's game by its Chinese name."""
        return variant_name(obj.variant)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin[Club]):

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        """The club's games as tick boxes of their Chinese names (stored as their ids)."""
        if db_field.name == "variants":
            return forms.MultipleChoiceField(
                label="玩法", widget=forms.CheckboxSelectMultiple,
                choices=[(v.id, v.name) for v in player_variants()],
            )
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description="圈号", ordering="id")
    def number(self, obj: Club) -> int:
        """The number players find the club by (its id)."""
        return obj.pk
    list_display = ("number", "name", "invite_code", "member_cap", "is_open", "created_at")
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
class RuleTemplateAdmin(RulesShownAdmin[RuleTemplate]):
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
class RoomAdmin(RulesShownAdmin[Room]):
    list_display = ("code", "club", variant_column, "status", "created_at")
    list_filter = ("status", VariantFilter)
    search_fields = ("code", "name", "club__name")
    autocomplete_fields = ("club", "template", "created_by")
    inlines = (RoomSeatInline,)
