"""What a seat may see of a round, and the full state for checks.

:func:`observation` is the only view the server sends to players. Before the hand ends it
holds the viewer's own concealed tiles and nothing concealed of anyone else's, except a
winner's tiles, which are laid open. It never holds the wall order: only its size.
:func:`snapshot` is the complete state, for replay checks; it must never reach a player.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from majiang.state import Phase

if TYPE_CHECKING:
    from majiang.round import Round

__all__ = ["observation", "observations", "snapshot"]


def _seat_public(rnd: Round, seat: int, reveal: bool) -> dict[str, Any]:
    s = rnd.seats[seat]
    out: dict[str, Any] = {
        "seat": seat,
        "hand_size": sum(s.hand),
        "has_drawn": s.drawn is not None,
        "melds": [m.to_json() for m in s.melds],
        "river": [
            {
                "tile": e.tile.code,
                **({"claimed_by": e.claimed_by} if e.claimed_by is not None else {}),
                **({"won_by": list(e.won_by)} if e.won_by else {}),
            }
            for e in s.river
        ],
        "declared": s.declared,
        "baogang": s.ticks is not None,
        "won": s.won,
    }
    win = next((w for w in rnd.wins if w.seat == seat), None)
    if win is not None:
        out["win"] = {"tile": win.tile.code, "source": win.source.value, "from": win.from_seat}
    if reveal or s.won:
        out["concealed"] = [t.code for t in s.concealed()]
    return out


def observation(rnd: Round, viewer: int | None) -> dict[str, Any]:
    """Everything ``viewer`` (a seat, or ``None`` for a spectator) may see now, as JSON."""
    return observations(rnd, [viewer])[viewer]


def observations(rnd: Round, viewers: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`observation` for each of ``viewers``, building the parts that every viewer
    sees alike (seats, river, settlement) once. The views share those parts: treat them as
    read-only."""
    ended = rnd.phase is Phase.ENDED
    public: dict[str, Any] = {
        "variant": rnd.variant.id,
        "players": rnd.players,
        "phase": rnd.phase.value,
        "dealer": rnd.dealer,
        "streak": rnd.streak,
        "turn": rnd.turn,
        "wall_remaining": rnd.wall.remaining,
        "last_discard": None,
        "seats": [_seat_public(rnd, s, ended) for s in range(rnd.players)],
        "waiting": False,
        **rnd.variant.public_info(rnd),
    }
    if rnd.window is not None and rnd.window.tile is not None:
        public["last_discard"] = {"tile": rnd.window.tile.code, "seat": rnd.window.from_seat}
    if ended:
        public["result"] = {
            "reason": rnd.end_reason,
            "settlement": rnd.settlement().to_json(),
            "ticks": [sorted(t.code for t in s.ticks) if s.ticks else [] for s in rnd.seats],
        }
    pending = rnd.pending() if rnd.window else ()
    out: dict[int | None, dict[str, Any]] = {}
    for viewer in viewers:
        view = {**public, "waiting": bool(rnd.window) and viewer not in pending}
        if viewer is not None:
            view["me"] = _private(rnd, viewer)
        out[viewer] = view
    return out


def _private(rnd: Round, viewer: int) -> dict[str, Any]:
    s = rnd.seats[viewer]
    hand = s.concealed()
    if s.drawn is not None:
        hand.remove(s.drawn)
    legal = rnd.legal_actions(viewer)
    me: dict[str, Any] = {
        "seat": viewer,
        "hand": [t.code for t in hand],
        "drawn": s.drawn.code if s.drawn is not None else None,
        "legal": [a.to_json() for a in legal],
        "ticks": sorted(t.code for t in s.ticks) if s.ticks else [],
        "waits": [t.code for t in rnd.waits(viewer)]
        if not s.won and sum(s.hand) + 3 * len(s.melds) == 13
        else [],
    }
    me.update(rnd.variant.private_info(rnd, viewer, legal))
    return me


def snapshot(rnd: Round) -> dict[str, Any]:
    """The complete state as JSON, hidden tiles and wall included. Never send it to a player."""
    return {
        "phase": rnd.phase.value,
        "turn": rnd.turn,
        "dealer": rnd.dealer,
        "streak": rnd.streak,
        "wall": [t.code for t in rnd.wall.undrawn()],
        "seats": [
            {
                "hand": [t.code for t in s.concealed()],
                "melds": [m.to_json() for m in s.melds],
                "river": [(e.tile.code, e.claimed_by, list(e.won_by)) for e in s.river],
                "drawn": s.drawn.code if s.drawn is not None else None,
                "declared": s.declared,
                "ticks": sorted(t.code for t in s.ticks) if s.ticks is not None else None,
                "won": s.won,
                "locks": [s.win_lock, s.pung_lock],
            }
            for s in rnd.seats
        ],
        "window": None
        if rnd.window is None
        else {
            "tile": rnd.window.tile.code if rnd.window.tile is not None else None,
            "from": rnd.window.from_seat,
            "options": {str(k): [a.to_json() for a in v] for k, v in rnd.window.options.items()},
            "decisions": {str(k): a.to_json() for k, a in rnd.window.decisions.items()},
        },
        "wins": [
            {"seat": w.seat, "tile": w.tile.code, "source": w.source.value, "from": w.from_seat}
            for w in rnd.wins
        ],
        "kongs": [(k.seat, k.tile.code, k.kind.value, k.from_seat) for k in rnd.kongs],
        "end_reason": rnd.end_reason,
        **rnd.variant.snapshot_info(rnd),
    }
