"""A stand-in for the table WebSocket, for browser tests of the page alone.

It runs a real :class:`majiang.Round` in the test process and answers the page through
Playwright's ``route_web_socket`` with frames shaped like ``apps.matches.frames``
(``snapshot``/``update`` with ``observation`` and ``table``; ``error {code, message}``), so
the page's rendering can be checked on exact positions without timers or other processes.
The end-to-end tests (``test_play.py``) use the real server instead.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from majiang import Action, ActionType, IllegalActionError, Round, Tile
from majiang.tiles import parse_tile

WS_PATTERN = re.compile(r".*/ws/rooms/[^/]+/$")
NAMES = ["张三", "李四", "王五", "赵六"]


UNAVAILABLE = {"type": "error", "code": "unavailable", "v": None,
               "message": "服务器暂时无法保存操作，正在重连，请稍后再试"}


class FakeTable:
    """One room's table: a round, its version, and the pages watching it."""

    def __init__(self, rnd: Round, *, names: list[str] | None = None,
                 computers: frozenset[int] = frozenset(), booked: bool = True) -> None:
        self.rnd = rnd
        self.names = names or NAMES[: rnd.players]
        self.computers = computers
        """Computer seats (电脑补位): a match with any is not booked (``booked``)."""
        self.booked = booked
        self.version = 1
        self.routes: list[tuple[Any, int | None]] = []
        self.sent: list[dict[str, Any]] = []
        self.connected: set[int] = set()
        self.deadline_ms = int(time.time() * 1000) + 15_000
        # The match around the round: presence, hand numbers, readiness, 解散, the end.
        self.presence: list[bool | None] = [True] * rnd.players
        self.hand = 1
        self.hands_total = 8
        self.status = "playing"
        self.ready: list[int] = []
        self.dissolve: dict[str, Any] | None = None
        self.match_totals = [0] * rnd.players
        self.auto: set[int] = set()
        """Seats in 托管 (they act by ``auto_deadline_ms``)."""
        self.auto_deadline_ms: int | None = None
        self.last_settlement: dict[str, Any] | None = None
        self.outage = False
        """While set, every message is answered as a server without its database would."""
        self.offline = False
        """While set, the open sockets hear nothing and answer nothing, and new ones fail:
        a phone that lost its signal."""

    def attach(self, page: Any, viewer: int | None) -> None:
        """Answer ``page``'s table socket as ``viewer`` (a seat, or None for a spectator)."""

        def handler(ws: Any) -> None:
            if self.offline:  # the connection fails as with no network
                ws.close()
                return
            self.routes.append((ws, viewer))
            ws.on_message(lambda message: self._receive(ws, viewer, message))
            ws.on_close(lambda *_: self._closed(ws))

        page.route_web_socket(WS_PATTERN, handler)

    def _closed(self, ws: Any) -> None:
        self.routes = [(w, v) for w, v in self.routes if w is not ws]

    def table(self) -> dict[str, Any]:
        """The ``table`` part of a frame."""
        over = self.status != "playing"
        played = self.hand if self.rnd.ended else self.hand - 1
        totals = list(self.match_totals)
        if self.rnd.ended:
            totals = [a + b for a, b in zip(totals, self.rnd.settlement().totals, strict=True)]
        return {
            "match": 1,
            "status": self.status,
            "stage": "over" if over else "between" if self.rnd.ended else "hand",
            "hand": self.hand,
            "hands_total": self.hands_total,
            "hands_played": played,
            "totals": totals,
            "booked": self.booked,
            "deadline": None if over else self.deadline_ms,  # between hands: the next deal
            "players": [
                {
                    "seat": s,
                    "name": n,
                    "connected": self.presence[s],
                    "auto_play": s in self.auto,
                    "computer": s in self.computers,
                    "timeouts": 0,
                }
                for s, n in enumerate(self.names)
            ],
            "ready": list(self.ready),
            "dissolve": self.dissolve,
            "auto_deadline": self.auto_deadline_ms,
            "paused_left": None,
        }

    def frame(
        self, kind: str, viewer: int | None, events: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """A snapshot or update frame for ``viewer`` (an update with ``events``)."""
        out: dict[str, Any] = {
            "type": kind,
            "v": self.version,
            "observation": self.rnd.observation(viewer),
            "table": self.table(),
        }
        if kind == "snapshot":
            out["seat"] = viewer
            out["last_settlement"] = self.last_settlement
        else:
            out["from"] = self.version - 1
            out["events"] = [{**e, "v": self.version} for e in events or []]
        return out

    def _send(self, ws: Any, frame: dict[str, Any]) -> None:
        if not self.offline:
            ws.send(json.dumps(frame, ensure_ascii=False))

    def _receive(self, ws: Any, viewer: int | None, message: str | bytes) -> None:
        data = json.loads(message)
        self.sent.append({"viewer": viewer, **data})
        if self.offline:
            return
        if data["type"] == "ping":
            self._send(ws, {"type": "pong"})
            return
        if self.outage:
            self._send(ws, UNAVAILABLE)
            return
        if data["type"] == "hello":
            self._send(ws, self.frame("snapshot", viewer))
            return
        if viewer is None:
            self._send(
                ws, {"type": "error", "code": "not_seated", "message": "你不是本桌玩家，不能操作"}
            )
            return
        if data["type"] == "ready_next":
            if viewer not in self.ready:
                self.ready.append(viewer)
            self.version += 1
            self.broadcast()
            return
        if data["type"] == "resume":
            self.auto.discard(viewer)
            self.version += 1
            self.broadcast()
            return
        if data["type"] == "phrase":
            for other, _ in list(self.routes):
                self._send(other, {"type": "phrase", "v": self.version, "seat": viewer,
                                   "phrase": data["phrase"], "text": "不好意思，网卡了"})
            return
        if data["type"] == "dissolve_propose":
            self.propose(viewer)
            return
        if data["type"] == "dissolve_vote":
            self.vote(viewer, bool(data["agree"]))
            return
        try:
            ticks = data.get("ticks")
            action = Action(
                ActionType(data["type"]),
                viewer,
                parse_tile(data["tile"]) if data.get("tile") else None,
                bool(data.get("declare", False)),
                tuple(parse_tile(t) for t in ticks) if ticks is not None else None,
            )
            self.rnd.apply(action)
        except IllegalActionError as exc:
            self._send(ws, {"type": "error", "code": exc.code, "message": exc.message})
            return
        except ValueError as exc:
            self._send(ws, {"type": "error", "code": "malformed", "message": str(exc)})
            return
        self.version += 1
        self.broadcast()

    def refuse_unavailable(self) -> None:
        """Answer every page as if its last move had found the database unreachable."""
        for ws, _ in list(self.routes):
            self._send(ws, UNAVAILABLE)

    def broadcast(self, events: list[dict[str, Any]] | None = None) -> None:
        """Send every watching page its update (with the table's ``events``)."""
        for ws, viewer in list(self.routes):
            self._send(ws, self.frame("update", viewer, events))

    def propose(self, seat: int) -> None:
        """解散 proposed by ``seat`` (who agrees by proposing)."""
        self.dissolve = {
            "proposer": seat,
            "votes": {str(seat): True},
            "deadline": int(time.time() * 1000) + 60_000,
        }
        self.version += 1
        self.broadcast()

    def vote(self, seat: int, agree: bool) -> None:
        """A vote on the open proposal: any refusal ends it, all agreeing dissolves."""
        assert self.dissolve is not None
        self.dissolve["votes"][str(seat)] = agree
        events = [{"type": "dissolve_vote", "seat": seat, "agree": agree}]
        if not agree:
            self.dissolve = None
            events.append({"type": "dissolve_failed", "seat": seat, "reason": "refused"})
        elif len(self.dissolve["votes"]) == self.rnd.players:
            self.dissolve = None
            self.status = "dissolved"
            events.append({"type": "dissolve_passed"})
        self.version += 1
        self.broadcast(events)

    def next_hand(self, rnd: Round) -> None:
        """Deal the next hand (the previous one's totals carried into the match's)."""
        if self.rnd.ended:
            totals = self.rnd.settlement().totals
            self.last_settlement = {"hand": self.hand,
                                    "settlement": self.rnd.settlement().to_json()}
            self.match_totals = [a + b for a, b in zip(self.match_totals, totals, strict=True)]
        self.rnd = rnd
        self.hand += 1
        self.ready = []
        self.version += 1
        self.broadcast()

    def send_presence(self, seat: int, connected: bool | None) -> None:
        """The unversioned ``presence`` frame, as the server sends it."""
        self.presence[seat] = connected
        players = [{"seat": s, "connected": c} for s, c in enumerate(self.presence)]
        for ws, _viewer in list(self.routes):
            self._send(ws, {"type": "presence", "v": self.version, "players": players})

    def play_until(self, stop: Any, limit: int = 400) -> None:
        """Advance the round with a simple policy (win, else pass, else last legal action)
        until ``stop(rnd)`` holds; then tell the pages."""
        for _ in range(limit):
            if self.rnd.ended or stop(self.rnd):
                break
            seat = self.rnd.pending()[0]
            legal = self.rnd.legal_actions(seat)
            pick = next((a for a in legal if a.type is ActionType.WIN), None)
            pick = pick or next((a for a in legal if a.type is ActionType.PASS), None)
            pick = pick or next((a for a in legal if a.type is ActionType.DECLARE), None)
            if pick is None:
                pick = [a for a in legal if not a.declare][-1]
            if pick.type is ActionType.DECLARE:
                pick = Action(pick.type, seat, pick.tile, pick.declare, None)
            self.rnd.apply(pick)
            self.version += 1
        self.broadcast()


def concealed_codes(rnd: Round, seat: int) -> list[str]:
    """A seat's concealed tiles (for leak checks)."""
    return [t.code for t in rnd.seats[seat].concealed()]


__all__ = ["NAMES", "FakeTable", "Tile", "concealed_codes"]
