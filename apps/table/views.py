"""The table page. It renders an empty shell; everything on the table arrives over the
room's WebSocket (``ws/rooms/<code>/``) as observations, so the HTML never holds tiles."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.clubs.models import Room
from apps.clubs.selectors import membership_role
from apps.core.auth import AuthenticatedHttpRequest
from apps.matches.computer import match_seat_take
from apps.matches.models import Match
from apps.matches.protocol import PHRASES, MatchError
from apps.matches.selectors import table_access


@login_required
def play(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """The table of room ``code`` for a seated player, or for a spectator."""
    room = get_object_or_404(Room.objects.select_related("club"), code=code)
    # The WebSocket's own rule: seated players, and club members where spectators are
    # allowed. Another club's room does not exist for this user.
    access = table_access(room, request.user)
    if access is None:
        if membership_role(room.club, request.user) is None:
            raise Http404("房间不存在")
        raise PermissionDenied("本房间不允许旁观")
    my_seat = access.seat
    config = {
        "room": room.code,
        "variant": room.variant,
        "ws": f"/ws/rooms/{room.code}/",
        "lobby": f"/rooms/{room.code}/",
        "club": reverse("clubs:detail", args=[room.club_id]),
        "seat": my_seat,
        "me": str(request.user),
        "spectator": my_seat is None,
        "phrases": PHRASES,
    }
    match = room.matches.filter(status=Match.Status.PLAYING).first()
    computers = (
        [] if match is None or match.practice or my_seat is not None
        else match.players.filter(computer=True).select_related("user").order_by("seat")
    )
    return render(
        request,
        "table/play.html",
        {"room": room, "config": config, "spectator": my_seat is None,
         # Named as the table shows them (小梅): its winds move with the dealer.
         "computer_seats": [{"seat": p.seat, "label": f"接替{p.user.short_name}"}
                            for p in computers]},
    )


@login_required
@require_POST
def take_seat(request: AuthenticatedHttpRequest, code: str, seat: int) -> HttpResponse:
    """A club member watching the table takes a computer seat between hands."""
    room = get_object_or_404(Room, code=code)
    if membership_role(room.club, request.user) is None:
        raise Http404("房间不存在")
    match = room.matches.filter(status=Match.Status.PLAYING).first()
    if match is None:
        messages.error(request, "没有进行中的对局")
    else:
        try:
            match_seat_take(match_id=match.pk, user=request.user, seat=seat)
        except MatchError as error:
            messages.error(request, error.message)
    return redirect("table:play", code=room.code)
