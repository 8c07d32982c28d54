"""Matches: a room's sequence of hands, and the append-only event log that drives them.

The log (:class:`MatchEvent`) is the source of truth. A hand's state is rebuilt by dealing it
from its seed and applying the hand's logged actions in order; :attr:`Match.version` is the
sequence number of the last log entry and only ever grows, under ``select_for_update``.
"""

from __future__ import annotations

from functools import cached_property

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from majiang.variants import VARIANTS
from majiang.wall import wall_seed

USER_MODEL = django_settings.AUTH_USER_MODEL


class Match(models.Model):
    """One match at a room's table: ``hands_total`` hands with the room's frozen settings."""

    class Status(models.TextChoices):
        PLAYING = "playing", "对局中"
        FINISHED = "finished", "已结束"
        DISSOLVED = "dissolved", "已解散"

    class Stage(models.TextChoices):
        HAND = "hand", "牌局进行中"
        BETWEEN = "between", "局间结算"
        OVER = "over", "全场结束"

    # Indexed by (room, -created_at) below, which serves every lookup by room.
    room = models.ForeignKey("clubs.Room", models.PROTECT, related_name="matches",
                             verbose_name="房间", db_index=False)
    club = models.ForeignKey("clubs.Club", models.PROTECT, related_name="matches",
                             verbose_name="亲友圈")
    variant = models.CharField("玩法", max_length=20)
    settings = models.JSONField("规则设置", help_text="开局时冻结的房间设置")
    status = models.CharField("状态", max_length=10, choices=Status.choices,
                              default=Status.PLAYING)
    stage = models.CharField("阶段", max_length=8, choices=Stage.choices, default=Stage.HAND)
    hands_total = models.PositiveSmallIntegerField("总局数")
    hands_played = models.PositiveSmallIntegerField("已完成局数", default=0)
    dealer = models.PositiveSmallIntegerField("下一局庄家", default=0)
    streak = models.PositiveSmallIntegerField("下一局连庄数", default=1)
    totals = models.JSONField("累计得分", default=list)
    version = models.BigIntegerField("版本", default=0, help_text="最后一条日志的序号")
    views = models.JSONField(
        "各方版本", default=list,
        help_text="每个座位和旁观者各自看到的日志条数（最后一项是旁观者），即各自收到的版本号",
    )
    decision_views = models.JSONField(
        "决策点版本", default=list,
        help_text="当前决策点开始时各方的版本；更早的版本发来的操作已过期",
    )
    changed_at = models.DateTimeField("最后变化", auto_now_add=True,
                                      help_text="最后一次公开变化的时间")
    deadline = models.DateTimeField("截止时间", null=True, blank=True,
                                    help_text="当前决策点的截止时间")
    timer_due = models.DateTimeField(
        "下次到期", null=True, blank=True,
        help_text="下一个到期时刻（截止时间、托管出牌、解散投票结束）；每秒的巡检处理已到期的对局",
    )
    ready_seats = models.JSONField("已准备座位", default=list, help_text="局间已准备的座位")
    dissolve_vote = models.JSONField(
        "解散投票", null=True, blank=True,
        help_text="进行中的解散投票: proposer, votes, deadline(ms)",
    )
    offline_since = models.DateTimeField(
        "全员离线时刻", null=True, blank=True, help_text="全体座位离线的时刻；有人回来时清空"
    )
    paused_left_ms = models.IntegerField(
        "暂停时剩余毫秒", null=True, blank=True,
        help_text="计时暂停时（解散投票、全员离线）截止时间还剩的毫秒数",
    )
    next_hand = models.JSONField(
        "下一局洗牌", null=True, blank=True,
        help_text="已公布承诺的下一局: number, seed, salt, commitment, contributions（seed 保密）",
    )
    created_at = models.DateTimeField("开始时间", auto_now_add=True)
    finished_at = models.DateTimeField("结束时间", null=True, blank=True)
    has_computers = models.BooleanField("有电脑补位", default=False)
    has_bots = models.BooleanField("有机器人", default=False, help_text="有机器人账号入座")
    bots_allowed = models.BooleanField(
        "允许机器人记账", default=False,
        help_text="开局时亲友圈允许机器人：有机器人的对局只在此时记账",
    )
    practice = models.BooleanField("练习", default=False, help_text="练习房的对局不记账")
    hints = models.BooleanField("听牌提示", default=True)

    class Meta:
        verbose_name = "对局"
        verbose_name_plural = "对局"
        # No index names a column that changes on an ordinary move (version, views,
        # decision_views, changed_at, deadline, timer_due, ...): PostgreSQL then updates
        # the row in place on its page (a HOT update, no new index entries). The sweep
        # finds the matches in play through the partial index below and filters them by
        # ``timer_due`` (one playing match per open table: few rows); ``status`` changes
        # once per match, at its end. The table keeps free room on each page for the new
        # row versions (``fillfactor``, migration 0012, PostgreSQL only).
        indexes = (
            models.Index(fields=["room", "-created_at"]),
            models.Index(fields=["status"], condition=Q(status="playing"),
                         name="match_playing"),
        )

    def __str__(self) -> str:
        variant = VARIANTS.get(self.variant)
        return f"对局 #{self.pk} · {variant.name if variant else self.variant}"

    @property
    def booked(self) -> bool:
        """Whether the club ledger books this match: not a 练习房, no computer seat
        (nobody can pay a computer, nor be paid by one; the table settles as usual), and
        no bot account seat unless the club allowed bots when the match started
        (``Club.bots_allowed``). Matches not booked show 不记账 with their real points."""
        return not (self.practice or self.has_computers
                    or (self.has_bots and not self.bots_allowed))


