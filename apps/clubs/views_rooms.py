"""Pages for rule templates, opening rooms and the room lobby.

The rule forms are generated from the chosen variant's settings schema, with each
setting's Chinese description shown under its field.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms import BaseForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.core.auth import AuthenticatedHttpRequest
from majiang.rulings import ruling, rulings_for
from majiang.settings import Setting
from majiang.variant import Variant
from majiang.variants import VARIANTS

from . import rules_guide, selectors, share
from .errors import ActionForbidden, ClubNotFound, InvalidInputError
from .forms import (
    NameForm,
    RoomForm,
    SettingsForm,
    TemplateComputersForm,
    show_service_errors,
)
from .models import Club, Membership, Room, RuleTemplate
from .services import rematch as rematch_services
from .services import rooms as room_services
from .services import templates as template_services
from .services.computers import room_computers_fill
from .views import join_page, page_not_found, run_action

Role = Membership.Role
MANAGERS = (Role.OWNER, Role.ADMIN)
TEMPLATES_FORBIDDEN = "只有圈主和管理员可以管理规则模板"
MAX_ID_DIGITS = 18


def _chosen_variant(request: HttpRequest, club: Club, fallback: str | None) -> str:
    """The variant picked in the form (POST) or the variant tabs (GET): one the club plays,
    or ``fallback`` (the variant a template already has)."""
    source = request.POST if request.method == "POST" else request.GET
    offered = [variant.id for variant in selectors.club_variants(club)]
    variant_id = source.get("variant") or fallback or next(iter(offered), "")
    if variant_id not in offered and variant_id != fallback:
        raise ClubNotFound("本圈没有这种玩法")
    if variant_id not in VARIANTS:
        raise ClubNotFound("没有这种玩法")
    return variant_id


def _invalid_fields(*forms: BaseForm) -> list[dict[str, str]]:
    """The fields that a rejected form wants changed (label and input id), for the notice
    at its top: the page comes back scrolled to the top, far from a field's own error."""
    return [{"label": str(form[name].label), "id": form[name].id_for_label}
            for form in forms for name in form.errors if name != NON_FIELD_ERRORS]


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
    variant_id = _chosen_variant(request, club, template.variant if template else None)
    schema = VARIANTS[variant_id].schema
    same_variant = template is not None and template.variant == variant_id
    if request.method == "POST":
        name_form = NameForm(request.POST)
        settings_form = SettingsForm(schema, request.POST)
        computers_form = TemplateComputersForm(request.POST)
        if name_form.is_valid() and settings_form.is_valid() and computers_form.is_valid():
            fields: dict[str, Any] = {
                "actor": request.user,
                "name": name_form.cleaned_data["name"],
                "variant": variant_id,
                "settings": settings_form.cleaned_data,
                **computers_form.cleaned_data,
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
        computers_form = TemplateComputersForm(initial={
            "allow_computers": template.allow_computers,
            "computers_fill": template.computers_fill,
            "computer_level": template.computer_level,
        } if template else None)
        status = 200
    return render(
        request,
        "clubs/template_form.html",
        {
            "club": club,
            "template": template,
            "variant_id": variant_id,
            "variants": selectors.club_variants(club),
            "name_form": name_form,
            "settings_form": settings_form,
            "computers_form": computers_form,
            "invalid": _invalid_fields(name_form, settings_form, computers_form),
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
    variant_id = template.variant if template else _chosen_variant(request, club, None)
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
        room_form = RoomForm(initial={
            "name": template.name if template else "",
            "practice": request.GET.get("practice") == "1",
            **({"allow_computers": template.allow_computers,
                "computer_level": template.computer_level} if template else {}),
        })
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
            "variants": selectors.club_variants(club),
            "room_form": room_form,
            "settings_form": settings_form,
            "practice": source.get("practice") == "1",
            "invalid": _invalid_fields(room_form, settings_form),
        },
        status=status,
    )


@require_GET
def room_lobby(request: HttpRequest, code: str) -> HttpResponse:
    """The room lobby: seats by wind with the dealer, one 准备 toggle and who is online,
    kept live over a WebSocket. A non-member sees the club's name and 申请加入."""
    room = selectors.room_get_by_code(code)
    if room is None:
        return page_not_found(request, f"房间 {code[:12]} 不存在，可能已经解散了")
    role = selectors.membership_role(room.club, request.user)
    if role is None:
        return join_page(request, room.club, room)
    state = selectors.lobby_state(room)
    my_seat = selectors.room_seat_of(room, request.user)
    return render(
        request,
        "clubs/lobby.html",
        {
            "room": room,
            "state": state,
            "my_seat": my_seat,
            "my_ready": my_seat is not None and bool((state["seats"][my_seat] or {}).get("ready")),
            "is_manager": role in MANAGERS,
            "is_creator": room.created_by_id == request.user.pk,
            "settings": selectors.rules_display(room.variant, room.settings),
            "share": share.room_share(request, room),
            "invite_share": share.invite_share(request, room.club, room)
            if role in MANAGERS
            else None,
            "variant": VARIANTS.get(room.variant),
            "last_result": _last_result(room),
        },
    )


@login_required
@require_POST
def room_quick_open(
    request: AuthenticatedHttpRequest, club_id: int, template_id: int
) -> HttpResponse:
    """快速开房: one tap opens a room from a template and seats its opener."""
    club = selectors.club_get_for_member(club_id=club_id, user=request.user)
    template = selectors.template_get(club=club, template_id=template_id)
    try:
        room, sat = room_services.room_quick_open(club=club, actor=request.user, template=template)
    except InvalidInputError as error:
        messages.error(request, "；".join(m for ms in error.message_dict.values() for m in ms))
        return redirect("clubs:detail", club_id=club.pk)
    if sat:
        messages.success(request, f"房间 {room.code} 已开好，你坐在东位，分享给牌友吧")
    else:
        messages.success(request, f"房间 {room.code} 已开好；你在其他房间入座，未自动坐下")
    return redirect("clubs:lobby", code=room.code)


@login_required
@require_POST
def room_practice_open(
    request: AuthenticatedHttpRequest, club_id: int, variant_id: str
) -> HttpResponse:
    """练习房 in one tap: the game's default rules, its opener with computers in every
    other seat, and the match started (the computers are ready at once), so the tap lands
    at the table (the full form, 自定义练习, stays for other rules)."""
    club = selectors.club_get_for_member(club_id=club_id, user=request.user)
    if variant_id not in {v.id for v in selectors.club_variants(club)}:
        messages.error(request, "本圈没有这种玩法")
        return redirect("clubs:detail", club_id=club.pk)
    try:
        room = room_services.room_create(
            club=club, actor=request.user, variant=variant_id, settings={}, practice=True
        )
    except InvalidInputError as error:
        messages.error(request, "；".join(m for ms in error.message_dict.values() for m in ms))
        return redirect("clubs:detail", club_id=club.pk)
    room_services.room_ready_set(room=room, user=request.user, ready=True)
    return redirect("table:play", code=room.code)


def rules_page(request: HttpRequest, variant_id: str) -> HttpResponse:
    """玩法说明: the game, its scoring with the engine's numbers and worked hands, and the
    room settings. ``?room=<code>`` teaches that room's rules instead of the defaults."""
    variant: Variant | None = VARIANTS.get(variant_id)
    if variant is None or not variant.for_players:
        return page_not_found(request, "没有这种玩法")
    code = request.GET.get("room", "")[:12]
    room = selectors.room_get_by_code(code) if code else None
    if room is not None and room.variant != variant_id:
        room = None
    values = room.settings if room is not None else {}
    return render(
        request,
        "clubs/rules.html",
        {
            "variant": variant,
            "room": room,
            "room_missing": bool(code) and room is None,
            "guide": rules_guide.guide(variant_id, values),
            "rulings": {r.id: r for r in rulings_for(variant_id)},
            "room_settings": (selectors.rules_display(variant_id, values)
                              if room is not None else []),
            "settings": [
                {
                    "label": setting.label,
                    "description": setting.description,
                    "default": setting.display(setting.default),
                    "options": _options_text(setting),
                    "rulings": [ruling(r) for r in setting.rulings],
                }
                for setting in variant.schema.settings
            ],
        },
    )


def _options_text(setting: Setting) -> str:
    """What a setting may be set to, as a player reads it."""
    if setting.kind == "bool":
        return "开 / 关"
    if setting.choices:
        return " / ".join(setting.display(choice) for choice in setting.choices)
    return f"{setting.minimum} 到 {setting.maximum}"


def _last_result(room: Room) -> dict[str, Any] | None:
    """A closed room's last match result, shown instead of its seats."""
    from apps.matches.selectors import room_last_result  # noqa: PLC0415 (matches reads clubs)
    from apps.table.views_result import standings_context  # noqa: PLC0415

    standings = room_last_result(room)
    return standings_context(standings) if standings is not None else None


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
        if action_name == "computers":
            return run_action(
                request,
                lambda: room_computers_fill(room=room, actor=request.user),
                "电脑已补位",
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
        if action_name == "rematch":
            return run_action(
                request,
                lambda: rematch_services.room_rematch(room=room, user=request.user),
                "已确认再来一场，等待其他玩家确认",
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
room_computers = _room_post("computers")
room_stand = _room_post("stand")
room_ready = _room_post("ready")
room_close = _room_post("close")
room_rematch = _room_post("rematch")
