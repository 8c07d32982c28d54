"""Server → client frames: ``snapshot``, ``update`` and ``catchup``, built per viewer.

A viewer is a seat number, or ``None`` for spectators. Every frame is built from
``Round.observation(viewer)`` and logged events filtered by
:func:`majiang.actions.logged_for_viewer`; the full snapshot of a round (hidden tiles,
wall order) and a hand's seed before it ends are never put in a frame.

A frame's version ``v`` is the viewer's own: how many log entries it may see an event of
(``Match.views``). Another seat's private decision (a pass, a 报叫 answer, a 报杠 panel)
moves only that seat's count, so what a viewer receives, versions included, is a
function of what it may see (H1, H2).

Every connection following a match joins its channel-layer group (``match_<id>``), and
everyone at a room's table page joins ``table_<room id>`` to hear that a match has started
there (and the room's 再来一场 prompt); a seated player's connection also joins
``seat_<room id>_<user id>``, where a newer tab of the same player replaces it.

A committed change is one message to the match group (:func:`send_updates`): per audience
(each seat, and spectators), the range of that audience's own versions it spans and its
frame already encoded as JSON. Each connection forwards only its own audience's text
(``TableConsumer.table_update``), so a client never receives another seat's frame, while the
change costs one publish and no encoding on the event loop. It is sent from
``transaction.on_commit`` with the channel layer's own ``group_send``. The layer is Redis
pub/sub, so a send is at most once: a lost one is caught up from the log by the
connections' version check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from apps.core.groups import group_send
from majiang import Round
from majiang.actions import logged_for_viewer
from majiang.advisor import discard_hints

from .models import Hand, Match, MatchEvent, MatchPlayer
from .pacing import AUTO_PLAY_DELAY
from .protocol import encode_frame

if TYPE_CHECKING:
    from .change import MatchChange

UPDATE_EVENT = "table.update"
MATCH_STARTED_EVENT = "table.match_started"
PRESENCE_EVENT = "table.presence"
"""Sent by a table connection itself (see ``consumers``) when a seat's presence changes."""
PHRASE_EVENT = "table.phrase"
"""Sent by a table connection when its seat sends a quick phrase (快捷语)."""
REPLACED_EVENT = "table.replaced"
"""Sent by a seated player's new table connection to the player's other ones at that table
(:func:`seat_group`): they are replaced, and close (two tabs on one seat)."""


def match_group(match_id: int) -> str:
    """The group of every connection (seats and spectators) following a match."""
    return f"match_{match_id}"


def room_group(room_id: int) -> str:
    """The group of everyone connected to a room's table endpoint."""
    return f"table_{room_id}"


def seat_group(room_id: int, user_id: int) -> str:
    """The group of one seated player's connections to a room's table (at most one stays)."""
    return f"seat_{room_id}_{user_id}"


def audience(viewer: int | None) -> str:
    """The key of a viewer's frame in an update message: the seat, or ``watch``."""
    return "watch" if viewer is None else str(viewer)


def send_updates(
    match_id: int, updates: dict[int | None, dict[str, Any]], *,
    spans: dict[int | None, tuple[int, int]],
) -> None:
    """Publish one committed change (each viewer's versions ``spans`` and ``update``
    frame) to the match group. An audience without a frame may see nothing of the change."""
    group_send(match_group(match_id), {
        "type": UPDATE_EVENT,
        "spans": {audience(viewer): list(span) for viewer, span in spans.items()},
        "texts": {audience(viewer): encode_frame(frame) for viewer, frame in updates.items()},
    })


def send_match_started(room_id: int, match_id: int) -> None:
    """Tell a room's connections that a match has started, so they subscribe to it."""
    group_send(room_group(room_id), {"type": MATCH_STARTED_EVENT, "match_id": match_id})


def epoch_ms(moment: datetime | None) -> int | None:
    """A timestamp as milliseconds since the epoch (what clients count down to)."""
    return None if moment is None else int(moment.timestamp() * 1000)


def table_info(
    match: Match, players: list[MatchPlayer], hand: Hand | None,
    connected: Mapping[int, bool] | None,
) -> dict[str, Any]:
    """Match-level facts every viewer may see: hands, totals, deadline, 托管, votes.

    ``connected`` is the seats' presence (:mod:`apps.matches.presence`); ``None`` when it
    could not be read, which shows as ``"connected": null``.
    """
    return {
        "match": match.pk,
        "status": match.status,
        "stage": match.stage,
        "hand": hand.number if hand is not None else None,
        "hands_total": match.hands_total,
        "hands_played": match.hands_played,
        "totals": list(match.totals),
        "booked": match.booked,
        "commitment": hand.commitment if hand is not None else None,
        "next": next_hand_public(match.next_hand),
        "deadline": epoch_ms(match.deadline) if match.status == Match.Status.PLAYING else None,
        "players": [
            {
                "seat": p.seat,
                "name": p.name,
                "connected": None if connected is None else connected.get(p.seat, False),
                "auto_play": p.auto_play,
                "computer": p.computer,
            }
            for p in players
        ],
        "ready": list(match.ready_seats),
        "dissolve": match.dissolve_vote,
        **clock_info(match),
    }