BOOKED = Q(practice=False, has_computers=False) & ~Q(has_bots=True, bots_allowed=False)
"""The matches :attr:`Match.booked` (as a filter of :class:`Match`)."""


class MatchPlayer(models.Model):
    """A seat of a match: who sits there, and its timeout / 托管 state."""

    match = models.ForeignKey(Match, models.CASCADE, related_name="players", verbose_name="对局")
    seat = models.PositiveSmallIntegerField("座位")
    user = models.ForeignKey(USER_MODEL, models.PROTECT, related_name="match_seats",
                             verbose_name="玩家")
    consecutive_timeouts = models.PositiveSmallIntegerField("连续超时次数", default=0)
    auto_play = models.BooleanField("托管", default=False)
    computer = models.BooleanField("电脑", default=False, help_text="电脑玩家：一直由出牌建议代打")

    class Meta:
        verbose_name = "对局玩家"
        verbose_name_plural = "对局玩家"
        ordering = ("seat",)
        constraints = (
            models.UniqueConstraint(fields=["match", "seat"], name="one_player_per_match_seat"),
            models.UniqueConstraint(fields=["match", "user"], name="one_seat_per_match_user"),
        )

    def __str__(self) -> str:
        return f"对局 #{self.match_id} 第{self.seat + 1}座"

    @cached_property
    def name(self) -> str:
        """The seat's name as every screen shows it (the user's, with its 机器人 or computer
        level mark), read once per loaded row: the cached state of a match keeps its
        players, so a move does not format four names again."""
        return str(self.user)


class Hand(models.Model):
    """One hand of a match, with its fair-shuffle commitment.

    ``commitment`` = sha256(salt + seed) is published before the hand (with the previous
    hand's settlement, or at the match's start) and again at the deal; ``seed`` stays
    secret until the hand ends, when it is revealed so anyone can check the wall. The wall
    is shuffled with :func:`majiang.wall.wall_seed` of the seed and ``contributions``, the
    seats' random values sent after the commitment was published.
    """

    match = models.ForeignKey(Match, models.CASCADE, related_name="hands", verbose_name="对局")
    number = models.PositiveSmallIntegerField("局序", help_text="从 1 开始")
    dealer = models.PositiveSmallIntegerField("庄家")
    streak = models.PositiveSmallIntegerField("连庄数", default=1)
    seed = models.CharField("洗牌种子", max_length=64)
    salt = models.CharField("盐", max_length=64)
    commitment = models.CharField("洗牌承诺", max_length=64)
    contributions = models.JSONField(
        "玩家随机数", default=list, blank=True,
        help_text="发牌前各座位提交的随机数 [{seat, value}]，按座位排序，与 seed 一起决定牌墙",
    )
    started_at = models.DateTimeField("开始时间", auto_now_add=True)
    ended_at = models.DateTimeField("结束时间", null=True, blank=True)
    settlement = models.JSONField("结算", null=True, blank=True)
    record = models.JSONField("牌局记录", null=True, blank=True,
                              help_text="majiang-record/1, 局终写入")

    class Meta:
        verbose_name = "牌局"
        verbose_name_plural = "牌局"
        ordering = ("number",)
        constraints = (
            models.UniqueConstraint(fields=["match", "number"], name="unique_hand_number"),
        )

    def __str__(self) -> str:
        return f"对局 #{self.match_id} 第{self.number}局"

    @property
    def wall_seed(self) -> str:
        """The seed the wall was shuffled with: the seed mixed with the contributions."""
        return wall_seed(self.seed, ((c["seat"], c["value"]) for c in self.contributions))


class MatchEvent(models.Model):
    """One entry of a match's append-only log.

    ``payload`` holds the action (if any) and every event it produced, in full (private
    tiles included): the server filters them per viewer when sending.
    """

    class Kind(models.TextChoices):
        DEAL = "deal", "发牌"
        ACTION = "action", "操作"
        HAND_END = "hand_end", "局终结算"
        TABLE = "table", "牌桌事务"
        MATCH_END = "match_end", "全场结束"

    # Indexed by the unique (match, seq) below, which serves every lookup by match: one
    # index less to write per move.
    match = models.ForeignKey(Match, models.CASCADE, related_name="events", verbose_name="对局",
                              db_index=False)
    seq = models.BigIntegerField("序号")
    hand = models.ForeignKey(Hand, models.CASCADE, null=True, blank=True, related_name="events",
                             verbose_name="牌局")
    kind = models.CharField("类型", max_length=10, choices=Kind.choices)
    seat = models.PositiveSmallIntegerField("座位", null=True, blank=True)
    payload = models.JSONField("内容")
    views = models.JSONField("各方版本", default=list,
                             help_text="本条之后每个座位和旁观者各自的版本（见对局的各方版本）")
    created_at = models.DateTimeField("时间", auto_now_add=True)

    class Meta:
        verbose_name = "对局日志"
        verbose_name_plural = "对局日志"
        ordering = ("match", "seq",)
        constraints = (
            models.UniqueConstraint(fields=["match", "seq"], name="unique_match_event_seq"),
        )

    def __str__(self) -> str:
        return f"对局 #{self.match_id} 日志 #{self.seq}"
