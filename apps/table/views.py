"""The table page. It renders an empty shell; everything on the table arrives over the
room's WebSocket (``ws/rooms/<code>/``) as observations, so the HTML never holds tiles."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.clubs.models import Room
from apps.clubs.selectors import membership_role
from apps.core.auth import AuthenticatedHttpRequest
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
        "seat": my_seat,
        "me": str(request.user),
        "spectator": my_seat is None,
    }
    return render(
        request,
        "table/play.html",
        {"room": room, "config": config, "spectator": my_seat is None},
    )
