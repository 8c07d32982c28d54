"""Input and output serializers of the clubs API. Input ones only check types; the
services check the rules."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from ..models import Club, JoinRequest, Membership, Room, RuleTemplate
from ..selectors import variant_name

MAX_ID = 2**31 - 1


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


class ClubCreateInput(serializers.Serializer[None]):
    name = serializers.CharField(max_length=100)
    notice = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    member_cap = serializers.IntegerField(
        min_value=0, max_value=MAX_ID, required=False, default=200
    )


class ClubUpdateInput(serializers.Serializer[None]):
    name = serializers.CharField(max_length=100, required=False)
    notice = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    member_cap = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)
    is_open = serializers.BooleanField(required=False)
    members_can_open_rooms = serializers.BooleanField(required=False)


class ClubSearchInput(serializers.Serializer[None]):
    club_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    invite_code = serializers.CharField(max_length=32, required=False)


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


class JoinRequestInput(serializers.Serializer[None]):
    """Find the club by ``club_id`` or by ``invite_code``."""

    club_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    invite_code = serializers.CharField(max_length=32, required=False)
    message = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


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


class TemplateOutput(serializers.ModelSerializer[RuleTemplate]):
    variant_name = serializers.SerializerMethodField()

    class Meta:
        model = RuleTemplate
        fields = (
            "id",
            "name",
            "variant",
            "variant_name",
            "settings",
            "updated_at",
        )

    def get_variant_name(self, template: RuleTemplate) -> str:
        return variant_name(template.variant)


class TemplateCreateInput(serializers.Serializer[None]):
    name = serializers.CharField(max_length=100)
    variant = serializers.CharField(max_length=40)
    settings = serializers.DictField(required=False, default=dict)


class TemplateUpdateInput(serializers.Serializer[None]):
    name = serializers.CharField(max_length=100, required=False)
    variant = serializers.CharField(max_length=40, required=False)
    settings = serializers.DictField(required=False)


class SeatOutput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField()
    user_id = serializers.IntegerField()
    display_name = serializers.CharField()
    ready = serializers.BooleanField()


class LobbyOutput(serializers.Serializer[dict[str, Any]]):
    """A room and its seats, as also pushed over ``ws/rooms/<code>/lobby/``."""

    code = serializers.CharField()
    name = serializers.CharField()
    club_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Room.Status.choices)
    status_display = serializers.CharField()
    variant = serializers.CharField()
    variant_name = serializers.CharField()
    seat_count = serializers.IntegerField()
    hands_per_match = serializers.IntegerField()
    base_stake = serializers.IntegerField()
    allow_spectators = serializers.BooleanField()
    seats = serializers.ListField(child=SeatOutput(allow_null=True))


class RoomCreateInput(serializers.Serializer[None]):
    """Either ``template_id`` (``settings`` then override some values) or ``variant``."""

    template_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    variant = serializers.CharField(max_length=40, required=False)
    settings = serializers.DictField(required=False)
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    allow_spectators = serializers.BooleanField(required=False, default=True)


class SitInput(serializers.Serializer[None]):
    seat = serializers.IntegerField(min_value=0, max_value=64, required=False, allow_null=True)


class ReadyInput(serializers.Serializer[None]):
    ready = serializers.BooleanField()


class VariantOutput(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField()
    name = serializers.CharField()
    settings = serializers.ListField(child=serializers.DictField())
