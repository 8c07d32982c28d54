"""Clubs (亲友圈), their members, rule templates and rooms.

A club has exactly one owner, held as the membership with role ``owner`` (a partial unique
constraint enforces it). Rooms carry the complete, validated settings of their variant;
a match copies them when it starts, so later template edits never touch a running match.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from apps.accounts.models import ComputerLevel
from majiang.variants import VARIANTS, player_variants

USER_MODEL = django_settings.AUTH_USER_MODEL


def default_club_variants() -> list[str]:
    """A new club plays every variant that clubs may play."""
    return [variant.id for variant in player_variants()]


class Club(models.Model):
    """A 亲友圈: a group of friends who play in its rooms."""

    name = models.CharField("名称", max_length=40)
    notice = models.TextField("公告", blank=True, max_length=500)
    member_cap = models.PositiveIntegerField("人数上限", default=200)
    is_open = models.BooleanField("营业中", default=True, help_text="打烊时不能开新房间")
    members_can_open_rooms = models.BooleanField("成员可开房", default=False)
    ledger_visible_to_members = models.BooleanField("成员可看全圈战绩", default=False)
    invite_code = models.CharField("邀请码", max_length=12, unique=True)
    variants = models.JSONField("玩法", default=default_club_variants)
    bots_allowed = models.BooleanField(
        "允许机器人", default=False,
        help_text="机器人账号可以入圈、入座，并且对局照常记账；不允许时机器人不能入圈入座，"
                  "有机器人的对局不记账。只有圈主可以修改",
    )
    created_at = models.DateTimeField("创建时间", auto_now_add=True)

    class Meta:
        verbose_name = "亲友圈"
        verbose_name_plural = "亲友圈"

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class Membership(models.Model):
    """A user's place in a club, with a role."""

    class Role(models.TextChoices):
        OWNER = "owner", "圈主"
        ADMIN = "admin", "管理员"
        MEMBER = "member", "成员"

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="memberships", verbose_name="亲友圈"
    )
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.CASCADE, related_name="memberships", verbose_name="用户"
    )
    role = models.CharField("角色", max_length=8, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField("加入时间", auto_now_add=True)

    class Meta:
        verbose_name = "成员"
        verbose_name_plural = "成员"
        constraints = (
            models.UniqueConstraint(fields=["club", "user"], name="one_membership_per_user"),
            models.UniqueConstraint(
                fields=["club"], condition=Q(role="owner"), name="one_owner_per_club"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.get_role_display()})"


class JoinRequest(models.Model):
    """A request to join a club, decided by the owner or an admin."""

    class Status(models.TextChoices):
        PENDING = "pending", "待审核"
        APPROVED = "approved", "已通过"
        REJECTED = "rejected", "已拒绝"
        CANCELLED = "cancelled", "已撤回"

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="join_requests", verbose_name="亲友圈"
    )
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.CASCADE, related_name="join_requests", verbose_name="申请人"
    )
    status = models.CharField(
        "状态", max_length=10, choices=Status.choices, default=Status.PENDING
    )
    message = models.CharField("留言", max_length=100, blank=True)
    room = models.ForeignKey(
        "Room",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="来自房间",
        help_text="申请人是从这个房间的链接来的：通过后直接进房",
    )
    created_at = models.DateTimeField("申请时间", auto_now_add=True)
    decided_by = models.ForeignKey(
        USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="审核人",
    )
    decided_at = models.DateTimeField("审核时间", null=True, blank=True)

    class Meta:
        verbose_name = "入圈申请"
        verbose_name_plural = "入圈申请"
        constraints = (
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(status="pending"),
                name="one_pending_request_per_user",
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} → {self.club} ({self.get_status_display()})"


