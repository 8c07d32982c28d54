"""URLs of the clubs API, mounted under ``/api/``."""

from django.urls import path

from . import views as v

urlpatterns = [
    path("variants/", v.VariantListView.as_view(), name="api-variants"),
    path("clubs/", v.ClubListView.as_view(), name="api-clubs"),
    path("clubs/search/", v.ClubSearchView.as_view(), name="api-club-search"),
    path("clubs/<dbid:club_id>/", v.ClubDetailView.as_view(), name="api-club"),
    path("clubs/<dbid:club_id>/invite-code/", v.InviteCodeView.as_view(), name="api-invite-code"),
    path("clubs/<dbid:club_id>/members/", v.MemberListView.as_view(), name="api-members"),
    path(
        "clubs/<dbid:club_id>/members/<dbid:user_id>/",
        v.MemberDetailView.as_view(),
        name="api-member",
    ),
    path("clubs/<dbid:club_id>/leave/", v.LeaveView.as_view(), name="api-leave"),
    path("clubs/<dbid:club_id>/transfer/", v.TransferView.as_view(), name="api-transfer"),
    path(
        "clubs/<dbid:club_id>/join-requests/",
        v.ClubJoinRequestListView.as_view(),
        name="api-club-join-requests",
    ),
    path("clubs/join/", v.JoinByInviteView.as_view(), name="api-club-join"),
    path("join-requests/", v.JoinRequestCreateView.as_view(), name="api-join-requests"),
    path(
        "join-requests/<dbid:request_id>/",
        v.JoinRequestDetailView.as_view(),
        name="api-join-request",
    ),
    path(
        "join-requests/<dbid:request_id>/approve/",
        v.JoinRequestDecisionView.as_view(decision="approve"),
        name="api-join-request-approve",
    ),
    path(
        "join-requests/<dbid:request_id>/reject/",
        v.JoinRequestDecisionView.as_view(decision="reject"),
        name="api-join-request-reject",
    ),
    path(
        "join-requests/<dbid:request_id>/cancel/",
        v.JoinRequestCancelView.as_view(),
        name="api-join-request-cancel",
    ),
    path("clubs/<dbid:club_id>/templates/", v.TemplateListView.as_view(), name="api-templates"),
    path(
        "clubs/<dbid:club_id>/templates/<dbid:template_id>/",
        v.TemplateDetailView.as_view(),
        name="api-template",
    ),
    path("clubs/<dbid:club_id>/rooms/", v.RoomListView.as_view(), name="api-rooms"),
    path("rooms/<str:code>/", v.RoomDetailView.as_view(), name="api-room"),
    path("rooms/<str:code>/sit/", v.RoomSitView.as_view(), name="api-room-sit"),
    path("rooms/<str:code>/computers/", v.RoomComputersView.as_view(),
         name="api-room-computers"),
    path("rooms/<str:code>/stand/", v.RoomStandView.as_view(), name="api-room-stand"),
    path("rooms/<str:code>/ready/", v.RoomReadyView.as_view(), name="api-room-ready"),
    path("rooms/<str:code>/close/", v.RoomCloseView.as_view(), name="api-room-close"),
]
