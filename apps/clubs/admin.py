"""Admin for clubs, memberships, join requests, rule templates and rooms.

Edits here bypass the services' rules; the database constraints (one owner per club,
one seat per user and room) still hold.
"""

from django.contrib import admin

from .models import Club, JoinRequest, Membership, Room, RoomSeat, RuleTemplate


class MembershipInline(admin.TabularInline[Membership, Club]):
    model = Membership
    extra = 0
    fields = ("user", "role", "joined_at")
    readonly_fields = ("joined_at",)
    autocomplete_fields = ("user",)


class RuleTemplateInline(admin.TabularInline[RuleTemplate, Club]):
    model = RuleTemplate
    extra = 0
    fields = ("name", "variant", "updated_at")
    readonly_fields = ("updated_at",)
    show_change_link = True


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
    list_display = ("name", "club", "variant", "updated_at")
    list_filter = ("variant",)
    search_fields = ("name", "club__name")
    autocomplete_fields = ("club",)


class RoomSeatInline(admin.TabularInline[RoomSeat, Room]):
    model = RoomSeat
    extra = 0
    fields = ("seat", "user", "ready")
    autocomplete_fields = ("user",)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin[Room]):
    list_display = ("code", "club", "variant", "status", "created_at")
    list_filter = ("status", "variant")
    search_fields = ("code", "name", "club__name")
    autocomplete_fields = ("club", "template", "created_by")
    inlines = (RoomSeatInline,)
