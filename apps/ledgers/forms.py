"""Forms of the ledger pages: the club ledger's filters and the owner's correction."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms

from apps.clubs.models import Club, Membership, Room
from majiang.variants import player_variants

from .selectors import LedgerFilters, MyFilters


def date_widget() -> forms.DateInput:
    """A date picker; its value in ISO form, which ``<input type="date">`` requires."""
    return forms.DateInput({"type": "date"}, format="%Y-%m-%d")


class KnownParametersForm(forms.Form):
    """A filter form of a page's query string: a parameter it does not know (besides
    ``page``) is an error, like a bad value of one it knows."""

    also_known: ClassVar[frozenset[str]] = frozenset({"page"})

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        known = set(self.base_fields) | self.also_known
        unknown = sorted(key for key in self.data if key not in known)
        if unknown:
            raise forms.ValidationError("未知的筛选条件：" + "、".join(unknown))
        return data


class LedgerFilterForm(KnownParametersForm):
    """Filters by date range, member, room and variant (all optional)."""

    start = forms.DateField(
        label="起始日期", required=False, widget=date_widget()
    )
    end = forms.DateField(
        label="截止日期", required=False, widget=date_widget()
    )
    member = forms.TypedChoiceField(label="成员", required=False, coerce=int, empty_value=None)
    room = forms.TypedChoiceField(label="房间", required=False, coerce=int, empty_value=None)
    variant = forms.ChoiceField(label="玩法", required=False)

    def __init__(self, *args: Any, club: Club, sees_all: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        members = Membership.objects.filter(club=club).select_related("user").order_by("pk")
        self._choice_field("member").choices = [("", "全部成员")] + [
            (m.user_id, str(m.user)) for m in members
        ]
        if not sees_all:
            del self.fields["member"]
        rooms = Room.objects.filter(club=club).order_by("-pk")[:200]
        self._choice_field("room").choices = [("", "全部房间")] + [
            (r.pk, f"{r.code} {r.name}".strip()) for r in rooms
        ]
        self._choice_field("variant").choices = [("", "全部玩法")] + [
            (v.id, v.name) for v in player_variants()
        ]

    def _choice_field(self, name: str) -> forms.ChoiceField:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField), f"{name} is declared as a choice field"
        return field

    def filters(self) -> LedgerFilters:
        """The valid filters (fields that did not validate are ignored)."""
        data = self.cleaned_data if self.is_valid() else {}
        return LedgerFilters(
            start=data.get("start"), end=data.get("end"), member_id=data.get("member"),
            room_id=data.get("room"), variant=data.get("variant") or "",
        )


class AdjustmentMatchForm(forms.Form):
    """调账, step 1: which match (the club's latest, by date, game and players)."""

    match = forms.TypedChoiceField(
        label="对局", coerce=int, error_messages={
            "required": "请选择对局", "invalid_choice": "请从列表中选择对局",
        },
    )

    def __init__(self, *args: Any, matches: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["match"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "请选择对局"), *matches]
        self.labels = dict(matches)


class AdjustmentForm(forms.Form):
    """调账, step 2: in the chosen match, ``payer`` pays ``payee`` ``points``, because."""

    payer = forms.TypedChoiceField(
        label="付方", coerce=int,
        error_messages={"required": "请选择付方", "invalid_choice": "付方不是该对局的玩家"},
    )
    payee = forms.TypedChoiceField(
        label="收方", coerce=int,
        error_messages={"required": "请选择收方", "invalid_choice": "收方不是该对局的玩家"},
    )
    points = forms.IntegerField(
        label="分数", min_value=1, max_value=1_000_000,
        error_messages={
            "required": "请填写分数", "invalid": "分数必须是整数",
            "min_value": "分数必须为正整数", "max_value": "分数太大",
        },
    )
    reason = forms.CharField(
        label="调账原因", max_length=200, error_messages={"required": "请填写调账原因"},
    )
    corrects = forms.TypedChoiceField(
        label="更正哪一条记录（可不选）", required=False, coerce=int, empty_value=None,
        error_messages={"invalid_choice": "被更正的记录不属于该对局"},
    )
    key = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, players: list[tuple[int, str]], lines: list[tuple[int, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        for name, choices in (
            ("payer", [("", "请选择付方"), *players]),
            ("payee", [("", "请选择收方"), *players]),
            ("corrects", [("", "不更正具体记录"), *lines]),
        ):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = choices

    def clean(self) -> dict[str, Any]:
        """The payer and the payee are two different players."""
        data = super().clean() or {}
        if data.get("payer") is not None and data.get("payer") == data.get("payee"):
            self.add_error("payee", "付方和收方不能是同一人")
        return data


MAX_PERIOD_DAYS = 366


class CheckoutPeriodForm(forms.Form):
    """结账 period: from ``start`` to ``end`` (inclusive; both default to today)."""

    start = forms.DateField(
        label="起始日期", widget=date_widget(),
        error_messages={"required": "请选择起始日期", "invalid": "起始日期格式不对"},
    )
    end = forms.DateField(
        label="截止日期", widget=date_widget(),
        error_messages={"required": "请选择截止日期", "invalid": "截止日期格式不对"},
    )

    def clean(self) -> dict[str, Any]:
        """The end may not come before the start, nor lie more than a year after it."""
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        if start is not None and end is not None:
            if end < start:
                raise forms.ValidationError("截止日期不能早于起始日期")
            if (end - start).days >= MAX_PERIOD_DAYS:
                raise forms.ValidationError("结账时段最长一年")
        return data


class CheckoutMarkForm(CheckoutPeriodForm):
    """Marking a 结账 paid: its period plus the 结账 the owner was shown."""

    previous = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    digest = forms.CharField(max_length=64, widget=forms.HiddenInput)


def form_error_text(form: forms.Form) -> str:
    """A form's errors as one Chinese sentence: ``起始日期：请选择起始日期；…``."""
    parts = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        parts += [f"{label}：{e}" if label else str(e) for e in errors]
    return "；".join(parts)


class MyResultsFilterForm(KnownParametersForm):
    """我的战绩 filters: club, game and date range (all optional)."""

    club = forms.TypedChoiceField(label="亲友圈", required=False, coerce=int, empty_value=None)
    variant = forms.ChoiceField(label="玩法", required=False)
    start = forms.DateField(
        label="起始日期", required=False, widget=date_widget(),
        error_messages={"invalid": "起始日期格式不对"},
    )
    end = forms.DateField(
        label="截止日期", required=False, widget=date_widget(),
        error_messages={"invalid": "截止日期格式不对"},
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = Club.objects.filter(memberships__user=user).order_by("name", "pk")
        club_field = self.fields["club"]
        variant_field = self.fields["variant"]
        assert isinstance(club_field, forms.ChoiceField)
        assert isinstance(variant_field, forms.ChoiceField)
        club_field.choices = [("", "全部亲友圈")] + [(c.pk, c.name) for c in clubs]
        club_field.error_messages["invalid_choice"] = "没有这个亲友圈"
        variant_field.choices = [("", "全部玩法")] + [(v.id, v.name) for v in player_variants()]
        variant_field.error_messages["invalid_choice"] = "没有这个玩法"

    def clean(self) -> dict[str, Any]:
        """The end may not come before the start."""
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        if start is not None and end is not None and end < start:
            raise forms.ValidationError("截止日期不能早于起始日期")
        return data

    def filters(self) -> MyFilters:
        """The filters of a valid form."""
        data = self.cleaned_data
        return MyFilters(
            club_id=data.get("club"), variant=data.get("variant") or "",
            start=data.get("start"), end=data.get("end"),
        )
