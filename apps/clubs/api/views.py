"""The clubs REST API: thin views over the selectors and services."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import ComputerLevel, User
from apps.core.auth import AuthenticatedRequest

from .. import selectors
from ..errors import ClubNotFound
from ..models import Club, JoinRequest, Membership, Room
from ..services import clubs as club_services
from ..services import computers as computer_services
from ..services import members as member_services
from ..services import rooms as room_services
from ..services import templates as template_services
from . import serializers as s

LOCATION = OpenApiParameter(
    "Location", str, OpenApiParameter.HEADER, response=[201], required=True,
    description="新建对象的地址",
)


def created(request: Request, data: Any, url_name: str, **kwargs: Any) -> Response:
    """201 with the new object and its address in ``Location``."""
    location = request.build_absolute_uri(reverse(url_name, kwargs=kwargs))
    return Response(data, status=status.HTTP_201_CREATED, headers={"Location": location})


class ServiceAPIView(APIView):
    """An API view of the clubs app. Service errors become 400/403/404 answers with their
    Chinese messages in :mod:`apps.core.api_errors` (the API's exception handler)."""

    @staticmethod
    def valid(serializer_class: type[serializers.Serializer[Any]], data: Any, **kw: Any) -> Any:
        """Validated input data, or a 400 with the serializer's field messages."""
        serializer = serializer_class(data=data, **kw)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def club(self, club_id: int) -> Club:
        """The club, if the requesting user is a member (404 otherwise)."""
        return selectors.club_get_for_member(club_id=club_id, user=self.request.user)


def _club_output(club: Club, user: User) -> dict[str, Any]:
    club.member_count = selectors.club_member_count(club)  # type: ignore[attr-defined]
    role = selectors.membership_role(club, user)
    club.my_role = role.value if role else None  # type: ignore[attr-defined]
    data = dict(s.ClubOutput(club).data)
    if role not in (Membership.Role.OWNER, Membership.Role.ADMIN):
        data["invite_code"] = None  # an invite admits at once: only managers hand it out
    return data


def _member_user(club: Club, user_id: int) -> User:
    membership = Membership.objects.filter(club=club, user_id=user_id).select_related("user")
    found = membership.first()
    if found is None:
        raise ClubNotFound("该用户不是本圈成员")
    return found.user


class ClubListView(ServiceAPIView):
    throttle_scope = "clubs"  # creating clubs: 20 an hour per user (config/settings.py)

    @extend_schema(responses=s.ClubOutput(many=True), summary="我的亲友圈")
    def get(self, request: AuthenticatedRequest) -> Response:
        clubs = selectors.club_list_for_user(user=request.user)
        return Response([_club_output(club, request.user) for club in clubs])

    @extend_schema(request=s.ClubCreateInput, responses={201: s.ClubOutput},
                   parameters=[LOCATION], summary="创建亲友圈")
    def post(self, request: AuthenticatedRequest) -> Response:
        data = self.valid(s.ClubCreateInput, request.data)
        club = club_services.club_create(owner=request.user, **data)
        return created(request, _club_output(club, request.user), "api-club", club_id=club.pk)


class ClubSearchView(ServiceAPIView):
    @extend_schema(
        parameters=[s.ClubSearchInput],
        responses={200: s.ClubPublicOutput, 404: OpenApiResponse(description="没有找到该亲友圈")},
        summary="按圈号或邀请码查找（二选一）",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        data = self.valid(s.ClubSearchInput, request.query_params)
        club = selectors.club_find(
            club_id=data.get("club_id"), invite_code=data.get("invite_code", "")
        )
        if club is None:
            raise ClubNotFound("没有找到该亲友圈")
        return Response(
            {
                "id": club.pk,
                "name": club.name,
                "member_count": selectors.club_member_count(club),
                "is_open": club.is_open,
            }
        )


class ClubDetailView(ServiceAPIView):
    @extend_schema(responses=s.ClubOutput, summary="亲友圈详情")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        return Response(_club_output(self.club(club_id), request.user))

    @extend_schema(request=s.ClubUpdateInput, responses=s.ClubOutput, summary="修改亲友圈设置")
    def patch(self, request: AuthenticatedRequest, club_id: int) -> Response:
        club = self.club(club_id)
        data = self.valid(s.ClubUpdateInput, request.data, partial=True)
        club = club_services.club_update(club=club, actor=request.user, **data)
        return Response(_club_output(club, request.user))


class InviteCodeView(ServiceAPIView):
    @extend_schema(request=None, responses=s.InviteCodeOutput, summary="重置邀请码")
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        code = club_services.club_invite_code_regenerate(
            club=self.club(club_id), actor=request.user
        )
        return Response({"invite_code": code})


class MemberListView(ServiceAPIView):
    @extend_schema(responses=s.MembershipOutput(many=True), summary="成员列表")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        members = selectors.membership_list(club=self.club(club_id))
        return Response(s.MembershipOutput(members, many=True).data)


class MemberDetailView(ServiceAPIView):
    @extend_schema(request=s.RoleInput, responses=s.MembershipOutput, summary="任免管理员")
    def patch(self, request: AuthenticatedRequest, club_id: int, user_id: int) -> Response:
        club = self.club(club_id)
        data = self.valid(s.RoleInput, request.data)
        membership = member_services.membership_role_set(
            club=club, actor=request.user, user=_member_user(club, user_id), role=data["role"]
        )
        return Response(s.MembershipOutput(membership).data)

    @extend_schema(responses={204: None}, summary="移除成员")
    def delete(self, request: AuthenticatedRequest, club_id: int, user_id: int) -> Response:
        club = self.club(club_id)
        member_services.membership_remove(
            club=club, actor=request.user, user=_member_user(club, user_id)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeaveView(ServiceAPIView):
    @extend_schema(request=None, responses={204: None}, summary="退出亲友圈")
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        member_services.membership_leave(club=self.club(club_id), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TransferView(ServiceAPIView):
    @extend_schema(request=s.UserIdInput, responses=s.MembershipOutput, summary="转让圈主")
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        club = self.club(club_id)
        data = self.valid(s.UserIdInput, request.data)
        membership = member_services.club_ownership_transfer(
            club=club, actor=request.user, new_owner=_member_user(club, data["user_id"])
        )
        return Response(s.MembershipOutput(membership).data)


class ClubJoinRequestListView(ServiceAPIView):
    @extend_schema(responses=s.JoinRequestOutput(many=True), summary="待审核的入圈申请")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        pending = selectors.join_request_list_pending(club=self.club(club_id), viewer=request.user)
        return Response(s.JoinRequestOutput(pending, many=True).data)


class JoinRequestCreateView(ServiceAPIView):
    @extend_schema(
        request=s.JoinRequestInput,
        responses={201: s.JoinRequestOutput, 404: OpenApiResponse(description="没有找到该亲友圈")},
        parameters=[LOCATION],
        summary="申请入圈（圈号或邀请码二选一），等圈主或管理员审核",
        description="用邀请码直接入圈（不用审核）是 POST /api/clubs/join/。",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        data = self.valid(s.JoinRequestInput, request.data)
        club = selectors.club_find(
            club_id=data.get("club_id"), invite_code=data.get("invite_code", "")
        )
        if club is None:
            raise ClubNotFound("没有找到该亲友圈")
        join_request = member_services.join_request_create(
            club=club, user=request.user, message=data["message"]
        )
        return created(request, s.JoinRequestOutput(join_request).data, "api-join-request",
                       request_id=join_request.pk)


class JoinByInviteView(ServiceAPIView):
    @extend_schema(
        request=s.InviteJoinInput, responses={201: s.MembershipOutput},
        summary="用邀请码直接入圈（不用审核；机器人账号须该亲友圈允许机器人）",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        data = self.valid(s.InviteJoinInput, request.data)
        membership = member_services.membership_join_by_invite(
            user=request.user, invite_code=data["invite_code"]
        )
        return created(request, s.MembershipOutput(membership).data, "api-club",
                       club_id=membership.club_id)


def _join_request(request_id: int) -> JoinRequest:
    join_request = JoinRequest.objects.select_related("club", "user").filter(pk=request_id).first()
    if join_request is None:
        raise ClubNotFound("申请不存在")
    return join_request


class JoinRequestDetailView(ServiceAPIView):
    @extend_schema(responses=s.JoinRequestOutput, summary="入圈申请（申请人或圈主、管理员可见）")
    def get(self, request: AuthenticatedRequest, request_id: int) -> Response:
        join_request = selectors.join_request_get_for_viewer(
            request_id=request_id, viewer=request.user
        )
        return Response(s.JoinRequestOutput(join_request).data)


class JoinRequestDecisionView(ServiceAPIView):
    """通过或拒绝一份待审核的入圈申请（圈主或管理员）。"""

    decision = "approve"

    @extend_schema(request=None, responses=s.JoinRequestOutput, summary="审核入圈申请")
    def post(self, request: AuthenticatedRequest, request_id: int) -> Response:
        join_request = _join_request(request_id)
        selectors.club_get_for_member(club_id=join_request.club_id, user=request.user)
        if self.decision == "approve":
            member_services.join_request_approve(join_request=join_request, actor=request.user)
        else:
            member_services.join_request_reject(join_request=join_request, actor=request.user)
        join_request.refresh_from_db()
        return Response(s.JoinRequestOutput(join_request).data)


class JoinRequestCancelView(ServiceAPIView):
    @extend_schema(request=None, responses=s.JoinRequestOutput, summary="撤回入圈申请")
    def post(self, request: AuthenticatedRequest, request_id: int) -> Response:
        join_request = _join_request(request_id)
        if join_request.user_id != request.user.pk:
            raise ClubNotFound("申请不存在")
        join_request = member_services.join_request_cancel(
            join_request=join_request, user=request.user
        )
        return Response(s.JoinRequestOutput(join_request).data)


class TemplateListView(ServiceAPIView):
    @extend_schema(responses=s.TemplateOutput(many=True), summary="规则模板列表")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        templates = selectors.template_list(club=self.club(club_id))
        return Response(s.TemplateOutput(templates, many=True).data)

    @extend_schema(
        request=s.TemplateCreateInput, responses={201: s.TemplateOutput},
        parameters=[LOCATION], summary="新建规则模板",
    )
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        club = self.club(club_id)
        data = self.valid(s.TemplateCreateInput, request.data)
        template = template_services.rule_template_create(club=club, actor=request.user, **data)
        return created(request, s.TemplateOutput(template).data, "api-template",
                       club_id=club.pk, template_id=template.pk)


class TemplateDetailView(ServiceAPIView):
    @extend_schema(responses=s.TemplateOutput, summary="规则模板详情")
    def get(self, request: AuthenticatedRequest, club_id: int, template_id: int) -> Response:
        template = selectors.template_get(club=self.club(club_id), template_id=template_id)
        return Response(s.TemplateOutput(template).data)

    @extend_schema(
        request=s.TemplateUpdateInput, responses=s.TemplateOutput, summary="修改规则模板"
    )
    def patch(self, request: AuthenticatedRequest, club_id: int, template_id: int) -> Response:
        template = selectors.template_get(club=self.club(club_id), template_id=template_id)
        data = self.valid(s.TemplateUpdateInput, request.data, partial=True)
        template = template_services.rule_template_update(
            template=template, actor=request.user, **data
        )
        return Response(s.TemplateOutput(template).data)

    @extend_schema(responses={204: None}, summary="删除规则模板")
    def delete(self, request: AuthenticatedRequest, club_id: int, template_id: int) -> Response:
        template = selectors.template_get(club=self.club(club_id), template_id=template_id)
        template_services.rule_template_delete(template=template, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RoomListView(ServiceAPIView):
    @extend_schema(responses=s.LobbyOutput(many=True), summary="房间列表")
    def get(self, request: AuthenticatedRequest, club_id: int) -> Response:
        rooms = selectors.room_list_open(club=self.club(club_id))
        return Response([room_out(room) for room in rooms])

    @extend_schema(request=s.RoomCreateInput, responses={201: s.LobbyOutput},
                   parameters=[LOCATION], summary="开房间")
    def post(self, request: AuthenticatedRequest, club_id: int) -> Response:
        club = self.club(club_id)
        data = self.valid(s.RoomCreateInput, request.data)
        template_id = data.pop("template_id", None)
        template = (
            selectors.template_get(club=club, template_id=template_id)
            if template_id is not None
            else None
        )
        # The computer options left out follow the template (else: none, 标准).
        data.setdefault("allow_computers", template.allow_computers if template else False)
        data.setdefault("computer_level",
                        template.computer_level if template else ComputerLevel.STANDARD)
        room = room_services.room_create(club=club, actor=request.user, template=template, **data)
        return created(request, room_out(room), "api-room", code=room.code)


def room_out(room: Room) -> dict[str, Any]:
    """A room as the API shows it: its lobby state, its 听牌提示 setting and its computers'
    level."""
    return {**selectors.lobby_state(room), "hints": room.hints,
            "computer_level": room.computer_level}


class RoomView(ServiceAPIView):
    """Base of the views of one room, found by its code among the user's clubs."""

    def room_state(self, code: str) -> dict[str, Any]:
        """The room's lobby state, re-read after a change."""
        return room_out(self.room(code))

    def room(self, code: str) -> Room:
        """The room, if the requesting user is a member of its club (404 otherwise)."""
        return selectors.room_get_for_member(code=code, user=self.request.user)


class RoomDetailView(RoomView):
    @extend_schema(responses=s.LobbyOutput, summary="房间与座位")
    def get(self, request: AuthenticatedRequest, code: str) -> Response:
        return Response(self.room_state(code))


class RoomSitView(RoomView):
    @extend_schema(request=s.SitInput, responses=s.LobbyOutput, summary="入座",
                   description="在等待中的房间坐下；seat 不填则坐第一个空座。"
                   "同一时间只能在一个房间入座。")
    def post(self, request: AuthenticatedRequest, code: str) -> Response:
        room = self.room(code)
        data = self.valid(s.SitInput, request.data)
        room_services.room_sit(room=room, user=request.user, seat=data.get("seat"))
        return Response(self.room_state(code))


class RoomComputersView(RoomView):
    @extend_schema(request=None, responses=s.LobbyOutput,
                   summary="电脑补位：开房的人入座后，用平台的电脑坐满空座（电脑立即准备）")
    def post(self, request: AuthenticatedRequest, code: str) -> Response:
        computer_services.room_computers_fill(room=self.room(code), actor=request.user)
        return Response(self.room_state(code))


class RoomStandView(RoomView):
    @extend_schema(request=None, responses=s.LobbyOutput, summary="离座",
                   description="对局开始前离开座位（准备状态一并取消）。")
    def post(self, request: AuthenticatedRequest, code: str) -> Response:
        room_services.room_stand(room=self.room(code), user=request.user)
        return Response(self.room_state(code))


class RoomReadyView(RoomView):
    @extend_schema(request=s.ReadyInput, responses=s.LobbyOutput, summary="准备/取消准备",
                   description="每个座位都坐了人（或电脑，电脑总是准备好的）并且都准备后，对局开始："
                   "房间变为 playing，牌桌 WebSocket 自己发来第一局前的 snapshot。")
    def post(self, request: AuthenticatedRequest, code: str) -> Response:
        room = self.room(code)
        data = self.valid(s.ReadyInput, request.data)
        room_services.room_ready_set(room=room, user=request.user, ready=data["ready"])
        return Response(self.room_state(code))


class RoomCloseView(RoomView):
    @extend_schema(request=None, responses=s.LobbyOutput, summary="解散房间",
                   description="圈主或管理员关闭一个不在对局中的房间，座位上的人都离座；已开局的对局用牌桌上的解散投票。")
    def post(self, request: AuthenticatedRequest, code: str) -> Response:
        room_services.room_close(room=self.room(code), actor=request.user)
        return Response(self.room_state(code))


class VariantListView(ServiceAPIView):
    @extend_schema(responses=s.VariantOutput(many=True), summary="玩法与规则设置项")
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(selectors.variant_list())
