"""The table page. It renders an empty shell; everything on the table arrives over the
room's WebSocket (``ws/rooms/<code>/``) as observations, so the HTML never holds tiles."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render

from apps.clubs.models import Room, RoomSeat
from apps.clubs.selectors import membership_role
from apps.core.auth import AuthenticatedHttpRequest
from apps.matches.protocol import PHRASES


@login_required
def play(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """The table of room ``code`` for a seated player, or for a spectator."""
    room = get_object_or_404(Room, code=code)
    seat = RoomSeat.objects.filter(room=room, user=request.user).values_list("seat", flat=True)
    my_seat = seat.first()
    if my_seat is None and membership_role(room.club, request.user) is None:
        # Same rule as the WebSocket (apps.matches.selectors.table_access): another club's
        # room does not exist for this user.
        raise Http404("房间不存在")
    config = {
        "room": room.code,
        "variant": room.variant,
        "ws": f"/ws/rooms/{room.code}/",
        "lobby": f"/rooms/{room.code}/",
        "seat": my_seat,
        "me": str(request.user),
        "spectator": my_seat is None,
        "phrases": PHRASES,
        "rematch": f"/rooms/{room.code}/rematch/",
        "csrf": get_token(request),
    }
    return render(
        request,
        "table/play.html",
        {"room": room, "config": config, "spectator": my_seat is None},
    )
