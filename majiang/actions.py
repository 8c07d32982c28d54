"""Actions a seat can take, and the events that applying them produces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from majiang.errors import RecordError
from majiang.tiles import NotationError, Tile, parse_tile

__all__ = ["Action", "ActionType", "Event"]


def _short(value: object) -> str:
    """``value`` as written, cut to 20 characters, for messages that quote bad input."""
    text = repr(value)
    return text if len(text) <= 20 else text[:19] + "…"


class ActionType(StrEnum):
    """What a seat does.

    ``KONG`` is resolved by context: on your own turn a concealed or added kong, on a discard
    an exposed kong. ``WIN`` likewise means self-draw, a win on a discard, or robbing a kong.
    ``DECLARE`` is a declaration of ready (报叫) made before the first discard; a declaration
    made with a discard is ``DISCARD`` with ``declare`` set. ``DECLARE`` also answers an open
    报杠 panel (Z20): with ticks it is 报杠, without ticks 不报.
    """

    DISCARD = "discard"
    PUNG = "pung"
    KONG = "kong"
    WIN = "win"
    PASS = "pass"
    DECLARE = "declare"


@dataclass(frozen=True, slots=True)
class Action:
    """One decision by one seat.

    ``ticks`` belongs to a declaration: the tiles ticked for 报杠, or ``None``. A declaration
    without ticks is 不报 when the seat has no triplet to offer; otherwise it opens the 报杠
    panel, which the seat's next ``DECLARE`` answers (see :meth:`Round.legal_actions`).
    """

    type: ActionType
    seat: int
    tile: Tile | None = None
    declare: bool = False
    ticks: tuple[Tile, ...] | None = None

    def without_ticks(self) -> Action:
        """The same action with no 报杠 choice, for matching against legal actions."""
        return replace(self, ticks=None) if self.ticks is not None else self

    def to_json(self) -> dict[str, Any]:
        """The action as a JSON object (the record format's action entry)."""
        out: dict[str, Any] = {"seat": self.seat, "type": self.type.value}
        if self.tile is not None:
            out["tile"] = self.tile.code
        if self.declare:
            out["declare"] = True
        if self.ticks is not None:
            out["ticks"] = [t.code for t in self.ticks]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """Read an action written by :meth:`to_json`. Raises :class:`RecordError`.

        The messages are Chinese and end with a stable code in brackets (``[bad_action]``).
        """
        if not isinstance(data, Mapping):
            raise RecordError(f"动作必须是 JSON 对象, 得到 {_short(data)}", code="bad_action")
        for name in ("type", "seat"):
            if name not in data:
                raise RecordError(f"动作缺少 {name!r} 字段", code="bad_action")
        try:
            kind = ActionType(data["type"])
        except ValueError as exc:
            known = ", ".join(t.value for t in ActionType)
            raise RecordError(
                f"未知的动作类型 {_short(data['type'])} (可用: {known})", code="bad_action"
            ) from exc
        seat = data["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise RecordError(f"seat 必须是整数, 得到 {_short(seat)}", code="bad_action")
        declare = data.get("declare", False)
        if not isinstance(declare, bool):
            raise RecordError(
                f"declare 必须是 true 或 false, 得到 {_short(declare)}", code="bad_action"
            )
        ticks_raw = data.get("ticks")
        if ticks_raw is not None and not isinstance(ticks_raw, list):
            raise RecordError(f"ticks 必须是牌的列表, 得到 {_short(ticks_raw)}", code="bad_action")
        try:
            tile = parse_tile(data["tile"]) if data.get("tile") is not None else None
            ticks = tuple(parse_tile(t) for t in ticks_raw) if ticks_raw is not None else None
        except NotationError as exc:
            raise RecordError(str(exc), code="bad_tile") from exc
        return cls(kind, seat, tile, declare, ticks)

    def __str__(self) -> str:
        parts = [f"座位{self.seat} {self.type.value}"]
        if self.tile is not None:
            parts.append(self.tile.code)
        if self.declare:
            parts.append("+declare")
        if self.ticks is not None:
            parts.append("ticks=" + "".join(t.code for t in self.ticks))
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as a seat may learn it.

    ``tile`` and ``secret`` are private to ``seat`` when ``private`` is set (a draw, the tiles
    ticked for 报杠); every other viewer gets them blanked (:func:`logged_for_viewer`). An event
    with an ``audience`` seat is for that seat alone (a claim decision while others decide).
    """

    type: str
    seat: int | None = None
    tile: Tile | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    private: bool = False
    secret: Mapping[str, Any] = field(default_factory=dict)
    audience: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The event in full as a JSON object: for its log and its own seat, never for
        sending to others (see :func:`logged_for_viewer`)."""
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.tile is not None:
            out["tile"] = self.tile.code
        out.update(self.data)
        out.update(self.secret)
        return out

    def to_log(self) -> dict[str, Any]:
        """The event as a match log keeps it: the public part (private tile and secrets
        blanked), and for a private event the full event beside it."""
        out: dict[str, Any] = {
            "public": replace(self, tile=None, secret={}).to_json() if self.private
            else self.to_json()
        }
        if self.private:
            out["private"] = True
            out["full"] = self.to_json()
        if self.audience is not None:
            out["audience"] = self.audience
        return out


def logged_for_viewer(logged: Mapping[str, Any], viewer: int | None) -> dict[str, Any] | None:
    """A logged event (:meth:`Event.to_log`) as ``viewer`` (a seat, or ``None`` for a
    spectator) may see it: ``None`` when the event is for another seat alone; the full
    event for its own seat; otherwise its public part. The one privacy rule for events."""
    audience = logged.get("audience")
    if audience is not None and viewer != audience:
        return None
    if logged.get("private") and viewer is not None and viewer == logged["full"].get("seat"):
        return dict(logged["full"])
    return dict(logged["public"])
