"""Input and output serializers of the clubs API. Input ones only check types; the
services check the rules."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from apps.accounts.models import ComputerLevel
from apps.core.api_fields import TextField
from apps.core.query import QueryInput
from majiang.variants import player_variants

from ..models import Club, JoinRequest, Membership, Room, RuleTemplate
from ..selectors import variant_name
from ..services import clubs as club_rules
from ..services import members as member_rules
from ..services import rooms as room_rules
from ..services import templates as template_rules
from .schema import VariantSettingsField, VariantSettingsInputField

MAX_ID = 2**31 - 1
PLAYER_VARIANTS = [(variant.id, variant.name) for variant in player_variants()]
"""The variants a request may name (never an engine-test one)."""
ONE_OF_CLUB = "请填写圈号或邀请码"
LEVEL_HELP = (
    "电脑补位的电脑水平：easy（简单：只求胡牌，偶尔失误）或 standard（标准：按出牌建议打）；"
    "电脑的名字后标明，如“电脑·小梅（标准）”"
)
BOTS_HELP = (
    "允许机器人（只有圈主可改）：机器人账号可以入圈、入座，有机器人的对局照常记账；"
    "不允许时机器人不能入圈入座，有机器人的对局不记账"
)


def level_choice(**kw: Any) -> serializers.ChoiceField:
    kw.setdefault("help_text", LEVEL_HELP)
    return serializers.ChoiceField(
        choices=ComputerLevel.choices,
        error_messages={"invalid_choice": "电脑水平应为 easy（简单）或 standard（标准）"}, **kw,
    )


def variant_choice(**kw: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=PLAYER_VARIANTS, error_messages={"invalid_choice": "未知的玩法: {input}"}, **kw
    )


class ClubOutput(serializers.ModelSerializer[Club]):
    member_count = serializers.IntegerField(read_only=True)
    my_role = serializers.CharField(read_only=True, allow_null=True)
    invite_code = serializers.CharField(
        read_only=True, allow_null=True, help_text="邀请码（只给圈主和管理员；凭它可直接入圈）"
    )

    class Meta:
        model = Club
        fields = (
            "id",
            "name",
            "notice",
            "member_cap",
            "member_count",
            "is_open",
            "members_can_open_rooms",
            "bots_allowed",
            "invite_code",
            "my_role",
            "created_at",
        )


class ClubPublicOutput(serializers.Serializer[dict[str, Any]]):
    """What anyone may see of a club before joining it."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    member_count = serializers.IntegerField()
    is_open = serializers.BooleanField()


def member_cap_field(**kw: Any) -> serializers.IntegerField:
    low, high = club_rules.MEMBER_CAP_MIN, club_rules.MEMBER_CAP_MAX
    out_of_range = f"人数上限应在 {low} 到 {high} 之间"
    return serializers.IntegerField(
        min_value=low, max_value=high,
        error_messages={"min_value": out_of_range, "max_value": out_of_range}, **kw,
    )


class ClubCreateInput(serializers.Serializer[None]):
    name = TextField(max_length=club_rules.NAME_MAX)
    notice = TextField(
        max_length=club_rules.NOTICE_MAX, required=False, allow_blank=True, default=""
    )
    member_cap = member_cap_field(required=False, default=200)


class ClubUpdateInput(serializers.Serializer[None]):
    name = TextField(max_length=club_rules.NAME_MAX, required=False)
    notice = TextField(
        max_length=club_rules.NOTICE_MAX, required=False, allow_blank=True
    )
    member_cap = member_cap_field(required=False)
    is_open = serializers.BooleanField(required=False)
    members_can_open_rooms = serializers.BooleanField(required=False)
    bots_allowed = serializers.BooleanField(required=False, help_text=BOTS_HELP)


