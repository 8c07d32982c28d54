"""URLs of the club pages, mounted at the site root."""

from django.urls import path

from . import views, views_rooms

app_name = "clubs"

urlpatterns = [
    path("go/", views.code_go, name="go"),
    path("join/<str:invite_code>/", views.invite, name="invite"),
    path("rules/<str:variant_id>/", views_rooms.rules_page, name="rules"),
    path("clubs/", views.club_list, name="list"),
    path("clubs/new/", views.club_create, name="create"),
    path("clubs/join/", views.club_join, name="join"),
    path("clubs/<dbid:club_id>/", views.club_detail, name="detail"),
    path("clubs/<dbid:club_id>/settings/", views.club_settings, name="settings"),
    path("clubs/<dbid:club_id>/invite-code/", views.invite_code_regenerate, name="invite-code"),
    path("clubs/<dbid:club_id>/leave/", views.club_leave, name="leave"),
    path("clubs/<dbid:club_id>/tables/", views.club_tables, name="tables"),
    path("clubs/<dbid:club_id>/apply/", views.join_apply, name="apply"),
    path("clubs/<dbid:club_id>/apply/status/", views.join_status, name="apply-status"),
    path(
        "clubs/<dbid:club_id>/practice/<str:variant_id>/",
        views_rooms.room_practice_open,
        name="practice-open",
    ),
    path(
        "clubs/<dbid:club_id>/quick/<dbid:template_id>/",
        views_rooms.room_quick_open,
        name="quick-open",
    ),
    path(
        "clubs/<dbid:club_id>/requests/<dbid:request_id>/approve/",
        views.join_request_decide,
        {"decision": "approve"},
        name="approve",
    ),
    path(
        "clubs/<dbid:club_id>/requests/<dbid:request_id>/reject/",
        views.join_request_decide,
        {"decision": "reject"},
        name="reject",
    ),
    path(
        "clubs/<dbid:club_id>/members/<dbid:user_id>/role/", views.member_role, name="member-role"
    ),
    path(
        "clubs/<dbid:club_id>/members/<dbid:user_id>/remove/",
        views.member_remove,
        name="member-remove",
    ),
    path(
        "clubs/<dbid:club_id>/members/<dbid:user_id>/reset-link/",
        views.member_reset_link,
        name="member-reset-link",
    ),
    path(
        "clubs/<dbid:club_id>/members/<dbid:user_id>/transfer/",
        views.ownership_transfer,
        name="transfer",
    ),
    path("clubs/<dbid:club_id>/templates/new/", views_rooms.template_edit, name="template-new"),
    path(
        "clubs/<dbid:club_id>/templates/<dbid:template_id>/",
        views_rooms.template_edit,
        name="template-edit",
    ),
    path(
        "clubs/<dbid:club_id>/templates/<dbid:template_id>/delete/",
        views_rooms.template_delete,
        name="template-delete",
    ),
    path("clubs/<dbid:club_id>/rooms/new/", views_rooms.room_create, name="room-new"),
    path("rooms/<str:code>/", views_rooms.room_lobby, name="lobby"),
    path("rooms/<str:code>/sit/", views_rooms.room_sit, name="sit"),
    path("rooms/<str:code>/stand/", views_rooms.room_stand, name="stand"),
    path("rooms/<str:code>/computers/", views_rooms.room_computers, name="computers"),
    path("rooms/<str:code>/ready/", views_rooms.room_ready, name="ready"),
    path("rooms/<str:code>/close/", views_rooms.room_close, name="close"),
    path("rooms/<str:code>/rematch/", views_rooms.room_rematch, name="rematch"),
]
