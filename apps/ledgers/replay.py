"""Replays (战绩回放) of settled hands: full-state frames, the seed check, share links.

Frames are computed on the server from the hand's game record with the rules package: the
state before any action, then after each action, with every seat's concealed tiles. They
exist only for settled hands (the selectors refuse anything else), so a running hand's
hidden tiles can never leak through a replay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.selectors import seat_label, variant_name
from apps.matches.models import Hand, MatchPlayer
from majiang import Action, ActionType, Event, get_variant
from majiang.record import apply_recorded, load_round
from majiang.round import Round
from majiang.state import Phase
from majiang.tiles import Tile
from majiang.wall import full_set, shuffled

from .selectors import hand_lines_shown, replay_share_token
from .words import tile_name

__all__ = ["hand_replay", "replay_frames", "replay_share_token", "seed_check"]

ACTION_WORDS = {
    "discard": "打出", "pung": "碰", "kong": "杠", "win": "胡", "pass": "过", "declare": "报叫",
}
KONG_WORDS = {"exposed_kong": "杠", "concealed_kong": "暗杠", "added_kong": "补杠"}
WIN_WORDS = {"self_draw": "自摸", "on_discard": "胡", "robbing_kong": "抢杠胡"}
END_WORDS = {"exhausted": "牌摸完了，荒庄", "win": "本局结束", "last_player": "本局结束"}
QUIET_EVENTS = frozenset(
    {"decided", "claim_window", "rob_window", "declare_window", "turn", "deal", "baogang_panel"}
)
"""Events that are bookkeeping, not something a player did: not narrated."""


def commitment_of(salt: str, seed: str) -> str:
    """sha256(salt + seed) in hex: the commitment published when the hand was dealt."""
    return hashlib.sha256((salt + seed).encode()).hexdigest()


def seed_check(hand: Hand) -> dict[str, Any]:
    """The seed commitment, its reveal, the seats' contributions, and the server's own
    check of them.

    ``commitment_ok``: sha256(salt + seed) equals the commitment stored with the hand.
    ``wall_ok``: shuffling the variant's full tile set (``majiang.wall``) with the wall
    seed, the seed mixed with the contributions, gives the wall the hand was dealt from.
    Both compare the server's rows with each other; the page's own check
    (``static/ledgers/fairness.js``) compares them with what the player's browser saw.
    """
    record = hand.record or {}
    kinds = get_variant(record["variant"]).tile_kinds(record.get("settings") or {})
    wall = [t.code for t in load_round(record).wall.tiles]
    recomputed = [t.code for t in shuffled(full_set(kinds), hand.wall_seed)]
    return {
        "commitment": hand.commitment,
        "salt": hand.salt,
        "seed": hand.seed,
        "contributions": hand.contributions,
        "wall_seed": hand.wall_seed,
        "kinds": [t.code for t in kinds],
        "wall": wall,
        "commitment_ok": commitment_of(hand.salt, hand.seed) == hand.commitment,
        "wall_ok": recomputed == wall and record.get("seed") == hand.wall_seed,
    }


def _state(rnd: Round) -> dict[str, Any]:
    snap = rnd.snapshot()
    public = rnd.variant.public_info(rnd)
    wins: dict[int, dict[str, Any]] = {}
    for win in rnd.wins:
        wins.setdefault(win.seat, {
            "tile": win.tile.code, "source": win.source.value, "from": win.from_seat,
        })
    seats = []
    for seat, s in enumerate(snap["seats"]):
        hand = list(s["hand"])
        if s["drawn"] is not None and s["drawn"] in hand:
            hand.remove(s["drawn"])
        seats.append({
            "seat": seat,
            "hand": hand,
            "drawn": s["drawn"],
            "melds": s["melds"],
            "river": [{"tile": t, "claimed_by": c, "won_by": w} for t, c, w in s["river"]],
            "declared": s["declared"],
            "ticks": s["ticks"],
            "won": s["won"],
            "win": wins.get(seat),
        })
    return {
        "phase": snap["phase"],
        "turn": snap["turn"],
        "wall_remaining": rnd.wall.remaining,
        "seats": seats,
        **public,
    }


class _Narrator:
    """Each recorded action of one hand in words, with what followed from it.

    A step's words are *moves*: the recorded decision first (``main``), then what the
    engine's events say happened because of it (draws, automatic discards, a claim window
    resolving, the end). Whether a decision took effect comes from the events alone: a
    碰, 杠, 胡 or 报叫 made in a window is effective once the event it asks for (``pung``,
    ``kong``, ``win``, ``declare`` by that seat) occurs, and void when its window closes
    without it (a higher claim took the tile, or a 补杠 was robbed).
    """

    def __init__(self, rnd: Round, names: dict[int, str], variant_id: str) -> None:
        self.rnd = rnd
        self.names = names
        self.declare_word = "报听" if variant_id == "duyun" else "报叫"
        self.history: list[Event] = []
        self.pending: list[tuple[dict[str, Any], str, int, object, int, int]] = []
        self.frame = 0

    def move(
        self, seat: int | None, kind: str, verb: str, tiles: Sequence[str] = (), *,
        extra: str = "", main: bool = False,
    ) -> dict[str, Any]:
        """One narrated move; ``text`` is the whole of it as plain words."""
        who = self.names.get(seat, f"{seat + 1}号位") if seat is not None else ""
        text = " ".join(part for part in (who, verb, *map(tile_name, tiles)) if part) + extra
        return {
            "seat": seat, "name": who, "kind": kind, "verb": verb, "tiles": list(tiles),
            "extra": extra, "main": main, "effective": True, "note": "", "text": text,
        }

    def _ticks(self, ticks: Sequence[Tile] | None) -> str:
        if ticks is None:
            return ""
        return "，报杠 " + " ".join(tile_name(t.code) for t in ticks) if ticks else "，不报杠"

    def main_move(self, action: Action) -> tuple[dict[str, Any], str | None]:
        """The recorded decision in words, and the event that shows it took effect."""
        rnd, seat, kind = self.rnd, action.seat, action.type
        window = rnd.window
        if seat in rnd.pending_declarations:  # Z20: the answer to an open 报杠 panel
            ticks = [t.code for t in action.ticks or ()]
            return self.move(seat, "baogang", "报杠" if ticks else "不报杠", ticks, main=True), None
        if kind is ActionType.PASS:
            offered = {a.type for a in window.options.get(seat, ())} if window else set()
            if rnd.phase is Phase.DECLARE:
                verb = f"不{self.declare_word}"
            elif rnd.phase is Phase.ROB:
                verb = "不抢杠"
            elif ActionType.WIN in offered:
                verb = "不胡"
            elif ActionType.KONG in offered and ActionType.PUNG not in offered:
                verb = "不杠"
            else:
                verb = "不碰"
            offer = [window.tile.code] if window and window.tile else []
            return self.move(seat, "pass", verb, offer, main=True), None
        if kind is ActionType.DISCARD:
            assert action.tile is not None
            extra = f"，{self.declare_word}" if action.declare else ""
            extra += self._ticks(action.ticks)
            return self.move(seat, "discard", "打出", [action.tile.code], extra=extra,
                             main=True), "discard"
        if kind is ActionType.PUNG:
            assert action.tile is not None
            return self.move(seat, "pung", "碰", [action.tile.code], main=True), "pung"
        if kind is ActionType.KONG:
            assert action.tile is not None
            if window is not None:
                verb = KONG_WORDS["exposed_kong"]
            elif rnd.seats[seat].hand[action.tile] == 4:
                verb = KONG_WORDS["concealed_kong"]
            else:
                verb = KONG_WORDS["added_kong"]
            return self.move(seat, "kong", verb, [action.tile.code], main=True), "kong"
        if kind is ActionType.WIN:
            if window is not None and window.tile is not None and window.from_seat is not None:
                source = "robbing_kong" if rnd.phase is Phase.ROB else "on_discard"
                feeder = self.names.get(window.from_seat, "")
                extra = f"（{feeder}点炮）" if source == "on_discard" else f"（抢{feeder}的杠）"
                return self.move(seat, "win", WIN_WORDS[source], [window.tile.code],
                                 extra=extra, main=True), "win"
            s = rnd.seats[seat]
            tile = s.drawn if s.drawn is not None else rnd.dealt_last
            tiles = [tile.code] if tile is not None else []
            return self.move(seat, "win", WIN_WORDS["self_draw"], tiles, main=True), "win"
        return self.move(seat, "declare", self.declare_word, extra=self._ticks(action.ticks),
                         main=True), "declare"

    def _void_note(self, seat: int, kind: str, events: Sequence[Event]) -> str:
        """Why a decision did not take effect, from the events of its window."""
        def who(event_type: str) -> list[str]:
            seats = [e.seat for e in events if e.type == event_type and e.seat not in (seat, None)]
            return [self.names.get(s, "") for s in dict.fromkeys(seats) if s is not None]

        winners = who("win")
        if winners and kind == "kong" and any(
            e.type == "win" and e.data.get("source") == "robbing_kong" for e in events
        ):
            return f"（被{'、'.join(winners)}抢杠胡，未生效）"
        if winners:
            return f"（被{'、'.join(winners)}胡抢先，未生效）"
        if who("kong"):
            return f"（被{'、'.join(who('kong'))}杠抢先，未生效）"
        if who("pung"):
            return f"（被{'、'.join(who('pung'))}碰抢先，未生效）"
        return "（未生效）"

    def _void(self, move: dict[str, Any], events: Sequence[Event]) -> None:
        move["effective"] = False
        move["note"] = self._void_note(move["seat"], move["kind"], events)
        move["text"] += move["note"]

    def _derived(self, event: Event, auto: bool, main: dict[str, Any]) -> dict[str, Any] | None:
        seat, tile = event.seat, [event.tile.code] if event.tile is not None else []
        if event.type == "draw":
            verb = "杠后补牌" if event.data.get("replacement") else "摸牌"
            return self.move(seat, "draw", verb, tile)
        if event.type == "discard":
            return self.move(seat, "discard", "自动打出" if auto else "打出", tile)
        if event.type == "kong":
            verb = KONG_WORDS.get(str(event.data.get("kind")), "杠")
            return self.move(seat, "kong", f"自动{verb}" if auto else verb, tile)
        if event.type == "pung":
            return self.move(seat, "pung", "碰", tile)
        if event.type == "win":
            source = str(event.data.get("source"))
            feeder = event.data.get("from")
            extra = f"（{self.names.get(feeder, '')}点炮）" if (
                source == "on_discard" and feeder is not None) else ""
            return self.move(seat, "win", WIN_WORDS.get(source, "胡"), tile, extra=extra)
        if event.type == "declare":
            if main["kind"] == "discard" and main["seat"] == seat and main["extra"]:
                return None  # said with the discard (打出 …，报听)
            ticks = event.secret.get("ticks")
            extra = ""
            if ticks is not None:
                extra = "，报杠 " + " ".join(map(tile_name, ticks)) if ticks else "，不报杠"
            return self.move(seat, "declare", self.declare_word, extra=extra)
        if event.type == "hand_end":
            return self.move(None, "end", END_WORDS.get(str(event.data.get("reason")), "本局结束"))
        if event.type == "luobo":
            return self.move(None, "luobo", "萝卜", [str(t) for t in event.data.get("tiles", [])])
        return None

    def step(self, action: Action) -> list[dict[str, Any]]:
        """Apply ``action`` to the round; its moves in words.

        A move that carries out a decision of an earlier step (the 碰 once the last seat
        passed) names that step in ``resolves``.
        """
        rnd = self.rnd
        self.frame += 1
        main, expect = self.main_move(action)
        events = apply_recorded(rnd, action)
        since = len(self.history)
        self.history.extend(events)

        def hit(kind: str, seat: int) -> int | None:
            return next(
                (i for i, e in enumerate(events) if e.type == kind and e.seat == seat), None
            )

        def still_open(window: object, seat: int) -> bool:
            return (rnd.window is not None and rnd.window is window) or (
                seat in rnd.pending_declarations
            )

        resolved: dict[int, int] = {}
        for entry in list(self.pending):
            move, kind, seat, window, start, frame = entry
            at = hit(kind, seat)
            if at is not None:
                resolved[at] = frame
                self.pending.remove(entry)
            elif not still_open(window, seat):
                self._void(move, self.history[start:])
                self.pending.remove(entry)
        consumed: set[int] = set()
        if expect is not None:
            at = hit(expect, action.seat)
            if at is not None:
                consumed.add(at)
            elif still_open(rnd.window, action.seat):
                self.pending.append((main, expect, action.seat, rnd.window, since, self.frame))
            else:
                self._void(main, events)
        moves = [main]
        auto: set[int] = set()
        for i, event in enumerate(events):
            if event.type == "auto" and event.seat is not None:
                auto.add(event.seat)
                continue
            if i in consumed or event.type in QUIET_EVENTS:
                continue
            derived = self._derived(event, event.seat in auto, main)
            if event.seat in auto and event.type in ("discard", "kong"):
                auto.discard(event.seat)
            if derived is not None:
                if i in resolved:
                    derived["resolves"] = resolved[i]
                moves.append(derived)
        return moves


def _seat_of(hand: Hand, user: User | None) -> int | None:
    if user is None:
        return None
    seats = MatchPlayer.objects.filter(match_id=hand.match_id, user_id=user.pk)
    return seats.values_list("seat", flat=True).first()


def replay_frames(
    record: Mapping[str, Any], names: dict[int, str], *, fanji: str | None = None
) -> list[dict[str, Any]]:
    """The frames of a hand's record: the state before any action, then after each
    recorded action, each with its ``moves`` in words (see :class:`_Narrator`), ``text``
    (the decision's words) and ``merged`` (a pass, shown as part of the step before).
    ``fanji``: the tile turned at the end (都匀), said last."""
    rnd = load_round(record)
    narrator = _Narrator(rnd, names, str(record.get("variant")))
    dealer = narrator.move(rnd.dealer, "deal", "坐庄，发牌", main=True)
    opening = [dealer]
    luobo = rnd.variant.public_info(rnd).get("luobo")
    if luobo:
        opening.append(narrator.move(None, "luobo", "萝卜", [str(t) for t in luobo]))
    frames = [{"step": 0, "action": None, "text": dealer["text"], "moves": opening,
               "state": _state(rnd)}]
    for step, raw in enumerate(record.get("actions", []), start=1):
        moves = narrator.step(Action.from_json(raw))
        frames.append({
            "step": step, "action": raw, "text": moves[0]["text"], "moves": moves,
            "state": _state(rnd),
        })
    if fanji:  # D16: the tile turned at the end
        frames[-1]["moves"].append(narrator.move(None, "fanji", "翻鸡", [fanji]))
    # A pass is no step of its own: it joins the step before (``merged``), and a move that
    # carries out a decision of that same step is not said twice. The words of decisions
    # voided later are final only now.
    group = 0
    for frame in frames:
        action = frame["action"]
        frame["merged"] = action is not None and action["type"] == "pass"
        if not frame["merged"]:
            group = frame["step"]
        frame["moves"] = [m for m in frame["moves"] if m.get("resolves", -1) < group]
        frame["text"] = frame["moves"][0]["text"]
    return frames


def hand_replay(hand: Hand, *, user: User | None = None) -> dict[str, Any]:
    """Everything the replay page shows, for a settled hand the caller may see.

    ``me``: the seat ``user`` played (the page's first point of view), else ``None``;
    ``frames``: see :func:`replay_frames`.
    """
    record = hand.record or {}
    settlement = hand.settlement or {}
    fanji = (settlement.get("summary") or {}).get("fanji")
    seats = {p.seat: p.user for p in MatchPlayer.objects.filter(match=hand.match)
             .select_related("user")}
    names = {seat: str(user) for seat, user in seats.items()}
    frames = replay_frames(record, names, fanji=str(fanji) if fanji else None)
    return {
        "hand": {
            "id": hand.pk, "number": hand.number, "match": hand.match_id,
            "dealer": hand.dealer, "streak": hand.streak,
            # In TIME_ZONE, as every timestamp of the API (DRF's DateTimeField) is.
            "ended_at": timezone.localtime(hand.ended_at).isoformat() if hand.ended_at else None,
        },
        "me": _seat_of(hand, user),
        "variant": record.get("variant"),
        "variant_name": variant_name(str(record.get("variant"))),
        "players": [
            {"seat": s, "name": names[s], "short": seats[s].short_name, "wind": seat_label(s)}
            for s in sorted(seats)
        ],
        "frames": frames,
        "settlement": settlement,
        "lines": [row["text"] for row in hand_lines_shown(hand)],
        "fanji": fanji,
        "seed": seed_check(hand),
    }