class ClubLookupInput(serializers.Serializer[None]):
    """The club by ``club_id`` (圈号) or by ``invite_code`` (邀请码): one of the two."""

    club_id = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="圈号（与 invite_code 二选一）"
    )
    invite_code = TextField(
        max_length=32, required=False, help_text="邀请码（与 club_id 二选一）"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "club_id" not in attrs and not attrs.get("invite_code"):
            raise serializers.ValidationError({"club_id": ONE_OF_CLUB}, code="required")
        return attrs


class ClubSearchInput(QueryInput, ClubLookupInput):
    """The search's query: an unknown parameter or an empty value (``?invite_code=``) is a
    400, as on every query of the API."""


class InviteCodeOutput(serializers.Serializer[dict[str, Any]]):
    invite_code = serializers.CharField()


class MembershipOutput(serializers.ModelSerializer[Membership]):
    user_id = serializers.IntegerField(source="user.id")
    username = serializers.CharField(source="user.username")
    display_name = serializers.CharField(source="user.__str__")
    role_display = serializers.CharField(source="get_role_display")

    class Meta:
        model = Membership
        fields = (
            "user_id",
            "username",
            "display_name",
            "role",
            "role_display",
            "joined_at",
        )


class RoleInput(serializers.Serializer[None]):
    role = serializers.ChoiceField(choices=[Membership.Role.ADMIN, Membership.Role.MEMBER])


class UserIdInput(serializers.Serializer[None]):
    user_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class JoinRequestInput(ClubLookupInput):
    """Find the club by ``club_id`` or by ``invite_code`` (one of the two)."""

    message = TextField(
        max_length=member_rules.MESSAGE_MAX, required=False, allow_blank=True, default=""
    )


class JoinRequestOutput(serializers.ModelSerializer[JoinRequest]):
    club_name = serializers.CharField(source="club.name")
    user_id = serializers.IntegerField(source="user.id")
    display_name = serializers.CharField(source="user.__str__")

    class Meta:
        model = JoinRequest
        fields = (
            "id",
            "club",
            "club_name",
            "user_id",
            "display_name",
            "status",
            "message",
            "created_at",
        )


COMPUTERS_FILL_HELP = (
    "快速开房时电脑补满：开房的人坐东位，其余座位立即由电脑坐满（有电脑的对局照常结算，"
    "但不记入亲友圈账本）"
)


class TemplateOutput(serializers.ModelSerializer[RuleTemplate]):
    variant_name = serializers.SerializerMethodField()
    settings = VariantSettingsField(help_text="该玩法的全部规则设置（见 /api/variants/）")

    class Meta:
        model = RuleTemplate
        fields = (
            "id",
            "name",
            "variant",
            "variant_name",
            "settings",
            "allow_computers",
            "computers_fill",
            "computer_level",
            "updated_at",
        )
        extra_kwargs = {  # noqa: RUF012  (DRF reads a dict)
            "allow_computers": {"help_text": "从这个模板开的房间允许电脑补位"},
            "computers_fill": {"help_text": COMPUTERS_FILL_HELP},
            "computer_level": {"help_text": LEVEL_HELP},
        }

    def get_variant_name(self, template: RuleTemplate) -> str:
        return variant_name(template.variant)


SETTINGS_HELP = "要改的规则设置（其余取默认值）；键与取值范围见 /api/variants/"


class TemplateCreateInput(serializers.Serializer[None]):
    name = TextField(max_length=template_rules.NAME_MAX)
    variant = variant_choice()
    settings = VariantSettingsInputField(required=False, default=dict, help_text=SETTINGS_HELP)
    allow_computers = serializers.BooleanField(
        required=False, default=False, help_text="从这个模板开的房间允许电脑补位"
    )
    computers_fill = serializers.BooleanField(
        required=False, default=False, help_text=COMPUTERS_FILL_HELP
    )
    computer_level = level_choice(required=False, default=ComputerLevel.STANDARD)


class TemplateUpdateInput(serializers.Serializer[None]):
    name = TextField(max_length=template_rules.NAME_MAX, required=False)
    variant = variant_choice(required=False)
    settings = VariantSettingsInputField(required=False, help_text=SETTINGS_HELP)
    allow_computers = serializers.BooleanField(
        required=False, help_text="从这个模板开的房间允许电脑补位"
    )
    computers_fill = serializers.BooleanField(required=False, help_text=COMPUTERS_FILL_HELP)
    computer_level = level_choice(required=False)


class SeatOutput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField()
    user_id = serializers.IntegerField()
    display_name = serializers.CharField()
    initial = serializers.CharField(help_text="头像上的字")
    color = serializers.CharField(help_text="头像颜色（#rrggbb）")
    ready = serializers.BooleanField()
    online = serializers.BooleanField()
    computer = serializers.BooleanField(
        help_text="电脑补位（名字如“电脑·小梅（标准）”：每个电脑座位名字不同，括号里是水平）"
    )


class LobbyOutput(serializers.Serializer[dict[str, Any]]):
    """A room and its seats, as also pushed over ``ws/rooms/<code>/lobby/``."""

    code = serializers.CharField()
    name = serializers.CharField()
    club_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Room.Status.choices)
    status_display = serializers.CharField()
    variant = serializers.CharField()
    variant_name = serializers.CharField()
    stake_label = serializers.CharField(help_text="底注的叫法（底注 / 底分）")
    seat_count = serializers.IntegerField()
    hands_per_match = serializers.IntegerField()
    base_stake = serializers.IntegerField()
    allow_spectators = serializers.BooleanField()
    allow_computers = serializers.BooleanField(
        help_text="允许电脑补位；有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）"
    )
    computer_level = level_choice()
    practice = serializers.BooleanField(help_text="练习房（不记账）")
    hints = serializers.BooleanField(help_text="听牌提示")
    winds = serializers.ListField(child=serializers.CharField(), help_text="各座位的风位")
    dealer = serializers.IntegerField(
        allow_null=True, help_text="首局庄家的座位；开局时抽定则为 null"
    )
    dealer_drawn = serializers.BooleanField()
    online = serializers.ListField(child=serializers.CharField(), help_text="在线的圈友")
    seats = serializers.ListField(
        child=SeatOutput(allow_null=True), help_text="每个座位一项，空座为 null"
    )


