"""Creating clubs and changing their settings."""

from __future__ import annotations

from django.db import transaction

from apps.accounts.models import User
from majiang.variants import player_variants

from ..errors import InvalidInputError
from ..models import Club, Membership
from ..selectors import club_member_count
from .common import MANAGERS, require_role, unique_code

INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: easy to read aloud
INVITE_LENGTH = 8
MEMBER_CAP_MIN = 2
MEMBER_CAP_MAX = 1000
NAME_MAX = Club._meta.get_field("name").max_length or 40
NOTICE_MAX = 500


def _check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise InvalidInputError({"name": "名称不能为空"})
    if len(name) > NAME_MAX:
        raise InvalidInputError({"name": f"名称不能超过 {NAME_MAX} 个字"})
    return name


def _check_cap(member_cap: int, club: Club | None = None) -> int:
    if not MEMBER_CAP_MIN <= member_cap <= MEMBER_CAP_MAX:
        raise InvalidInputError(
            {"member_cap": f"人数上限应在 {MEMBER_CAP_MIN} 到 {MEMBER_CAP_MAX} 之间"}
        )
    if club is not None and member_cap < club_member_count(club):
        raise InvalidInputError({"member_cap": "人数上限不能小于现有成员数"})
    return member_cap


def _check_notice(notice: str) -> str:
    if len(notice) > NOTICE_MAX:
        raise InvalidInputError({"notice": f"公告不能超过 {NOTICE_MAX} 个字"})
    return notice


def _check_variants(variants: list[str]) -> list[str]:
    playable = [variant.id for variant in player_variants()]
    unknown = [variant for variant in variants if variant not in playable]
    if unknown:
        raise InvalidInputError({"variants": "没有这种玩法"})
    if not variants:
        raise InvalidInputError({"variants": "请至少选择一种玩法"})
    return [variant for variant in playable if variant in variants]


def club_create(*, owner: User, name: str, notice: str = "", member_cap: int = 200) -> Club:
    """Create a club; its creator becomes the owner."""
    with transaction.atomic():
        club = Club.objects.create(
            name=_check_name(name),
            notice=_check_notice(notice),
            member_cap=_check_cap(member_cap),
            invite_code=unique_code(Club, "invite_code", INVITE_ALPHABET, INVITE_LENGTH),
        )
        Membership.objects.create(club=club, user=owner, role=Membership.Role.OWNER)
    return club


def club_update(
    *,
    club: Club,
    actor: User,
    name: str | None = None,
    notice: str | None = None,
    member_cap: int | None = None,
    is_open: bool | None = None,
    members_can_open_rooms: bool | None = None,
    variants: list[str] | None = None,
    bots_allowed: bool | None = None,
) -> Club:
    """Change the club's settings (owner or admin). Arguments left as None stay unchanged.
    ``variants`` are the games the club plays: at least one of those clubs may play.
    ``bots_allowed`` (允许机器人: bot accounts may join, sit, and play for points) is the
    owner's alone."""
    with transaction.atomic():
        club = Club.objects.select_for_update().get(pk=club.pk)
        require_role(club, actor, MANAGERS, "只有圈主和管理员可以修改亲友圈设置")
        changed = []
        if bots_allowed is not None and bots_allowed != club.bots_allowed:
            require_role(club, actor, (Membership.Role.OWNER,), "只有圈主可以决定是否允许机器人")
            club.bots_allowed = bots_allowed
            changed.append("bots_allowed")
        if name is not None:
            club.name = _check_name(name)
            changed.append("name")
        if notice is not None:
            club.notice = _check_notice(notice)
            changed.append("notice")
        if member_cap is not None:
            club.member_cap = _check_cap(member_cap, club)
            changed.append("member_cap")
        if is_open is not None:
            club.is_open = is_open
            changed.append("is_open")
        if members_can_open_rooms is not None:
            club.members_can_open_rooms = members_can_open_rooms
            changed.append("members_can_open_rooms")
        if variants is not None:
            club.variants = _check_variants(variants)
            changed.append("variants")
        if changed:
            club.save(update_fields=changed)
    return club


def club_invite_code_regenerate(*, club: Club, actor: User) -> str:
    """Give the club a new invite code (owner or admin); the old one stops working."""
    with transaction.atomic():
        require_role(club, actor, MANAGERS, "只有圈主和管理员可以重置邀请码")
        club.invite_code = unique_code(Club, "invite_code", INVITE_ALPHABET, INVITE_LENGTH)
        club.save(update_fields=["invite_code"])
    return club.invite_code
