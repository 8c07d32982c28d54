"""Serializers of the ledger API (output shapes and the correction's input)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from apps.core.api_fields import TextField
from apps.core.query import PagedQueryInput, QueryInput
from majiang.variants import player_variants

from ..models import LedgerEntry
from ..services import MAX_ADJUSTMENT_POINTS


class LedgerEntryOutput(serializers.ModelSerializer[LedgerEntry]):
    payer_name = serializers.CharField(source="payer.__str__", read_only=True)
    payee_name = serializers.CharField(source="payee.__str__", read_only=True)
    hand_number = serializers.IntegerField(source="hand.number", allow_null=True, read_only=True)
    room_code = serializers.CharField(source="room.code", read_only=True)

    class Meta:
        model = LedgerEntry
        fields = (
            "id", "kind", "club", "room", "room_code", "match", "hand", "hand_number",
            "line_no", "variant", "payer", "payer_name", "payee", "payee_name", "payer_seat",
            "payee_seat", "category", "points", "base_stake", "amount", "ruling", "note",
            "reason", "corrects", "created_by", "occurred_at", "signature",
        )


# Database ids fit in a signed 64-bit integer; larger numbers are a 400, not an overflow.
MAX_DB_ID = 10**18


PLAYER_VARIANTS = [(variant.id, variant.name) for variant in player_variants()]


class DateRangeInput(QueryInput):
    """A date range (inclusive, in the club's time zone); the end not before the start."""

    start = serializers.DateField(required=False, help_text="起始日期（含），如 2026-01-31")
    end = serializers.DateField(required=False, help_text="截止日期（含）")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start, end = attrs.get("start"), attrs.get("end")
        if start is not None and end is not None and end < start:
            raise serializers.ValidationError({"end": "截止日期不能早于起始日期"})
        return attrs


class LedgerFilterInput(DateRangeInput):
    member = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_DB_ID, help_text="成员用户编号"
    )
    room = serializers.CharField(
        required=False, max_length=16,
        help_text="房间号（如 123456）：这个亲友圈的房间；没有这个房间为 400",
    )
    variant = serializers.ChoiceField(
        choices=PLAYER_VARIANTS, required=False, allow_blank=True, help_text="玩法",
        error_messages={"invalid_choice": "没有这个玩法"},
    )


class PagedLedgerFilterInput(LedgerFilterInput):
    also_allowed = PagedQueryInput.also_allowed


class MyMatchFilterInput(DateRangeInput):
    also_allowed = PagedQueryInput.also_allowed

    club = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_DB_ID, help_text="亲友圈编号"
    )
    variant = serializers.ChoiceField(
        choices=PLAYER_VARIANTS, required=False, allow_blank=True, help_text="玩法",
        error_messages={"invalid_choice": "没有这个玩法"},
    )


class ShareInput(QueryInput):
    share = TextField(
        required=False, allow_blank=True, max_length=200, help_text="回放分享链接的令牌"
    )


class MemberTotalOutput(serializers.Serializer[dict[str, Any]]):
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="输赢金额（分数 × 底注，含调账）")
    hands_played = serializers.IntegerField()
    hands_won = serializers.IntegerField()
    matches = serializers.IntegerField()
    big_wins = serializers.IntegerField(help_text="大赢家次数")


class DailyOutput(serializers.Serializer[dict[str, Any]]):
    day = serializers.DateField()
    matches = serializers.IntegerField()
    hands = serializers.IntegerField()
    rows = serializers.IntegerField()
    moved = serializers.IntegerField()
    adjustments = serializers.IntegerField()


class SummaryOutput(serializers.Serializer[dict[str, Any]]):
    members = MemberTotalOutput(many=True)
    daily = DailyOutput(many=True)


class AdjustmentInput(serializers.Serializer[None]):
    match = serializers.IntegerField(min_value=1, max_value=MAX_DB_ID)
    payer = serializers.IntegerField(min_value=1, max_value=MAX_DB_ID, help_text="付方用户编号")
    payee = serializers.IntegerField(min_value=1, max_value=MAX_DB_ID, help_text="收方用户编号")
    points = serializers.IntegerField(min_value=1, max_value=MAX_ADJUSTMENT_POINTS)
    reason = TextField(max_length=200)
    corrects = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_DB_ID,
        help_text="被更正的账本记录编号",
    )


class HandResultOutput(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField()
    number = serializers.IntegerField()
    points = serializers.IntegerField()
    amount = serializers.IntegerField()
    won = serializers.BooleanField()


class MyMatchOutput(serializers.Serializer[dict[str, Any]]):
    match = serializers.IntegerField()
    club = serializers.IntegerField()
    room_code = serializers.CharField()
    variant = serializers.CharField()
    status = serializers.CharField()
    seat = serializers.IntegerField()
    points = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="金额（得分 × 底注）；不记账的对局为 0")
    booked = serializers.BooleanField(
        help_text="是否记入亲友圈账本；有电脑或未获准的机器人参加、或练习房的对局为 false"
                  "（不记账），points 和各局得分照实列出"
    )
    big_winner = serializers.BooleanField()
    hands = HandResultOutput(many=True)


class HandLineOutput(serializers.Serializer[dict[str, Any]]):
    text = serializers.CharField(help_text="如「李四 付 张三 冲锋鸡 3分」")
    kind = serializers.CharField(
        help_text="pattern 牌型, win 胡牌的其他部分（自摸、连庄、报听、萝卜等）, chicken 鸡, "
        "dou 豆, kong 杠, call_transfer 呼叫转移, rob_transfer 抢杠转移, tax_refund 退税, "
        "baopai 包牌, chajiao 查叫, adjustment 调账"
    )
    entry = LedgerEntryOutput()
    adjustment = serializers.BooleanField()


class HandOutput(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    match = serializers.IntegerField()
    number = serializers.IntegerField()
    settlement = serializers.JSONField()
    lines = HandLineOutput(many=True)


class MatchHandOutput(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField(help_text="局的编号：/api/ledgers/hands/<hand>/ 是它的明细")
    number = serializers.IntegerField(help_text="第几局，从 1 开始")
    dealer = serializers.IntegerField()
    points = serializers.ListField(child=serializers.IntegerField(), help_text="每个座位这局的得分")
    ended_at = serializers.DateTimeField()


class MatchSeatOutput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    computer = serializers.BooleanField(help_text="平台的电脑")
    bot = serializers.BooleanField(help_text="机器人账号（第三方程序）")


class MatchHandsOutput(serializers.Serializer[dict[str, Any]]):
    match = serializers.IntegerField()
    club = serializers.IntegerField()
    room_code = serializers.CharField()
    variant = serializers.CharField()
    status = serializers.CharField()
    practice = serializers.BooleanField(help_text="练习对局：得分照实列出，但不记账")
    booked = serializers.BooleanField(
        help_text="得分是否记入亲友圈账本：练习对局、有电脑参加、或有机器人而开局时亲友圈不允许"
                  "机器人的对局为 false（不记账），得分照实列出"
    )
    seats = MatchSeatOutput(many=True)
    hands = MatchHandOutput(many=True, help_text="已结算的局，按局序")
