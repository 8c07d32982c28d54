"""Club pages: thin views over the selectors and services, with Chinese UI text.

Actions are POST-only forms (CSRF-protected) that redirect back. A rule-breaking input
shows its message and changes nothing; a forbidden action is a 403 page, a club the
user cannot see is a 404 page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import User
from apps.core.auth import AuthenticatedHttpRequest

from . import selectors, share
from .broadcast import club_state
from .errors import ActionForbidden, InvalidInputError
from .forms import (
    ClubCreateForm,
    ClubSettingsForm,
    CodeForm,
    JoinForm,
    OwnerSettingsForm,
    show_service_errors,
)
from .models import Club, JoinRequest, Membership, Room
from .services import clubs as club_services
from .services import members as member_services

Role = Membership.Role
MANAGERS = (Role.OWNER, Role.ADMIN)


def page_not_found(request: HttpRequest, message: str) -> HttpResponse:
    """The friendly 404 page, rendered here so that room and club links show it even in
    development (where Django would list its URL patterns instead)."""
    return render(request, "404.html", {"message": message}, status=404)


def _error_text(error: InvalidInputError) -> str:
    return "；".join(m for ms in error.message_dict.values() for m in ms)


def home(request: HttpRequest) -> HttpResponse:
    """The home page: a logged-in player's clubs, tables and results (or two next steps
    for a new player); a landing page for visitors."""
    code_form = CodeForm()
    if not request.user.is_authenticated:
        return render(request, "landing.html", {"code_form": code_form})
    user: User = request.user
    return render(
        request,
        "home.html",
        {**selectors.home_for_user(user=user), "code_form": code_form},
    )


def code_go(request: HttpRequest) -> HttpResponse:
    """The 输入房间号 / 邀请码 box: go to the room, the invite or the club it names."""
    form = CodeForm(request.POST or request.GET or None)
    parsed = share.code_parse(form.data.get("code", "")) if form.is_bound else None
    if parsed is None:
        messages.error(request, "请输入 6 位房间号、8 位邀请码或圈号")
        return redirect("home")
    if parsed.kind == "room":
        if selectors.room_get_by_code(parsed.value) is None:
            messages.error(request, f"没有找到房间 {parsed.value}，请核对房间号")
            return redirect("home")
        return redirect("clubs:lobby", code=parsed.value)
    if parsed.kind == "invite":
        if selectors.club_find(invite_code=parsed.value) is None:
            messages.error(request, "邀请码无效或已重置，请向圈主要新的邀请")
            return redirect("home")
        return redirect("clubs:invite", invite_code=parsed.value)
    club_id = int(parsed.value)
    if selectors.club_find(club_id=club_id) is None:
        messages.error(request, f"没有找到圈号为 {club_id} 的亲友圈")
        return redirect("home")
    return redirect("clubs:detail", club_id=club_id)


def join_page(request: HttpRequest, club: Club, room: Room | None = None) -> HttpResponse:
    """What a non-member (or a visitor) sees on a club's or room's link: the club's name
    and one tap to ask to join (or to log in or register first)."""
    here = request.get_full_path()
    return render(
        request,
        "clubs/join.html",
        {
            "club": club,
            "room": room,
            "room_table": selectors.room_tables([room])[0] if room is not None else None,
            "member_count": selectors.club_member_count(club),
            "pending": selectors.join_request_pending_of(club=club, user=request.user),
            "next": here,
        },
    )


def join_apply(request: HttpRequest, club_id: int) -> HttpResponse:
    """申请加入 from a club's or room's link; the player is told to wait for approval."""
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={reverse('clubs:detail', args=[club_id])}")
    if request.method != "POST":
        return redirect("clubs:detail", club_id=club_id)
    club = selectors.club_find(club_id=club_id)
    if club is None:
        return page_not_found(request, "亲友圈不存在")
    room = selectors.room_of_club(club=club, code=request.POST.get("room", ""))
    user: User = request.user
    back = reverse("clubs:lobby", args=[room.code]) if room else reverse(
        "clubs:detail", args=[club.pk]
    )
    return run_action(
        request,
        lambda: member_services.join_request_create(
            club=club, user=user, message=request.POST.get("message", "")[:200], room=room
        ),
        f"已向「{club.name}」提交入圈申请，圈主或管理员通过后即可入座",
        back,
    )


def join_status(request: HttpRequest, club_id: int) -> JsonResponse:
    """Whether the asking player has been let in, for the waiting page: ``member`` and,
    once true, where to go (the room they came from, else the club)."""
    club = selectors.club_find(club_id=club_id)
    if club is None or selectors.membership_role(club, request.user) is None:
        pending = club is not None and selectors.join_request_pending_of(
            club=club, user=request.user
        )
        return JsonResponse({"member": False, "pending": bool(pending)})
    room = selectors.room_of_club(club=club, code=request.GET.get("room", ""))
    target = (
        reverse("clubs:lobby", args=[room.code])
        if room is not None
        else reverse("clubs:detail", args=[club.pk])
    )
    return JsonResponse({"member": True, "next": target})


def invite(request: HttpRequest, invite_code: str) -> HttpResponse:
    """An invite link: a logged-in player joins with one tap, without approval; a visitor
    logs in or registers first. ``?room=`` leads into that room afterwards."""
    club = selectors.club_find(invite_code=invite_code)
    if club is None:
        return page_not_found(request, "邀请链接无效或已重置，请向圈主要新的邀请")
    room = selectors.room_of_club(club=club, code=request.GET.get("room", ""))
    club_url = reverse("clubs:detail", args=[club.pk])
    target = reverse("clubs:lobby", args=[room.code]) if room else club_url
    if request.user.is_authenticated and selectors.membership_role(club, request.user):
        return redirect(target)
    if request.method == "POST" and request.user.is_authenticated:
        user: User = request.user
        try:
            member_services.membership_join_by_invite(user=user, invite_code=invite_code)
        except InvalidInputError as error:
            messages.error(request, _error_text(error))
        else:
            messages.success(request, f"已加入「{club.name}」")
            return redirect(target)
    return render(
        request,
        "clubs/invite.html",
        {
            "club": club,
            "room": room,
            "member_count": selectors.club_member_count(club),
            "next": request.get_full_path(),
        },
    )


def _is_fetch(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "fetch"


def run_action(
    request: HttpRequest, action: Callable[[], Any], success: str, back: str
) -> HttpResponse:
    """Run a service for a POSTed form; report success or the rule it broke, then go back.

    Requests sent by the lobby script (``X-Requested-With: fetch``) get JSON instead.
    """
    try:
        action()
    except InvalidInputError as error:
        text = _error_text(error)
        if _is_fetch(request):
            return JsonResponse({"error": text}, status=400)
        messages.error(request, text)
    else:
        if _is_fetch(request):
            return JsonResponse({"ok": True})
        if success:
            messages.success(request, success)
    return redirect(back)


def _member_user(club: Club, user_id: int) -> User:
    membership = get_object_or_404(
        Membership.objects.select_related("user"), club=club, user_id=user_id
    )
    return membership.user


@login_required
def club_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """My clubs, with forms to create one and to ask to join one."""
    return render(
        request,
        "clubs/club_list.html",
        {
            "clubs": selectors.club_list_for_user(user=request.user),
            "create_form": ClubCreateForm(prefix="create"),
            "join_form": JoinForm(prefix="join"),
            "my_requests": JoinRequest.objects.filter(
                user=request.user, status=JoinRequest.Status.PENDING
            ).select_related("club"),
        },
    )


@login_required
@require_POST
def club_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Create a club from the form on the club list."""
    form = ClubCreateForm(request.POST, prefix="create")
    if form.is_valid():
        try:
            club = club_services.club_create(owner=request.user, **form.cleaned_data)
        except InvalidInputError as error:
            show_service_errors(error, form)
        else:
            messages.success(request, "亲友圈已创建")
            return redirect("clubs:detail", club_id=club.pk)
    return render(
        request,
        "clubs/club_list.html",
        {
            "clubs": selectors.club_list_for_user(user=request.user),
            "create_form": form,
            "join_form": JoinForm(prefix="join"),
            "my_requests": JoinRequest.objects.filter(
                user=request.user, status=JoinRequest.Status.PENDING
            ).select_related("club"),
        },
        status=400,
    )


