"""Admin for players: search, deactivate, reset (password form and login lockout), clubs;
API tokens (listed and revoked, never made here: their owner makes them and sees them once);
groups. Permissions are offered for the models this admin shows, named in Chinese."""

from typing import Any

from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission
from django.db.models import ManyToManyField, Max, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from apps.clubs.models import Membership

from .models import ApiToken, User

PERMISSION_ACTIONS = {"add": "添加", "change": "修改", "delete": "删除", "view": "查看"}


class PermissionChoiceField(forms.ModelMultipleChoiceField[Permission]):
    """Permissions named ``亲友圈 | 房间 | 修改`` (Django stores "Can change room")."""

    def label_from_instance(self, obj: Any) -> str:
        """The app, the model and the action, in Chinese; a custom permission's own name."""
        model = obj.content_type.model_class()
        action = obj.codename.split("_", 1)[0]
        if model is None or obj.codename != f"{action}_{model._meta.model_name}":
            return str(obj.name)
        return (f"{model._meta.app_config.verbose_name} | {model._meta.verbose_name} | "
                f"{PERMISSION_ACTIONS.get(action, obj.name)}")


def shown_permissions() -> QuerySet[Permission]:
    """The permissions of the models registered in this admin (a permission of a model it
    does not show grants nothing here)."""
    shown = Q(pk__in=[])
    for model in admin.site._registry:
        shown |= Q(content_type__app_label=model._meta.app_label,
                   content_type__model=model._meta.model_name)
    return Permission.objects.filter(shown).select_related("content_type")


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
    readonly_fields = ("matches", "login_lock")

    def get_fieldsets(self, request: HttpRequest, obj: User | None = None) -> Any:
        """A saved user's page also shows the link to their matches and their login lock."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return (*fieldsets, ("对局与登录", {"fields": ("matches", "login_lock")}))

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest, **kwargs: Any,
    ) -> forms.ModelMultipleChoiceField[Any] | None:
        """The user's own permissions, named in Chinese (in Django's two-box picker)."""
        if db_field.name == "user_permissions":
            kwargs.update(form_class=PermissionChoiceField, queryset=shown_permissions())
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="登录锁定")
    def login_lock(self, obj: User) -> str:
        """Whether wrong passwords locked this username (django-axes, by username and
        address) within the cool-off time."""
        since = timezone.now() - settings.AXES_COOLOFF_TIME
        failures = AccessAttempt.objects.filter(
            username=obj.username, attempt_time__gte=since
        ).aggregate(most=Max("failures_since_start"))["most"] or 0
        if failures >= settings.AXES_FAILURE_LIMIT:
            return f"已锁定：连续输错密码 {failures} 次（可用列表上的“解除登录锁定”）"
        if failures:
            return f"未锁定（最近输错密码 {failures} 次）"
        return "未锁定"

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


admin.site.unregister(Group)


@admin.register(Group)
class PlayerGroupAdmin(GroupAdmin):
    """Django's group admin with the permissions named in Chinese."""

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest | None = None,
        **kwargs: Any,
    ) -> forms.ModelMultipleChoiceField[Any] | None:
        """A group's permissions, named in Chinese (in Django's two-box picker)."""
        if db_field.name == "permissions":
            kwargs.update(form_class=PermissionChoiceField, queryset=shown_permissions())
        return super().formfield_for_manytomany(db_field, request, **kwargs)


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
