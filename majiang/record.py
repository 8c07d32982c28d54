"""Game records: a hand as variant, settings, dealer, wall source and ordered actions.

See ``docs/record-format.md``. Replaying a record rebuilds the round exactly; the first
action that is not legal is reported with its index and the reason.

Records made before the 报杠 panel was a step of its own (Z20) still replay: there, a
declaration without ticks was 不报 even when the seat had triplets to tick. Now such a
declaration opens the panel, and the record's next action, which is not the panel's answer,
is not legal; :func:`apply_recorded` then answers every open panel 不报 first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from majiang.actions import Action, ActionType, Event
from majiang.errors import IllegalActionError, RecordError, SettingsError
from majiang.round import Round
from majiang.tiles import NotationError, parse_tiles
from majiang.variants import get_variant

__all__ = ["FORMAT", "apply_recorded", "dumps", "load_round", "record_of", "replay"]

FORMAT = "majiang-record/1"


def record_of(rnd: Round) -> dict[str, Any]:
    """The record of a round so far. The wall is written out only when there is no seed."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "variant": rnd.variant.id,
        "settings": dict(sorted(rnd.settings.items())),
        "dealer": rnd.dealer,
        "streak": rnd.streak,
    }
    if rnd.seed is not None:
        out["seed"] = rnd.seed
    else:
        out["wall"] = " ".join(t.code for t in rnd.wall.tiles)
    out["actions"] = [a.to_json() for a in rnd.history]
    return out


def dumps(data: Mapping[str, Any]) -> str:
    """Canonical JSON text: sorted keys, UTF-8 kept, two-space indent."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def load_round(data: Mapping[str, Any]) -> Round:
    """Deal the round a record describes, before any action."""
    if not isinstance(data, Mapping):
        raise RecordError("a record must be a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise RecordError(f"unknown record format {data.get('format')!r}")
    try:
        variant = get_variant(str(data["variant"]))
    except KeyError as exc:
        raise RecordError(f"unknown or missing variant {data.get('variant')!r}") from exc
    seed = data.get("seed")
    wall_text = data.get("wall")
    if (seed is None) == (wall_text is None):
        raise RecordError("a record needs exactly one of 'seed' and 'wall'")
    if seed is not None and not isinstance(seed, str):
        raise RecordError(f"'seed' must be a string, got {seed!r}")
    if wall_text is not None and not isinstance(wall_text, str):
        raise RecordError(f"'wall' must be a string of tiles, got {wall_text!r}")
    try:
        wall = parse_tiles(wall_text) if wall_text is not None else None
        dealer = data.get("dealer", 0)
        streak = data.get("streak", 1)
        if not isinstance(dealer, int) or not isinstance(streak, int):
            raise RecordError("dealer and streak must be integers")
        rnd, _ = Round.deal(
            variant,
            data.get("settings") or {},
            dealer=dealer,
            streak=streak,
            seed=seed,
            wall=wall,
        )
    except SettingsError as exc:
        raise RecordError(f"bad settings: {exc}") from exc
    except NotationError as exc:
        raise RecordError(f"bad wall: {exc}") from exc
    except ValueError as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(str(exc)) from exc
    return rnd


def apply_recorded(rnd: Round, action: Action) -> list[Event]:
    """Apply one recorded action, reading records from before the 报杠 panel step (Z20).

    When ``action`` is not legal only because 报杠 panels are open, and it is not an answer
    to one of them (a ``DECLARE`` by a seat whose panel is open), it comes from an older
    record in which the declarations were 不报: each open panel is answered 不报, in seat
    order, and ``action`` applied after them. Otherwise this is :meth:`Round.apply`, which
    raises :class:`IllegalActionError` for an illegal action (after a 不报 was supplied, the
    round keeps it).
    """
    try:
        return rnd.apply(action)
    except IllegalActionError:
        held = sorted(rnd.pending_declarations)
        if not held or (action.seat in held and action.type is ActionType.DECLARE):
            raise
    events: list[Event] = []
    for seat in held:
        answer = rnd.timeout_action(seat)  # Z20: 不报, as a timeout answers a panel
        assert answer is not None, "a held declaration always has an answer"
        events.extend(rnd.apply(answer))
    events.extend(rnd.apply(action))
    return events


def replay(data: Mapping[str, Any]) -> Round:
    """Rebuild a round from its record. Raises :class:`RecordError` at the first bad action."""
    rnd = load_round(data)
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("'actions' must be a list")
    for index, raw in enumerate(actions):
        try:
            action = Action.from_json(raw)
        except RecordError as exc:
            raise RecordError(f"action #{index}: {exc}", index=index) from exc
        try:
            apply_recorded(rnd, action)
        except IllegalActionError as exc:
            raise RecordError(
                f"action #{index} ({action}) is illegal: {exc.message} [{exc.code}]", index=index
            ) from exc
    return rnd

