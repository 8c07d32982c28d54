from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    """The stock user admin plus the display name."""

    list_display = ("username", "display_name", "is_staff", "is_active")
    search_fields = ("username", "display_name")
    fieldsets = (*UserAdmin.fieldsets, ("昵称", {"fields": ("display_name",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("昵称", {"fields": ("display_name",)}))