class RuleTemplate(models.Model):
    """A saved rule set: a variant and settings validated against its schema."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="templates", verbose_name="亲友圈"
    )
    name = models.CharField("名称", max_length=40)
    variant = models.CharField("玩法", max_length=20)
    settings = models.JSONField("规则设置", default=dict)
    allow_computers = models.BooleanField("允许电脑补位", default=False)
    computers_fill = models.BooleanField(
        "快速开房时电脑补满", default=False,
        help_text="快速开房后，除开房的人外的空位立即由电脑坐满（不记账）",
    )
    computer_level = models.CharField(
        "电脑水平", max_length=10, choices=ComputerLevel.choices,
        default=ComputerLevel.STANDARD,
    )
    created_by = models.ForeignKey(
        USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name="创建人"
    )
    updated_at = models.DateTimeField("更新时间", auto_now=True)

    class Meta:
        verbose_name = "规则模板"
        verbose_name_plural = "规则模板"
        constraints = (
            models.UniqueConstraint(fields=["club", "name"], name="unique_template_name"),
        )

    def __str__(self) -> str:
        return f"{self.club.name} / {self.name}"


class Room(models.Model):
    """A table in a club. ``settings`` holds the variant's complete validated settings."""

    class Status(models.TextChoices):
        WAITING = "waiting", "等待中"
        PLAYING = "playing", "对局中"
        CLOSED = "closed", "已关闭"

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="rooms", verbose_name="亲友圈"
    )
    code = models.CharField("房间号", max_length=8, unique=True)
    name = models.CharField("名称", max_length=40, blank=True)
    variant = models.CharField("玩法", max_length=20)
    settings = models.JSONField("规则设置", default=dict)
    template = models.ForeignKey(
        RuleTemplate, on_delete=models.SET_NULL, null=True, blank=True, related_name="rooms",
        verbose_name="规则模板",
    )
    created_by = models.ForeignKey(
        USER_MODEL, on_delete=models.PROTECT, related_name="rooms_opened", verbose_name="开房人"
    )
    status = models.CharField(
        "状态", max_length=8, choices=Status.choices, default=Status.WAITING
    )
    allow_spectators = models.BooleanField("允许旁观", default=True)
    allow_computers = models.BooleanField("允许电脑补位", default=False)
    computer_level = models.CharField(
        "电脑水平", max_length=10, choices=ComputerLevel.choices,
        default=ComputerLevel.STANDARD, help_text="这个房间里电脑玩家的水平",
    )
    practice = models.BooleanField("练习房", default=False, help_text="一人对三个电脑，不记账")
    hints = models.BooleanField("听牌提示", default=True)
    created_at = models.DateTimeField("创建时间", auto_now_add=True)
    closed_at = models.DateTimeField("关闭时间", null=True, blank=True)
    rematch_deadline = models.DateTimeField(
        "再来一场截止", null=True, blank=True, db_index=True,
        help_text="再来一场的确认截止时间；到时未确认的玩家离座，房间重新开放",
    )

    class Meta:
        verbose_name = "房间"
        verbose_name_plural = "房间"

    def __str__(self) -> str:
        variant = VARIANTS.get(self.variant)
        return f"{self.code}（{variant.name if variant is not None else self.variant}）"

    @property
    def seat_count(self) -> int:
        """How many seats the table has (setting ``players``)."""
        return int(self.settings["players"])

    @property
    def hands_per_match(self) -> int:
        """How many hands a match here lasts."""
        return int(self.settings["hands_per_match"])

    @property
    def base_stake(self) -> int:
        """Points × base stake = the amount posted to the ledger."""
        return int(self.settings["base_stake"])

    def setting(self, name: str, default: Any = None) -> Any:
        """One of the room's settings."""
        return self.settings.get(name, default)


class RoomSeat(models.Model):
    """A user sitting at a room's table, with their ready state."""

    room = models.ForeignKey(
        Room, on_delete=models.CASCADE, related_name="seats", verbose_name="房间"
    )
    seat = models.PositiveSmallIntegerField("座位")
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.CASCADE, related_name="room_seats", verbose_name="玩家"
    )
    ready = models.BooleanField("已准备", default=False)
    joined_at = models.DateTimeField("入座时间", auto_now_add=True)

    class Meta:
        verbose_name = "座位"
        verbose_name_plural = "座位"
        ordering = ["seat"]  # noqa: RUF012  (a list, as in migration 0001)
        constraints = (
            models.UniqueConstraint(fields=["room", "seat"], name="one_user_per_seat"),
            models.UniqueConstraint(fields=["room", "user"], name="one_seat_per_user"),
        )

    def __str__(self) -> str:
        return f"{self.room.code} 第{self.seat + 1}座：{self.user}"
