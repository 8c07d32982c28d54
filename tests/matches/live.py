"""Playing over real WebSockets against real server processes, and checking the outcome."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from apps.matches import state
from apps.matches.frames import view_version, viewer_events
from apps.matches.models import Match, MatchEvent
from majiang.record import replay
from tests.support.ws import TableClient

from .driving import choose


async def play_moves(clients: list[TableClient], moves: int | None = None) -> int:
    """Play simple legal moves (win, else pass, else rightmost discard) while the hand lasts.

    ``clients`` are the four seats in seat order, all at the same version. After each move
    every client must receive exactly one ``update`` continuing from its last version.
    Stops after ``moves`` moves, or when the hand ends; returns how many were played.
    """
    played = 0
    for _ in range(moves if moves is not None else 400):
        if clients[0].latest["table"]["stage"] != "hand":
            return played
        await play_one(clients)
        played += 1
    assert moves is not None, "the hand did not end"
    return played


async def play_one(clients: list[TableClient]) -> None:
    """Let the first seat with something to do make its simple move; check the update of
    each seat that the log says may see something of it (H2: another seat's pass in a
    window still open shows the others nothing, so they get no frame)."""
    seat, move = next(
        (s, m) for s, c in enumerate(clients) if (m := choose(c.latest["observation"]))
    )
    match_id = clients[seat].latest["table"]["match"]
    since = await sync_to_async(_log_position)(match_id)
    await clients[seat].send({**move, "v": clients[seat].v})
    for viewer in [seat, *(s for s in range(len(clients)) if s != seat)]:
        client = clients[viewer]
        if viewer != seat and not await sync_to_async(frame_due)(match_id, since, viewer):
            continue  # the mover's frame came after the commit: the log is complete
        before = client.v
        frame = await client.recv()
        assert frame["type"] == "update", frame
        assert frame["from"] == before, (frame["from"], before)


def _log_position(match_id: int) -> int:
    return Match.objects.get(pk=match_id).version


def frame_due(match_id: int, since: int, viewer: int | None) -> bool:
    """Whether the log after position ``since`` holds an event ``viewer`` may see (else,
    H2, it gets no frame for that change)."""
    return bool(viewer_events(MatchEvent.objects.filter(match_id=match_id, seq__gt=since),
                              viewer))


def assert_versions_once_in_order(client: TableClient, start: int, end: int) -> None:
    """The client's frames cover versions ``start``..``end`` each exactly once, in order."""
    covered = []
    last = None
    for frame in client.frames:
        if frame["type"] == "snapshot" and last is None:
            last = frame["v"]
            continue
        assert last is not None
        assert frame.get("from") == last, (frame["type"], frame.get("from"), last)
        covered.extend(range(frame["from"] + 1, frame["v"] + 1))
        last = frame["v"]
    assert covered == list(range(start + 1, end + 1))


def assert_log_replays(match_id: int, clients: list[TableClient]) -> None:
    """The log has no seq gaps or duplicates, its first hand's stored record replays to the
    same state as the log rebuilds, and each client's last view equals that state."""
    match = Match.objects.get(pk=match_id)
    entries = MatchEvent.objects.filter(match=match).order_by("seq")
    seqs = list(entries.values_list("seq", flat=True))
    assert seqs == list(range(1, match.version + 1))
    hand = match.hands.get(number=1)
    assert hand.record is not None, "the hand did not end"
    rebuilt = state.round_rebuild(match, hand)
    assert replay(hand.record).snapshot() == rebuilt.snapshot()
    for seat, client in enumerate(clients):
        assert client.v == view_version(match.views, seat)
        assert client.latest["observation"] == rebuilt.observation(seat)