@login_required
@require_POST
def club_join(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Ask to join a club found by its ID or invite code."""
    form = JoinForm(request.POST, prefix="join")
    if not form.is_valid():
        messages.error(request, "请填写圈号或邀请码")
        return redirect("clubs:list")
    if form.cleaned_data["invite_code"]:
        try:
            membership = member_services.membership_join_by_invite(
                user=request.user, invite_code=form.cleaned_data["invite_code"]
            )
        except InvalidInputError as error:
            messages.error(request, _error_text(error))
            return redirect("clubs:list")
        messages.success(request, f"已加入「{membership.club.name}」")
        return redirect("clubs:detail", club_id=membership.club_id)
    club = selectors.club_find(club_id=form.cleaned_data["club_id"])
    if club is None:
        messages.error(request, "没有找到该亲友圈")
        return redirect("clubs:list")
    return run_action(
        request,
        lambda: member_services.join_request_create(
            club=club, user=request.user, message=form.cleaned_data["message"]
        ),
        f"已向「{club.name}」提交入圈申请，请等待审核",
        reverse("clubs:list"),
    )


@require_GET
def club_detail(request: HttpRequest, club_id: int) -> HttpResponse:
    """The club lobby: open tables (live), 快速开房, online members; then members, join
    requests, templates and settings. A non-member sees the club's name and 申请加入."""
    club = selectors.club_find(club_id=club_id)
    if club is None:
        return page_not_found(request, "亲友圈不存在，请核对圈号或链接")
    role = selectors.membership_role(club, request.user)
    if role is None:
        return join_page(request, club)
    is_manager = role in MANAGERS
    online = selectors.club_online_members(club)
    return render(
        request,
        "clubs/club_detail.html",
        {
            "club": club,
            "role": role,
            "is_owner": role == Role.OWNER,
            "is_manager": is_manager,
            "can_open_rooms": is_manager or club.members_can_open_rooms,
            "tables": selectors.club_lobby_tables(club),
            "online_members": online,
            "online_ids": {user.pk for user in online},
            "share": share.club_share(request, club),
            "invite_share": share.invite_share(request, club) if is_manager else None,
            "members": selectors.membership_list(club=club),
            "join_requests": selectors.join_request_list_pending(club=club, viewer=request.user)
            if is_manager
            else [],
            "templates": selectors.template_list(club=club),
            "variants": selectors.club_variants(club),
            "settings_form": ClubSettingsForm(
                initial={field: getattr(club, field) for field in ClubSettingsForm.base_fields},
                prefix="settings",
            ),
            "owner_form": OwnerSettingsForm(
                initial={"bots_allowed": club.bots_allowed}, prefix="settings"
            ) if role == Role.OWNER else None,
        },
    )


@require_GET
def club_tables(request: HttpRequest, club_id: int) -> JsonResponse:
    """The club lobby's tables (markup), online count and waiting join requests (for
    managers), fetched by its page when the club's socket says they changed."""
    club = selectors.club_find(club_id=club_id)
    if club is None or selectors.membership_role(club, request.user) is None:
        return JsonResponse({"error": "亲友圈不存在"}, status=404)
    return JsonResponse(club_state(club, request.user))


def _club_post(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponseBase]:
    """A logged-in POST action on a club the user belongs to (404 otherwise)."""

    @login_required
    @require_POST
    def wrapper(request: AuthenticatedHttpRequest, club_id: int, **kwargs: Any) -> HttpResponse:
        club = selectors.club_get_for_member(club_id=club_id, user=request.user)
        return view(request, club, **kwargs)

    wrapper.__doc__ = view.__doc__
    wrapper.__name__ = view.__name__
    return wrapper


@_club_post
def club_settings(request: AuthenticatedHttpRequest, club: Club) -> HttpResponse:
    """Save the club's settings (owner or admin; 允许机器人 only the owner)."""
    form = ClubSettingsForm(request.POST, prefix="settings")
    fields: dict[str, Any] = {}
    if selectors.membership_role(club, request.user) == Role.OWNER:
        owner_form = OwnerSettingsForm(request.POST, prefix="settings")
        owner_form.is_valid()  # one checkbox: always valid
        fields = owner_form.cleaned_data
    if not form.is_valid():
        if selectors.membership_role(club, request.user) not in MANAGERS:
            raise ActionForbidden("只有圈主和管理员可以修改亲友圈设置")
        # An ErrorList yields its messages as str; its stub says ValidationError | str | promise.
        messages.error(request, "；".join(m for ms in form.errors.values() for m in ms))  # type: ignore[misc]
        return redirect("clubs:detail", club_id=club.pk)
    return run_action(
        request,
        lambda: club_services.club_update(
            club=club, actor=request.user, **form.cleaned_data, **fields
        ),
        "设置已保存",
        reverse("clubs:detail", args=[club.pk]),
    )


@_club_post
def invite_code_regenerate(request: AuthenticatedHttpRequest, club: Club) -> HttpResponse:
    """Give the club a new invite code."""
    return run_action(
        request,
        lambda: club_services.club_invite_code_regenerate(club=club, actor=request.user),
        "邀请码已重置",
        reverse("clubs:detail", args=[club.pk]),
    )


@_club_post
def join_request_decide(
    request: AuthenticatedHttpRequest, club: Club, request_id: int, decision: str
) -> HttpResponse:
    """Approve or reject a pending join request."""
    join_request = get_object_or_404(JoinRequest, pk=request_id, club=club)
    action: Callable[[], Any]
    if decision == "approve":
        action = lambda: member_services.join_request_approve(  # noqa: E731
            join_request=join_request, actor=request.user
        )
        success = "已通过申请"
    else:
        action = lambda: member_services.join_request_reject(  # noqa: E731
            join_request=join_request, actor=request.user
        )
        success = "已拒绝申请"
    return run_action(request, action, success, reverse("clubs:detail", args=[club.pk]))


@_club_post
def member_role(request: AuthenticatedHttpRequest, club: Club, user_id: int) -> HttpResponse:
    """Appoint or dismiss an admin (owner only)."""
    user = _member_user(club, user_id)
    role = request.POST.get("role", "")
    return run_action(
        request,
        lambda: member_services.membership_role_set(
            club=club, actor=request.user, user=user, role=role
        ),
        "角色已更新",
        reverse("clubs:detail", args=[club.pk]),
    )


@_club_post
def member_remove(request: AuthenticatedHttpRequest, club: Club, user_id: int) -> HttpResponse:
    """Remove a member (owner or admin)."""
    user = _member_user(club, user_id)
    return run_action(
        request,
        lambda: member_services.membership_remove(club=club, actor=request.user, user=user),
        f"已移除 {user}",
        reverse("clubs:detail", args=[club.pk]),
    )


@_club_post
def ownership_transfer(request: AuthenticatedHttpRequest, club: Club, user_id: int) -> HttpResponse:
    """Hand the club to another member (owner only)."""
    user = _member_user(club, user_id)
    return run_action(
        request,
        lambda: member_services.club_ownership_transfer(
            club=club, actor=request.user, new_owner=user
        ),
        f"已将圈主转让给 {user}",
        reverse("clubs:detail", args=[club.pk]),
    )


@_club_post
def club_leave(request: AuthenticatedHttpRequest, club: Club) -> HttpResponse:
    """Leave the club."""
    try:
        member_services.membership_leave(club=club, user=request.user)
    except InvalidInputError as error:
        messages.error(request, _error_text(error))
        return redirect("clubs:detail", club_id=club.pk)
    messages.success(request, f"已退出「{club.name}」")
    return redirect("clubs:list")


@_club_post
def member_reset_link(request: AuthenticatedHttpRequest, club: Club, user_id: int) -> HttpResponse:
    """Make a one-time password reset link for a member who has no email (owner or admin)."""
    user = _member_user(club, user_id)
    try:
        path = member_services.member_password_reset_link(
            club=club, actor=request.user, user=user
        )
    except InvalidInputError as error:
        messages.error(request, _error_text(error))
        return redirect("clubs:detail", club_id=club.pk)
    return render(
        request,
        "clubs/reset_link.html",
        {"club": club, "member": user, "link": request.build_absolute_uri(path)},
    )
