"""Joining and leaving clubs, and the roles of their members."""

from __future__ import annotations

from django.contrib.auth.tokens import default_token_generator
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from apps.accounts.models import User
from apps.core.groups import access_changed_on_commit, user_group

from ..broadcast import club_broadcast_on_commit
from ..errors import ActionForbidden, InvalidInputError
from ..models import Club, JoinRequest, Membership, Room
from ..selectors import club_member_count, membership_role
from .common import (
    MANAGERS,
    NON_FIELD,
    Role,
    require_bots_allowed,
    require_member,
    require_role,
)
from .rooms import seats_release_for_leaver

MESSAGE_MAX = 100


def join_request_create(
    *, club: Club, user: User, message: str = "", room: Room | None = None
) -> JoinRequest:
    """Ask to join a club (found by its 圈号 or a shared link); the owner or an admin
    decides. ``room`` is the room whose link the user came from: they land there once
    approved."""
    message = message.strip()
    if room is not None and room.club_id != club.pk:
        raise InvalidInputError({"room": "房间不属于该亲友圈"})
    if len(message) > MESSAGE_MAX:
        raise InvalidInputError({"message": f"留言不能超过 {MESSAGE_MAX} 个字"})
    with transaction.atomic():
        if membership_role(club, user) is not None:
            raise InvalidInputError({NON_FIELD: "你已经是该亲友圈成员"})
        require_bots_allowed(club, user)
        if JoinRequest.objects.filter(
            club=club, user=user, status=JoinRequest.Status.PENDING
        ).exists():
            raise InvalidInputError({NON_FIELD: "你已提交过申请，请等待审核"})
        try:
            with transaction.atomic():
                created = JoinRequest.objects.create(
                    club=club, user=user, message=message, room=room
                )
        except IntegrityError as exc:  # a concurrent duplicate request
            raise InvalidInputError({NON_FIELD: "你已提交过申请，请等待审核"}) from exc
        club_broadcast_on_commit(club.pk)  # the managers' badge of waiting requests
    return created


def membership_join_by_invite(*, user: User, invite_code: str) -> Membership:
    """Join the club whose invite code this is, at once (the code is the owner's consent).
    A member already gets their membership back; a pending request of theirs is closed."""
    code = invite_code.strip().upper()
    with transaction.atomic():
        club = Club.objects.select_for_update().filter(invite_code=code).first()
        if club is None or not code:
            raise InvalidInputError({"invite_code": "邀请码无效或已重置，请向圈主要新的邀请"})
        existing = Membership.objects.filter(club=club, user=user).first()
        if existing is not None:
            return existing
        require_bots_allowed(club, user)
        if club_member_count(club) >= club.member_cap:
            raise InvalidInputError({NON_FIELD: f"亲友圈已满 ({club.member_cap} 人)"})
        membership = Membership.objects.create(club=club, user=user)
        if JoinRequest.objects.filter(
            club=club, user=user, status=JoinRequest.Status.PENDING
        ).update(status=JoinRequest.Status.APPROVED, decided_at=timezone.now()):
            club_broadcast_on_commit(club.pk)
    return membership


def _decide(join_request: JoinRequest, actor: User, status: JoinRequest.Status) -> JoinRequest:
    """Lock a pending request, check the actor may decide it and record the decision."""
    request = JoinRequest.objects.select_for_update().get(pk=join_request.pk)
    require_role(request.club, actor, MANAGERS, "只有圈主和管理员可以审核入圈申请")
    if request.status != JoinRequest.Status.PENDING:
        raise InvalidInputError({NON_FIELD: "该申请已处理"})
    request.status = status
    request.decided_by = actor
    request.decided_at = timezone.now()
    request.save(update_fields=["status", "decided_by", "decided_at"])
    club_broadcast_on_commit(request.club_id)
    return request


def join_request_approve(*, join_request: JoinRequest, actor: User) -> Membership:
    """Approve a pending request (owner or admin): the user becomes a member."""
    with transaction.atomic():
        club = Club.objects.select_for_update().get(pk=join_request.club_id)
        request = _decide(join_request, actor, JoinRequest.Status.APPROVED)
        require_bots_allowed(club, request.user)
        if club_member_count(club) >= club.member_cap:
            raise InvalidInputError({NON_FIELD: f"亲友圈已满 ({club.member_cap} 人)"})
        membership, _ = Membership.objects.get_or_create(club=club, user=request.user)
    return membership


