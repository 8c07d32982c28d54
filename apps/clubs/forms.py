"""Forms of the club pages. They only parse input; the services check the rules."""

from __future__ import annotations

from typing import Any

from django import forms

from apps.accounts.models import ComputerLevel
from majiang.settings import Setting, SettingsSchema
from majiang.variants import player_variants

from .errors import InvalidInputError


class ClubCreateForm(forms.Form):
    name = forms.CharField(label="名称", max_length=40)
    notice = forms.CharField(label="公告", required=False, widget=forms.Textarea(attrs={"rows": 3}))
    member_cap = forms.IntegerField(label="人数上限", initial=200, min_value=2, max_value=1000)


class ClubSettingsForm(ClubCreateForm):
    is_open = forms.BooleanField(label="营业中（取消勾选即打烊，不能开新房间）", required=False)
    members_can_open_rooms = forms.BooleanField(label="成员可开房", required=False)
    variants = forms.MultipleChoiceField(
        label="本圈玩法",
        choices=[(variant.id, variant.name) for variant in player_variants()],
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "请至少选择一种玩法"},
    )


class OwnerSettingsForm(forms.Form):
    """What only the owner decides."""

    bots_allowed = forms.BooleanField(
        label="允许机器人", required=False,
        help_text="机器人账号（名字后标明“机器人”）可以入圈、入座，有机器人的对局照常记账。"
                  "不允许时机器人不能入圈入座，已入座的机器人所在对局不记账",
    )


class CodeForm(forms.Form):
    code = forms.CharField(
        label="房间号 / 邀请码",
        max_length=300,
        widget=forms.TextInput(
            attrs={
                "placeholder": "输入房间号、邀请码，或粘贴口令",
                "autocomplete": "off",
                "enterkeyhint": "go",
            }
        ),
    )


class JoinForm(forms.Form):
    club_id = forms.IntegerField(
        label="圈号",
        required=False,
        min_value=1,
        max_value=2**31 - 1,
        help_text="按圈号申请，需圈主或管理员审核",
    )
    invite_code = forms.CharField(
        label="邀请码", required=False, max_length=12, help_text="有邀请码可直接入圈"
    )
    message = forms.CharField(label="留言", required=False, max_length=100)

    def clean(self) -> dict[str, Any]:
        """Require a club ID or an invite code."""
        data = super().clean() or {}
        if not data.get("club_id") and not data.get("invite_code"):
            raise forms.ValidationError("请填写圈号或邀请码")
        return data


class NameForm(forms.Form):
    label_suffix = ""
    name = forms.CharField(label="名称", max_length=40)


class TemplateComputersForm(forms.Form):
    """A rule template's computer options (快速开房 follows them)."""

    label_suffix = ""
    allow_computers = forms.BooleanField(
        label="允许电脑补位", required=False,
        help_text="从这个模板开的房间，开房的人可以让电脑坐空位",
    )
    computers_fill = forms.BooleanField(
        label="快速开房时电脑补满", required=False,
        help_text="快速开房后，开房的人坐东位，其余座位立即由电脑坐满。"
                  "有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）",
    )
    computer_level = forms.TypedChoiceField(
        label="电脑水平", choices=ComputerLevel.choices, initial=ComputerLevel.STANDARD,
        required=False, empty_value=ComputerLevel.STANDARD,
    )


class RoomForm(forms.Form):
    label_suffix = ""
    name = forms.CharField(label="房间名称", max_length=40, required=False)
    allow_spectators = forms.BooleanField(label="允许旁观", required=False, initial=True)
    allow_computers = forms.BooleanField(
        label="允许电脑补位", required=False,
        help_text="开房的人可以让电脑坐空位。有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）",
    )
    computer_level = forms.TypedChoiceField(
        label="电脑水平", choices=ComputerLevel.choices, initial=ComputerLevel.STANDARD,
        required=False, empty_value=ComputerLevel.STANDARD,
        help_text="简单：只求胡牌，偶尔失误，适合新手；标准：按出牌建议打",
    )
    practice = forms.BooleanField(
        label="练习房", required=False, help_text="你和三个电脑玩家，不记账"
    )
    hints = forms.BooleanField(
        label="听牌提示", required=False, initial=True,
        help_text="出牌时显示每张牌打出后听什么、差几张",
    )


def _setting_field(setting: Setting) -> forms.Field:
    """The form field of one schema setting, with its label and Chinese description."""
    common: dict[str, Any] = {"label": setting.label, "help_text": setting.description}
    if setting.kind == "bool":
        return forms.BooleanField(required=False, **common)
    if setting.choices:
        by_text = {str(choice): choice for choice in setting.choices}
        return forms.TypedChoiceField(
            choices=[(text, setting.display(choice)) for text, choice in by_text.items()],
            coerce=by_text.__getitem__,
            **common,
        )
    return forms.IntegerField(min_value=setting.minimum, max_value=setting.maximum, **common)


class SettingsForm(forms.Form):
    """A form generated from a variant's settings schema; fields are prefixed ``s-``."""

    def __init__(self, schema: SettingsSchema, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", "s")
        super().__init__(*args, **kwargs)
        for setting in schema.settings:
            field = _setting_field(setting)
            field.rulings = setting.rulings  # type: ignore[attr-defined]  # for 规则出处
            self.fields[setting.name] = field
            self.initial.setdefault(setting.name, setting.default)
            if setting.choices and setting.kind != "bool":
                self.initial[setting.name] = str(self.initial[setting.name])


def show_service_errors(
    error: InvalidInputError, form: forms.Form, settings_form: forms.Form | None = None
) -> None:
    """Attach a service's field messages to the forms that hold those fields."""
    for field, messages in error.errors.items():
        if field == "settings" and settings_form is not None and isinstance(messages, dict):
            for name, setting_messages in messages.items():
                target = name if name in settings_form.fields else None
                for message in setting_messages:
                    settings_form.add_error(
                        target, f"{name}: {message}" if target is None else message
                    )
            continue
        target = field if field in form.fields else None
        flat = (
            messages
            if isinstance(messages, list)
            else [f"{k}: {m}" for k, v in messages.items() for m in v]
        )
        for message in flat:
            form.add_error(target, message)
