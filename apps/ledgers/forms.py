"""Forms of the ledger pages: the club ledger's filters and the owner's correction."""

from __future__ import annotations

from typing import Any

from django import forms

from apps.clubs.models import Club, Membership, Room
from majiang.variants import player_variants

from .selectors import LedgerFilters


class LedgerFilterForm(forms.Form):
    """Filters by date range, member, room and variant (all optional)."""

    start = forms.DateField(
        label="起始日期", required=False, widget=forms.DateInput({"type": "date"})
    )
    end = forms.DateField(
        label="截止日期", required=False, widget=forms.DateInput({"type": "date"})
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


class AdjustmentForm(forms.Form):
    """The owner's correction: in match ``match``, ``payer`` pays ``payee`` ``points``."""

    match = forms.IntegerField(label="对局编号", min_value=1)
    payer = forms.IntegerField(label="付方用户编号", min_value=1)
    payee = forms.IntegerField(label="收方用户编号", min_value=1)
    points = forms.IntegerField(label="分数", min_value=1)
    reason = forms.CharField(label="调账原因", max_length=200)
    corrects = forms.IntegerField(label="更正的记录编号", required=False, min_value=1)
