"""Shared helpers of the security tests: tables (the factories'), WebSocket connections,
leak checks."""

from __future__ import annotations

import json
from typing import Any

from apps.matches import state
from apps.matches.models import Hand, Match
from tests.support import factories
from tests.support.factories import Table

TIMEOUT = 10


def build_table(variant: str = "duyun", **options: Any) -> Table:
    """A club with four seated, ready players (match started unless ``start`` is False), a
    spectator member, an outsider and a second club (:func:`tests.support.factories.table`)."""
    if not options.get("start", True):
        options.setdefault("ready", True)
    return factories.table(variant, **options)


# --------------------------------------------------------------------------- leak checks

def truth_at(match_id: int, version: int) -> tuple[dict[str, Any], Hand]:
    """The server's full state of the hand current at ``version`` (never sent to players)."""
    match = Match.objects.get(pk=match_id)
    hand = match.hands.filter(events__seq__lte=version).order_by("-number").first()
    if hand is None:
        hand = match.hands.order_by("number").first()
    assert hand is not None
    return state.round_rebuild(match, hand, upto=version).snapshot(), hand


def _walk(value: Any, key: str | None = None, owner: Any = None) -> Any:
    """Yield ``(key, value, owner)`` for every value nested in ``value``."""
    yield key, value, owner
    if isinstance(value, dict):
        for k, item in value.items():
            yield from _walk(item, k, value)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key, owner)


def _tile_lists(frame: Any) -> list[tuple[str | None, list[str], Any]]:
    out = []
    for key, value, owner in _walk(frame):
        if isinstance(value, list) and value and all(isinstance(t, str) for t in value):
            out.append((key, value, owner))
    return out


def _contains_run(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


HIDDEN_FIELDS = ("hand", "concealed", "tiles", "drawn")
"""Field names that carry a seat's concealed tiles."""


def leaks_in(
    frame: dict[str, Any], viewer: int | None, truth: dict[str, Any], hand: Hand,
) -> list[str]:
    """Everything in ``frame`` that ``viewer`` may not see, given the server's ``truth``.

    - another seat's concealed multiset (as a ``hand``/``concealed``/``tiles`` field, or as
      any list of 5+ tiles equal to it);
    - a run of 6+ tiles of the undrawn wall, in order; any ``wall``/``snapshot`` key;
    - the hand's seed or salt before the ``reveal`` event, and any ``seed`` key outside it;
    - a deal's or draw's tiles of another seat; another seat's ``me``.
    """
    problems: list[str] = []
    ended = truth["phase"] == "ended"
    text = json.dumps(frame, ensure_ascii=False)
    revealed = any(
        e.get("type") == "reveal" for e in frame.get("events", []) if isinstance(e, dict)
    )
    if not revealed and not ended:
        if hand.seed in text:
            problems.append("the hand's seed")
        if hand.salt in text:
            problems.append("the hand's salt")
    hidden: dict[int, list[list[str]]] = {}
    if not ended:
        for seat, seat_truth in enumerate(truth["seats"]):
            if seat == viewer or seat_truth["won"]:
                continue
            tiles = list(seat_truth["hand"])
            hidden[seat] = [sorted(tiles)]
            if seat_truth.get("drawn"):
                hidden[seat].append(sorted([*tiles, seat_truth["drawn"]]))
    wall = [t if isinstance(t, str) else str(t) for t in (truth.get("wall") or [])]
    for key, tiles, owner in _tile_lists(frame):
        kind = owner.get("type") if isinstance(owner, dict) else None
        for seat, concealed in hidden.items():
            same = sorted(tiles) in concealed
            if same and (key in HIDDEN_FIELDS or len(tiles) >= 5):
                problems.append(f"seat {seat}'s concealed tiles as {key!r}")
        if not ended and len(tiles) >= 6 and wall and _contains_run(wall, tiles):
            problems.append(f"a run of the wall as {key!r} ({kind})")
    for key, value, owner in _walk(frame):
        kind = owner.get("type") if isinstance(owner, dict) else None
        if key in ("wall", "snapshot", "salt_seed", "wall_order"):
            problems.append(f"a {key!r} field")
        if key in ("seed", "salt") and kind != "reveal":
            problems.append(f"a {key!r} field outside the reveal")
        if (kind in ("deal", "draw") and key in ("tiles", "tile", "ticks_secret")
                and value is not None and owner.get("seat") != viewer and not ended):
                problems.append(f"seat {owner.get('seat')}'s {kind} {key}")
        if key == "me" and isinstance(value, dict) and value.get("seat") != viewer:
            problems.append(f"the private view of seat {value.get('seat')}")
    return problems