def join_request_reject(*, join_request: JoinRequest, actor: User) -> JoinRequest:
    """Reject a pending request (owner or admin)."""
    with transaction.atomic():
        return _decide(join_request, actor, JoinRequest.Status.REJECTED)


def join_request_cancel(*, join_request: JoinRequest, user: User) -> JoinRequest:
    """Withdraw one's own pending request."""
    with transaction.atomic():
        request = JoinRequest.objects.select_for_update().get(pk=join_request.pk)
        if request.user_id != user.pk:
            raise ActionForbidden("只能撤回自己的申请")
        if request.status != JoinRequest.Status.PENDING:
            raise InvalidInputError({NON_FIELD: "该申请已处理"})
        request.status = JoinRequest.Status.CANCELLED
        request.save(update_fields=["status"])
        club_broadcast_on_commit(request.club_id)
    return request


def _target_membership(club: Club, user: User) -> Membership:
    membership = Membership.objects.select_for_update().filter(club=club, user=user).first()
    if membership is None:
        raise InvalidInputError({"user": "该用户不是本圈成员"})
    return membership


def membership_role_set(*, club: Club, actor: User, user: User, role: str) -> Membership:
    """Appoint or dismiss an admin (owner only). ``role`` is ``admin`` or ``member``."""
    if role not in (Role.ADMIN, Role.MEMBER):
        raise InvalidInputError({"role": "角色只能是管理员或成员"})
    with transaction.atomic():
        require_role(club, actor, (Role.OWNER,), "只有圈主可以任免管理员")
        membership = _target_membership(club, user)
        if membership.role == Role.OWNER:
            raise InvalidInputError({"user": "圈主的角色不能更改，请使用转让圈主"})
        membership.role = role
        membership.save(update_fields=["role"])
        access_changed_on_commit(user_group(user.pk))
    return membership


def membership_remove(*, club: Club, actor: User, user: User) -> None:
    """Remove a member. The owner removes admins and members; an admin removes members."""
    with transaction.atomic():
        actor_role = require_role(club, actor, MANAGERS, "只有圈主和管理员可以移除成员")
        membership = _target_membership(club, user)
        if membership.role == Role.OWNER:
            raise ActionForbidden("圈主不能被移除")
        if membership.role == Role.ADMIN and actor_role != Role.OWNER:
            raise ActionForbidden("只有圈主可以移除管理员")
        if user.pk == actor.pk:
            raise InvalidInputError({"user": "不能移除自己，请使用退出亲友圈"})
        seats_release_for_leaver(club=club, user=user)
        membership.delete()
        access_changed_on_commit(user_group(user.pk))


def membership_leave(*, club: Club, user: User) -> None:
    """Leave a club. The owner must transfer ownership first."""
    with transaction.atomic():
        role = require_member(club, user)
        if role == Role.OWNER:
            raise InvalidInputError({NON_FIELD: "圈主不能退出，请先转让圈主"})
        seats_release_for_leaver(club=club, user=user)
        Membership.objects.filter(club=club, user=user).delete()
        access_changed_on_commit(user_group(user.pk))


def club_ownership_transfer(*, club: Club, actor: User, new_owner: User) -> Membership:
    """Hand the club to another member (owner only); the old owner becomes an admin."""
    with transaction.atomic():
        require_role(club, actor, (Role.OWNER,), "只有圈主可以转让圈主")
        target = _target_membership(club, new_owner)
        if target.role == Role.OWNER:
            raise InvalidInputError({"user": "该用户已经是圈主"})
        # Demote first: the one-owner constraint is checked row by row.
        Membership.objects.filter(club=club, user=actor).update(role=Role.ADMIN)
        target.role = Role.OWNER
        target.save(update_fields=["role"])
    return target


def member_password_reset_link(*, club: Club, actor: User, user: User) -> str:
    """A one-time link (path) that lets a member set a new password, for a member who has
    no email. The owner makes one for anyone else; an admin only for plain members. The
    link stops working once used, or when the member's password changes."""
    with transaction.atomic():
        actor_role = require_role(club, actor, MANAGERS, "只有圈主和管理员可以生成重置链接")
        membership = _target_membership(club, user)
        if user.pk == actor.pk:
            raise InvalidInputError({"user": "请在个人资料页修改自己的密码"})
        if membership.role == Role.OWNER:
            raise ActionForbidden("不能为圈主生成重置链接")
        if membership.role == Role.ADMIN and actor_role != Role.OWNER:
            raise ActionForbidden("只有圈主可以为管理员生成重置链接")
        if not user.is_active:
            raise InvalidInputError({"user": "该账号已停用"})
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