class RoomCreateInput(serializers.Serializer[None]):
    """Either ``template_id`` (``settings`` then override some values) or ``variant``."""

    template_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    variant = variant_choice(required=False)
    settings = VariantSettingsInputField(required=False, help_text=SETTINGS_HELP)
    name = TextField(
        max_length=room_rules.NAME_MAX, required=False, allow_blank=True, default=""
    )
    allow_spectators = serializers.BooleanField(required=False, default=True)
    allow_computers = serializers.BooleanField(
        required=False,
        help_text="允许电脑补位：开房的人入座后可用 POST /api/rooms/<code>/computers/ 坐满空座；"
                  "有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）。"
                  "不填：按规则模板（有 template_id 时），否则不允许",
    )
    computer_level = level_choice(
        required=False, help_text=f"{LEVEL_HELP}。不填：按规则模板，否则 standard"
    )
    practice = serializers.BooleanField(
        required=False, default=False,
        help_text="练习房：开房的人坐 0 号座，其余座位立即由电脑坐满；不记账",
    )
    hints = serializers.BooleanField(required=False, default=True, help_text="听牌提示")


class InviteJoinInput(serializers.Serializer[None]):
    invite_code = TextField(max_length=32, help_text="邀请码")


class SitInput(serializers.Serializer[None]):
    seat = serializers.IntegerField(min_value=0, max_value=64, required=False, allow_null=True)


class ReadyInput(serializers.Serializer[None]):
    ready = serializers.BooleanField()


class SettingOutput(serializers.Serializer[dict[str, Any]]):
    """One setting of a variant, as forms show it."""

    name = serializers.CharField(help_text="设置项的键")
    # The key is "label"; the serializer's metaclass takes the field out of the class.
    label = serializers.CharField()  # type: ignore[assignment]
    kind = serializers.ChoiceField(choices=["int", "bool", "choice"])
    default = serializers.JSONField()
    description = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    choice_labels = serializers.ListField(child=serializers.CharField(), required=False)
    rulings = serializers.ListField(child=serializers.CharField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class VariantOutput(serializers.Serializer[dict[str, Any]]):
    id = serializers.ChoiceField(choices=PLAYER_VARIANTS)
    name = serializers.CharField()
    settings = SettingOutput(many=True)
