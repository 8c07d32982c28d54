"""The paused clock: while a dissolve vote is open, or once every seat of the table has been
offline for ``offline_pause_seconds``, the decision's deadline is put away with the time it
had left (``Match.paused_left_ms``) and nothing times out; it resumes with that time when
neither holds. A table offline for ``offline_dissolve_seconds`` is dissolved, its finished
hands kept, as a passed vote would.

Presence (Redis) is advisory, so the match row keeps what the table needs:
``Match.offline_since``, set by :func:`apps.matches.services.match_presence_note` when the
last seat leaves and cleared when one returns. The sweep also notices a table of seats all
in 托管 whose connections died without saying goodbye (:func:`offline_check`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from . import presence
from .models import MatchEvent
from .pacing import offline_pause_at
from .protocol import table_event

if TYPE_CHECKING:
    from .change import MatchChange

def pause_reason(change: MatchChange) -> str | None:
    """Why the clock should stand still now: ``"vote"``, ``"offline"`` or ``None``."""
    match = change.match
    if match.dissolve_vote:
        return "vote"
    pause_at = offline_pause_at(match)
    if pause_at is not None and change.now >= pause_at:
        return "offline"
    return None


def clock_follow(change: MatchChange) -> list[dict[str, Any]]:
    """Pause or resume the clock as :func:`pause_reason` says; return the events to log
    (with the change that caused it)."""
    match, reason = change.match, pause_reason(change)
    if reason is not None and match.paused_left_ms is None:
        left = 0 if match.deadline is None else (match.deadline - change.now) / timedelta(
            milliseconds=1)
        match.paused_left_ms, match.deadline = max(0, int(left)), None
        return [table_event("clock_paused", reason=reason, left=match.paused_left_ms)]
    if reason is None and match.paused_left_ms is not None:
        left, match.paused_left_ms = match.paused_left_ms, None
        match.deadline = change.now + timedelta(milliseconds=left)
        return [table_event("clock_resumed", left=left)]
    return []


def offline_set(change: MatchChange, offline: bool) -> bool:
    """Record that every seat went offline (``True``) or that one came back, and follow
    with the clock; return whether that changed anything. Only a paused or resumed clock
    is logged (no one is there to see the rest)."""
    match = change.match
    if offline == (match.offline_since is not None):
        return False
    match.offline_since = change.now if offline else None
    events = clock_follow(change)
    if events:
        change.log(MatchEvent.Kind.TABLE, events)
    return True


def offline_check(change: MatchChange) -> None:
    """At a table whose seats are all in 托管 and not yet known to be offline, ask presence
    whether anyone is connected: connections killed with their process never report
    leaving. Unknown presence (Redis away) changes nothing."""
    match = change.match
    if match.offline_since is not None or not all(p.auto_play for p in change.players):
        return
    connected = presence.seats_connected(match.pk, [p.seat for p in change.players])
    if connected is not None and not any(connected.values()):
        offline_set(change, True)
