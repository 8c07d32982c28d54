"""Admin for players: search, deactivate, reset (password form and login lockout), clubs;
API tokens (listed and revoked, never made here: their owner makes them and sees them once)."""

from typing import Any

from axes.utils import reset as axes_reset
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from apps.clubs.models import Membership

from .models import ApiToken, User


class MembershipInline(admin.TabularInline[Membership, User]):
    """The clubs a player belongs to, with their role."""

    model = Membership
    fk_name = "user"
    extra = 0
    fields = ("club", "role", "joined_at")
    readonly_fields = ("joined_at",)
    autocomplete_fields = ("club",)
    verbose_name = "所在亲友圈"
    verbose_name_plural = "所在亲友圈"


@admin.register(User)
class PlayerAdmin(UserAdmin[User]):
    """The stock user admin (with its password reset form) plus display name and clubs."""

    list_display = (
        "username", "display_name", "is_active", "is_staff", "date_joined", "last_seen",
    )
    list_filter = ("is_active", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    # Django's UserAdmin always sets fieldsets; the stub keeps ModelAdmin's "| None".
    fieldsets = (*UserAdmin.fieldsets, ("昵称", {"fields": ("display_name",)}))  # type: ignore[misc]
    add_fieldsets = (*UserAdmin.add_fieldsets, ("昵称", {"fields": ("display_name",)}))
    inlines = (MembershipInline,)
    actions = ("deactivate", "activate", "unlock_login")
    readonly_fields = ("matches",)

    def get_fieldsets(self, request: HttpRequest, obj: User | None = None) -> Any:
        """A saved user's page also shows the link to their matches."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return (*fieldsets, ("对局", {"fields": ("matches",)}))

    @admin.display(description="对局")
    def matches(self, obj: User) -> str:
        """A link to the matches this player sat in (the match list, searched by name)."""
        url = reverse("admin:matches_match_changelist")
        return format_html('<a href="{}?q={}">查看 {} 的对局</a>', url, str(obj), str(obj))

    @admin.action(description="停用所选用户")
    def deactivate(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """Block the players from logging in (their records stay)."""
        count = queryset.update(is_active=False)
        self.message_user(request, f"已停用 {count} 个用户", messages.SUCCESS)

    @admin.action(description="启用所选用户")
    def activate(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """Let deactivated players log in again."""
        count = queryset.update(is_active=True)
        self.message_user(request, f"已启用 {count} 个用户", messages.SUCCESS)

    @admin.action(description="解除登录锁定")
    def unlock_login(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """Clear failed-login lockouts (django-axes) of the selected players."""
        for user in queryset:
            axes_reset(username=user.username)
        self.message_user(request, "已解除登录锁定", messages.SUCCESS)


# knox registers its own token model, which KNOX_TOKEN_MODEL swaps out for ApiToken.
for _model in list(admin.site._registry):
    if _model._meta.app_label == "knox":
        admin.site.unregister(_model)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("name", "token_key", "user", "play", "made_by", "created", "last_used")
    search_fields = ("name", "token_key", "user__username")
    fields = ("name", "token_key", "user", "play", "made_by", "created", "last_used")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