def next_hand_public(upcoming: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The committed next hand without its seed: ``hand``, ``commitment``, ``contributions``."""
    if upcoming is None:
        return None
    return {"hand": upcoming["number"], "commitment": upcoming["commitment"],
            "contributions": upcoming["contributions"]}


def clock_info(match: Match) -> dict[str, Any]:
    """``auto_deadline``: when a pending seat in 托管 acts (its real deadline);
    ``paused_left``: the milliseconds a paused clock has left (``None`` when running)."""
    auto = match.stage == Match.Stage.HAND and match.paused_left_ms is None
    return {
        "auto_deadline": epoch_ms(match.changed_at + AUTO_PLAY_DELAY) if auto else None,
        "paused_left": match.paused_left_ms,
    }


def audiences_seeing(events: list[dict[str, Any]], players: int) -> list[bool]:
    """Whether each seat, then spectators, may see one of a log entry's ``events``."""
    viewers: list[int | None] = [*range(players), None]
    return [any(logged_for_viewer(e, viewer) is not None for e in events) for viewer in viewers]


def view_version(views: list[int], viewer: int | None) -> int:
    """``viewer``'s own version in a match's (or a log entry's) ``views``."""
    if not views:
        return 0
    return views[-1 if viewer is None else viewer]


def viewer_events(entries: Iterable[MatchEvent], viewer: int | None) -> list[dict[str, Any]]:
    """The events of log entries that ``viewer`` may see, each tagged with the viewer's
    version after its entry (``v``)."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        for logged in entry.payload["events"]:
            event = logged_for_viewer(logged, viewer)
            if event is not None:
                event["v"] = view_version(entry.views, viewer)
                out.append(event)
    return out


def observation_of(rnd: Round | None, viewer: int | None) -> dict[str, Any] | None:
    """The round as ``viewer`` may see it (``None`` before the first deal)."""
    return rnd.observation(viewer) if rnd is not None else None


def update_spans(change: MatchChange) -> dict[int | None, tuple[int, int]]:
    """The versions a committed change takes each viewer from and to (equal for a viewer
    who may see none of it)."""
    viewers: list[int | None] = [*(p.seat for p in change.players), None]
    return {viewer: (view_version(change.views_before, viewer),
                     view_version(change.match.views, viewer))
            for viewer in viewers}


def updates_for(change: MatchChange) -> dict[int | None, dict[str, Any]]:
    """The ``update`` frame of a committed change, for each seat and for spectators who
    may see one of its events.

    A viewer who may see none of them gets no frame (H2): such a change is another seat's
    private decision in an open window (a pass, its timeout), or the end of a pause while a
    seat still decides, and a frame, even an empty one, would tell that it happened. It
    changes nothing else a viewer sees (the decision clock runs on; 托管 and timeout counts
    stay as they were, see :func:`apps.matches.lifecycle.action_apply`).

    Presence is not versioned and not part of a change: ``table.players[].connected`` is
    ``null`` here (clients keep what the last snapshot or ``presence`` frame said), which
    spares every move a Redis round trip.
    """
    match = change.match
    table = table_info(match, change.players, change.hand, None)
    viewers: list[int | None] = [p.seat for p in change.players]
    viewers.append(None)
    seen = {viewer: viewer_events(change.entries, viewer) for viewer in viewers}
    viewers = [viewer for viewer in viewers if seen[viewer]]
    views = change.rnd.observations(viewers) if change.rnd is not None else {}
    return {
        viewer: {
            "type": "update",
            "from": view_version(change.views_before, viewer),
            "v": view_version(match.views, viewer),
            "events": seen[viewer],
            "observation": views.get(viewer),
            "table": table,
            **seat_hints(match, views.get(viewer)),
        }
        for viewer in viewers
    }


def snapshot_frame(
    match: Match, players: list[MatchPlayer], hand: Hand | None, rnd: Round | None,
    viewer: int | None, *, connected: Mapping[int, bool] | None,
) -> dict[str, Any]:
    """The full current view for ``viewer`` (on connect, or when too far behind)."""
    return {
        "type": "snapshot",
        "v": view_version(match.views, viewer),
        "seat": viewer,
        "observation": observation_of(rnd, viewer),
        "table": table_info(match, players, hand, connected),
        **seat_hints(match, observation_of(rnd, viewer)),
    }


def seat_hints(match: Match, observation: dict[str, Any] | None) -> dict[str, Any]:
    """``hints`` (听牌提示) for a seat about to discard, when the room shows them: what each
    discard leaves, from the seat's own observation. Nothing otherwise."""
    if not match.hints or observation is None or "me" not in observation:
        return {}
    hints = discard_hints(observation)
    return {"hints": [hint.to_json() for hint in hints]} if hints else {}
