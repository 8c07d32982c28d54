"""Reads of live play: who may sit or watch at a table, and the frames a viewer needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from apps.clubs.models import Room, RoomSeat
from apps.clubs.selectors import membership_role

from . import presence, state
from .frames import snapshot_frame, view_version, viewer_events
from .models import Match, MatchEvent, MatchPlayer

MAX_CATCHUP_ENTRIES = 200
"""A client further behind than this many log entries gets a full snapshot instead."""


@dataclass(frozen=True, slots=True)
class TableAccess:
    """What a user may do at a room's table: play ``seat``, or watch (``seat`` None)."""

    room_id: int
    seat: int | None
    match_id: int | None


def room_by_code(code: str) -> Room | None:
    """The room with this code, if any."""
    return Room.objects.select_related("club").filter(code=code).first()


def _room_matches(room_id: int) -> QuerySet[Match]:
    """The room's matches, most recent first."""
    return Match.objects.filter(room_id=room_id).order_by("-created_at", "-pk")


def match_current(room_id: int) -> Match | None:
    """The room's most recent match, if one has started."""
    return _room_matches(room_id).first()


def table_access(room: Room, user: Any) -> TableAccess | None:
    """The user's place at the table, or ``None`` if they may not connect at all.

    Seated players play their seat. Other club members may watch when the room allows
    spectators. Everyone else is refused.
    """
    if not getattr(user, "is_authenticated", False):
        return None
    match = match_current(room.pk)
    if match is not None:
        seat = (
            MatchPlayer.objects.filter(match=match, user=user)
            .values_list("seat", flat=True)
            .first()
        )
    else:
        seat = RoomSeat.objects.filter(room=room, user=user).values_list("seat", flat=True).first()
    if seat is None and not (room.allow_spectators and membership_role(room.club, user)):
        return None
    return TableAccess(room.pk, seat, match.pk if match is not None else None)


def room_match_version(room_id: int, viewer: int | None) -> tuple[int, int] | None:
    """The room's most recent match and ``viewer``'s version of it, or ``None`` before
    its first match."""
    row = _room_matches(room_id).values_list("pk", "views").first()
    return None if row is None else (row[0], view_version(row[1], viewer))


def table_snapshot(match_id: int, viewer: int | None) -> dict[str, Any]:
    """The ``snapshot`` frame of a match for ``viewer`` (a seat, or None for spectators).

    Built from this process's cached state when it is at the match's version (the usual
    case: the connection follows moves this process made), else from the log."""
    match = Match.objects.get(pk=match_id)
    table = state.state_checkout(match)
    try:
        connected = presence.seats_connected(match.pk, [p.seat for p in table.players])
        frame = snapshot_frame(match, table.players, table.hand, table.rnd, viewer,
                               connected=connected)
    finally:
        state.state_checkin(table)
    frame["last_settlement"] = last_settlement(match)
    return frame


def last_settlement(match: Match) -> dict[str, Any] | None:
    """The match's last settled hand, ``{hand, settlement}`` (the page's 上局结算)."""
    hand = (match.hands.filter(settlement__isnull=False).order_by("-number")
            .values("number", "settlement").first())
    return None if hand is None else {"hand": hand["number"], "settlement": hand["settlement"]}


def table_catchup(match_id: int, since: int, viewer: int | None) -> dict[str, Any]:
    """The events ``viewer`` missed after its version ``since``, with the current view.

    A ``catchup`` frame (missed events plus the snapshot) when at most
    :data:`MAX_CATCHUP_ENTRIES` entries were missed, else a plain ``snapshot``.
    """
    frame = table_snapshot(match_id, viewer)
    missed = frame["v"] - since
    if since < 0 or missed < 0 or missed > MAX_CATCHUP_ENTRIES:
        return frame  # a version from the future (a bad client) gets the snapshot too
    # The viewer's column of each entry's ``views`` (spectators' is the last).
    column = f"views__{len(frame['table']['players']) if viewer is None else viewer}"
    entries = MatchEvent.objects.filter(
        match_id=match_id, **{f"{column}__gt": since, f"{column}__lte": frame["v"]})
    return {
        **frame,
        "type": "catchup",
        "from": since,
        "events": viewer_events(entries.order_by("seq"), viewer),
    }


DISSOLVE_REASONS = {
    "dissolve_passed": "全体同意解散",
    "offline": "全员离线太久，自动解散",
    "admin": "管理员解散",
}
"""Why a match was dissolved, in words, by its logged event (or ``dissolve_forced`` reason)."""


@dataclass(frozen=True, slots=True)
class Standings:
    """A match's result: each finished hand's points per seat, the totals, 大赢家 and, for a
    dissolved match, why."""

    match: Match
    names: list[str]
    hands: list[tuple[int, list[int]]]
    totals: list[int]
    big_winners: frozenset[int]
    dissolve_reason: str | None


def match_standings(match: Match) -> Standings:
    """The standings of ``match`` (finished hands only; a dissolved hand is not counted)."""
    names = [p.name for p in match.players.select_related("user").order_by("seat")]
    hands = [(h.number, list((h.settlement or {})["totals"]))
             for h in match.hands.filter(settlement__isnull=False).order_by("number")]
    totals = list(match.totals)
    top = max(totals, default=0)
    reason = None
    if match.status == Match.Status.DISSOLVED:
        reason = "解散"
        for entry in match.events.filter(kind=MatchEvent.Kind.TABLE).order_by("-seq")[:3]:
            for logged in entry.payload["events"]:
                event = logged["public"]
                key = event["type"] if event["type"] == "dissolve_passed" else event.get("reason")
                reason = DISSOLVE_REASONS.get(str(key), reason)
    return Standings(match, names, hands, totals,
                     frozenset(s for s, t in enumerate(totals) if top > 0 and t == top), reason)


def room_last_result(room: Room) -> Standings | None:
    """The standings of a closed room's last match, shown in its lobby instead of seats."""
    match = match_current(room.pk)
    if room.status != Room.Status.CLOSED or match is None or match.status == "playing":
        return None
    return match_standings(match)
