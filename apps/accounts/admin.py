"""Admin for players: search, deactivate, reset (password form and login lockout), clubs."""

from axes.utils import reset as axes_reset
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.clubs.models import Membership

from .models import User


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
