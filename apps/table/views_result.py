"""The end of a match: its standings page (every hand a row, every player a column, 大赢家,
the dissolve reason, 再来一场). The page draws the same result as a PNG in the browser
(static/table/result_image.js), which a phone can keep in its album or send in a chat."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from apps.clubs.models import Room
from apps.clubs.selectors import membership_role, variant_name
from apps.core.auth import AuthenticatedHttpRequest
from apps.matches.models import Match
from apps.matches.selectors import Standings, match_current, match_standings


def standings_context(standings: Standings) -> dict[str, Any]:
    """What the standings table needs: players (name, total, 大赢家) and hand rows."""
    match = standings.match
    return {
        "match": match,
        "status": "已解散" if match.status == Match.Status.DISSOLVED else "已结束",
        "reason": standings.dissolve_reason,
        "variant_name": variant_name(match.variant),
        "booked": match.booked,
        "players": [
            {"seat": seat, "name": name, "total": standings.totals[seat],
             "big_winner": seat in standings.big_winners}
            for seat, name in enumerate(standings.names)
        ],
        "hands": [{"number": n, "points": points} for n, points in standings.hands],
    }


def _finished_match(request: AuthenticatedHttpRequest, code: str, match_id: int) -> Match:
    room = get_object_or_404(Room, code=code)
    if membership_role(room.club, request.user) is None:
        raise Http404("房间不存在")
    match = get_object_or_404(Match, pk=match_id, room=room)
    if match.status == Match.Status.PLAYING:
        raise Http404("对局尚未结束")
    return match


@login_required
def result(request: AuthenticatedHttpRequest, code: str, match_id: int) -> HttpResponse:
    """The standings page of a finished or dissolved match."""
    match = _finished_match(request, code, match_id)
    room = match.room
    seated = match.players.filter(user=request.user).exists()
    latest = match_current(room.pk)
    standings = standings_context(match_standings(match))
    finished = timezone.localtime(match.finished_at or timezone.now())
    context = {
        **standings,
        "room": room,
        # What the result image draws (the page's own table, as data).
        "image": {
            "title": f"对局成绩 · 房间 {room.code}",
            "subtitle": " · ".join(filter(None, [
                standings["variant_name"], standings["status"], standings["reason"],
                f"共打完 {len(standings['hands'])}/{match.hands_total} 局",
                "" if match.booked else "不记账"])),
            "when": finished.strftime("%Y-%m-%d %H:%M"),
            "players": [{"name": p["name"], "total": p["total"], "big_winner": p["big_winner"]}
                        for p in standings["players"]],
            "hands": standings["hands"],
        },
        "can_rematch": seated and latest is not None and latest.pk == match.pk
        and room.status != Room.Status.PLAYING,
    }
    return render(request, "table/result.html", context)
