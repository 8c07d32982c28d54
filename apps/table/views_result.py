"""The end of a match: its standings page (every hand a row, every player a column, 大赢家,
the dissolve reason, 再来一场) and the same result as an SVG image to save and share."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
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
    context = {
        **standings_context(match_standings(match)),
        "room": room,
        "can_rematch": seated and latest is not None and latest.pk == match.pk
        and room.status != Room.Status.PLAYING,
    }
    return render(request, "table/result.html", context)


@login_required
def result_image(request: AuthenticatedHttpRequest, code: str, match_id: int) -> HttpResponse:
    """The standings as an SVG image (saved with the page's 保存成绩图)."""
    match = _finished_match(request, code, match_id)
    context = standings_context(match_standings(match))
    players = context["players"]
    column = 120
    for i, p in enumerate(players):
        p["x"] = 130 + column * i
    rows = [
        {"number": row["number"], "y": 156 + 26 * i,
         "cells": [{"x": players[s]["x"], "text": f"{n:+d}" if n else "0"}
                   for s, n in enumerate(row["points"])]}
        for i, row in enumerate(context["hands"])
    ]
    total_y = 156 + 26 * len(rows) + 30
    width = 130 + column * len(players) - 20
    finished = timezone.localtime(match.finished_at or timezone.now())
    svg = render_to_string("table/result.svg", {
        **context, "room": match.room, "rows": rows, "total_y": total_y,
        "width": width, "height": total_y + 30, "line_end": width - 24,
        "when": finished.strftime("%Y-%m-%d %H:%M"),
    })
    return HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
