"""Pages for rule templates, opening rooms and the room lobby.

The rule forms are generated from the chosen variant's settings schema, with each
setting's Chinese description shown under its field.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.core.auth import AuthenticatedHttpRequest
from majiang.variants import VARIANTS

from . import selectors
from .errors import ActionForbidden, ClubNotFound, InvalidInputError
from .forms import NameForm, RoomForm, SettingsForm, show_service_errors
from .models import Club, Membership, RuleTemplate
from .services import rooms as room_services
from .services import templates as template_services
from .views import run_action

Role = Membership.Role
MANAGERS = (Role.OWNER, Role.ADMIN)
TEMPLATES_FORBIDDEN = "只有圈主和管理员可以管理规则模板"
MAX_ID_DIGITS = 18


def _chosen_variant(request: HttpRequest, fallback: str | None) -> str:
    """The variant picked in the form (POST) or the variant switcher (GET)."""
    source = request.POST if request.method == "POST" else request.GET
    variant_id = source.get("variant") or fallback or next(iter(VARIANTS), "")
    if variant_id not in VARIANTS:
        raise ClubNotFound("未知的玩法")
    return variant_id


def _require_manager(club: Club, request: HttpRequest, message: str) -> None:
    if selectors.membership_role(club, request.user) not in MANAGERS:
        raise ActionForbidden(message)


@login_required
def template_edit(
    request: AuthenticatedHttpRequest, club_id: int, template_id: int | None = None
) -> HttpResponse:
    """Create (no ``template_id``) or change a rule template."""
    club = selectors.club_get_for_member(club_id=club_id, user=request.user)
    _require_manager(club, request, TEMPLATES_FORBIDDEN)
    template = selectors.template_get(club=club, template_id=template_id) if template_id else None
    variant_id = _chosen_variant(request, template.variant if template else None)
    schema = VARIANTS[variant_id].schema
    same_variant = template is not None and template.variant == variant_id
    if request.method == "POST":
        name_form = NameForm(request.POST)
        settings_form = SettingsForm(schema, request.POST)
        if name_form.is_valid() and settings_form.is_valid():
            fields: dict[str, Any] = {
                "actor": request.user,
                "name": name_form.cleaned_data["name"],
                "variant": variant_id,
                "settings": settings_form.cleaned_data,
            }
            try:
                if template is None:
                    template_services.rule_template_create(club=club, **fields)
                else:
                    template_services.rule_template_update(template=template, **fields)
            except InvalidInputError as error:
                show_service_errors(error, name_form, settings_form)
            else:
                messages.success(request, "规则模板已保存")
                return redirect("clubs:detail", club_id=club.pk)
        status = 400
    else:
        name_form = NameForm(initial={"name": template.name} if template else None)
        initial = template.settings if template is not None and same_variant else None
        settings_form = SettingsForm(schema, initial=initial)
        status = 200
    return render(
        request,
        "clubs/template_form.html",
        {
            "club": club,
            "template": template,
            "variant_id": variant_id,
            "variants": VARIANTS.values(),
            "name_form": name_form,
            "settings_form": settings_form,
        },
        status=status,
    )


@login_required
@require_POST
def template_delete(
    request: AuthenticatedHttpRequest, club_id: int, template_id: int
) -> HttpResponse:
    """Delete a rule template; rooms opened from it keep their rules."""
    club = selectors.club_get_for_member(club_id=club_id, user=request.user)
    template = selectors.template_get(club=club, template_id=template_id)
    return run_action(
        request,
        lambda: template_services.rule_template_delete(template=template, actor=request.user),
        "规则模板已删除",
        reverse("clubs:detail", args=[club.pk]),
    )


@login_required
def room_create(request: AuthenticatedHttpRequest, club_id: int) -> HttpResponse:
    """Open a room from a template or from settings chosen on this page."""
    club = selectors.club_get_for_member(club_id=club_id, user=request.user)
    if not club.members_can_open_rooms:
        _require_manager(club, request, "只有圈主和管理员可以开房间")
    source = request.POST if request.method == "POST" else request.GET
    template: RuleTemplate | None = None
    template_id = source.get("template", "")
    if template_id:
        if not (template_id.isdigit() and len(template_id) <= MAX_ID_DIGITS):
            raise ClubNotFound("规则模板不存在")
        template = selectors.template_get(club=club, template_id=int(template_id))
    variant_id = template.variant if template else _chosen_variant(request, None)
    schema = VARIANTS[variant_id].schema
    if request.method == "POST":
        room_form = RoomForm(request.POST)
        settings_form = SettingsForm(schema, request.POST)
        if room_form.is_valid() and settings_form.is_valid():
            try:
                room = room_services.room_create(
                    club=club,
                    actor=request.user,
                    template=template,
                    variant=variant_id,
                    settings=settings_form.cleaned_data,
                    **room_form.cleaned_data,
                )
            except InvalidInputError as error:
                show_service_errors(error, room_form, settings_form)
            else:
                messages.success(request, f"房间 {room.code} 已创建")
                return redirect("clubs:lobby", code=room.code)
        status = 400
    else:
        room_form = RoomForm(initial={"name": template.name if template else ""})
        settings_form = SettingsForm(schema, initial=template.settings if template else None)
        status = 200
    return render(
        request,
        "clubs/room_form.html",
        {
            "club": club,
            "template": template,
            "templates": selectors.template_list(club=club),
            "variant_id": variant_id,
            "variants": VARIANTS.values(),
            "room_form": room_form,
            "settings_form": settings_form,
        },
        status=status,
    )


def _rules_display(variant_id: str, values: dict[str, Any]) -> list[dict[str, Any]]:
    """A room's settings for display: label, value as shown (开/关, a choice's name),
    description."""
    variant = VARIANTS.get(variant_id)
    if variant is None:
        return [
            {"label": name, "value": value, "description": ""} for name, value in values.items()
        ]
    shown = []
    for setting in variant.schema.settings:
        shown.append(
            {
                "label": setting.label or setting.name,
                "value": setting.display(values.get(setting.name, setting.default)),
                "description": setting.description,
            }
        )
    return shown


@login_required
def room_lobby(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """The room lobby: seats and ready states, kept live over a WebSocket."""
    room = selectors.room_get_for_member(code=code, user=request.user)
    role = selectors.membership_role(room.club, request.user)
    return render(
        request,
        "clubs/lobby.html",
        {
            "room": room,
            "state": selectors.lobby_state(room),
            "my_seat": selectors.room_seat_of(room, request.user),
            "is_manager": role in MANAGERS,
            "settings": _rules_display(room.variant, room.settings),
        },
    )


def _seat_choice(raw: str) -> int | None:
    """The seat number POSTed to ``sit`` (empty: the first free seat); a clear refusal for
    anything but a short ASCII number (``²`` and 5,000 digits included)."""
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 2):
        raise InvalidInputError({"seat": "座位号必须是数字"})
    return int(raw)


def _room_post(action_name: str) -> Any:
    """A logged-in POST action on a room of one of the user's clubs (404 otherwise)."""

    @login_required
    @require_POST
    def view(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
        room = selectors.room_get_for_member(code=code, user=request.user)
        back = reverse("clubs:lobby", args=[room.code])
        if action_name == "sit":
            raw_seat = request.POST.get("seat", "")
            return run_action(
                request,
                lambda: room_services.room_sit(
                    room=room, user=request.user, seat=_seat_choice(raw_seat)
                ),
                "",
                back,
            )
        if action_name == "stand":
            return run_action(
                request, lambda: room_services.room_stand(room=room, user=request.user), "", back
            )
        if action_name == "ready":
            ready = request.POST.get("ready") == "1"
            return run_action(
                request,
                lambda: room_services.room_ready_set(room=room, user=request.user, ready=ready),
                "",
                back,
            )
        return run_action(
            request,
            lambda: room_services.room_close(room=room, actor=request.user),
            "房间已解散",
            reverse("clubs:detail", args=[room.club_id]),
        )

    view.__name__ = f"room_{action_name}"
    view.__doc__ = f"Room action ``{action_name}`` through the room services."
    return view


room_sit = _room_post("sit")
room_stand = _room_post("stand")
room_ready = _room_post("ready")
room_close = _room_post("close")
