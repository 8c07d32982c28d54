"""Helpers that play hands: pick a legal move from an observation, check what a viewer saw."""

from __future__ import annotations

import json
from typing import Any


def choose(observation: dict[str, Any]) -> dict[str, Any] | None:
    """A simple legal move for the observing seat: win, else pass, else discard.

    Returns a client message without ``v``, or ``None`` when the seat has nothing to do.
    """
    legal = observation["me"]["legal"]
    if not legal:
        return None
    plain = [a for a in legal if a["type"] == "discard" and not a.get("declare")]
    move = (
        next((a for a in legal if a["type"] == "win"), None)
        or next((a for a in legal if a["type"] == "pass"), None)
        or (plain[-1] if plain else legal[0])
    )
    return {k: v for k, v in move.items() if k != "seat"}


def walk(value: Any, parents: tuple[Any, ...] = ()) -> Any:
    """Yield ``(parents, key, item)`` for every key of every nested mapping."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*parents, value), key, item
            yield from walk(item, (*parents, value))
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, parents)


def assert_nothing_hidden(frame: dict[str, Any], viewer: int | None, truth: dict[str, Any]) -> None:
    """Fail if ``frame`` shows ``viewer`` a tile it may not see.

    ``truth`` is the server's full ``Round.snapshot()`` at the frame's version: no other
    seat's concealed hand, no wall, no seed before the reveal, no private draw or deal.
    """
    text = json.dumps(frame, ensure_ascii=False)
    ended = truth["phase"] == "ended"
    for seat, seat_truth in enumerate(truth["seats"]):
        if seat == viewer or seat_truth["won"] or ended:
            continue
        assert json.dumps(seat_truth["hand"]) not in text, f"seat {seat}'s hand leaked"
    for parents, key, item in walk(frame):
        owner = parents[-1] if parents else {}
        kind = owner.get("type") if isinstance(owner, dict) else None
        assert key not in ("wall", "snapshot"), f"{key} sent to {viewer}"
        if key == "seed":
            assert kind == "reveal", "seed sent before the reveal"
        if key in ("tiles", "ticks_secret") and kind == "deal":
            assert owner.get("seat") == viewer, "another seat's deal was sent"
        if kind == "draw" and key == "tile":
            assert owner.get("seat") == viewer, "another seat's draw was sent"
        if key == "me":
            assert item["seat"] == viewer, "another seat's private view was sent"
