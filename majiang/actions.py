"""Actions a seat can take, and the events that applying them produces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from majiang.errors import RecordError
from majiang.tiles import NotationError, Tile, parse_tile

__all__ = ["Action", "ActionType", "Event"]


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
        """Read an action written by :meth:`to_json`. Raises :class:`RecordError`."""
        if not isinstance(data, Mapping):
            raise RecordError(f"action must be an object, got {data!r}")
        try:
            kind = ActionType(data["type"])
            seat = data["seat"]
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise RecordError(f"seat must be an integer, got {seat!r}")
            tile = parse_tile(data["tile"]) if data.get("tile") is not None else None
            ticks_raw = data.get("ticks")
            ticks = None
            if ticks_raw is not None:
                if not isinstance(ticks_raw, list):
                    raise RecordError(f"ticks must be a list, got {ticks_raw!r}")
                ticks = tuple(parse_tile(t) for t in ticks_raw)
            declare = data.get("declare", False)
            if not isinstance(declare, bool):
                raise RecordError(f"declare must be true or false, got {declare!r}")
        except KeyError as exc:
            raise RecordError(f"action is missing {exc.args[0]!r}") from exc
        except NotationError as exc:
            raise RecordError(str(exc)) from exc
        except ValueError as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"unknown action type {data.get('type')!r}") from exc
        return cls(kind, seat, tile, declare, ticks)

    def __str__(self) -> str:
        parts = [f"seat {self.seat} {self.type.value}"]
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
    ticked for 报杠); every other viewer gets them blanked by :meth:`for_viewer`. An event
    with an ``audience`` seat is for that seat alone (a claim decision while others decide).
    """

    type: str
    seat: int | None = None
    tile: Tile | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    private: bool = False
    secret: Mapping[str, Any] = field(default_factory=dict)
    audience: int | None = None

    def for_viewer(self, viewer: int | None) -> Event | None:
        """The event as ``viewer`` (a seat, or ``None`` for a spectator) may see it.

        ``None`` when the event is not for this viewer at all.
        """
        if self.audience is not None and viewer != self.audience:
            return None
        if not self.private or viewer == self.seat:
            return self
        return replace(self, tile=None, secret={})

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object. Call :meth:`for_viewer` first when sending it."""
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.tile is not None:
            out["tile"] = self.tile.code
        out.update(self.data)
        out.update(self.secret)
        return out
