"""Replays (战绩回放) of settled hands: full-state frames, the seed check, share links.

Frames are computed on the server from the hand's game record with the rules package: the
state before any action, then after each action, with every seat's concealed tiles. They
exist only for settled hands (the selectors refuse anything else), so a running hand's
hidden tiles can never leak through a replay.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils import timezone

from apps.clubs.selectors import variant_name
from apps.matches.models import Hand
from majiang import Action, get_variant
from majiang.record import apply_recorded, load_round
from majiang.round import Round
from majiang.wall import full_set, shuffled

from .selectors import hand_lines_in_words, replay_share_token, seat_names
from .words import tile_name

__all__ = ["hand_replay", "replay_share_token", "seed_check"]

ACTION_WORDS = {
    "discard": "打出", "pung": "碰", "kong": "杠", "win": "胡", "pass": "过", "declare": "报叫",
}


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
        })
    return {
        "phase": snap["phase"],
        "turn": snap["turn"],
        "wall_remaining": rnd.wall.remaining,
        "seats": seats,
        **public,
    }


def _describe(
    action: Action, names: dict[int, str], variant_id: str, *, panel_answer: bool = False
) -> str:
    if panel_answer:  # Z20: the answer to an open 报杠 panel
        ticks = " ".join(tile_name(t.code) for t in action.ticks or ())
        return f"{names[action.seat]} " + (f"报杠[{ticks}]" if ticks else "不报")
    word = ACTION_WORDS[action.type.value]
    if action.type.value == "declare" and variant_id == "duyun":
        word = "报听"
    text = f"{names[action.seat]} {word}"
    if action.tile is not None:
        text += f" {tile_name(action.tile.code)}"
    if action.declare:
        text += " 并报叫" if variant_id != "duyun" else " 并报听"
    if action.ticks is not None:
        text += " 报杠[" + " ".join(tile_name(t.code) for t in action.ticks) + "]"
    return text


def hand_replay(hand: Hand) -> dict[str, Any]:
    """Everything the replay page shows, for a settled hand the caller may see."""
    record = hand.record or {}
    names = seat_names(hand.match)
    rnd = load_round(record)
    frames = [{"step": 0, "action": None, "text": "发牌", "state": _state(rnd)}]
    for step, raw in enumerate(record.get("actions", []), start=1):
        action = Action.from_json(raw)
        panel_answer = action.seat in rnd.pending_declarations
        apply_recorded(rnd, action)
        frames.append({
            "step": step,
            "action": raw,
            "text": _describe(action, names, record["variant"], panel_answer=panel_answer),
            "state": _state(rnd),
        })
    settlement = hand.settlement or {}
    return {
        "hand": {
            "id": hand.pk, "number": hand.number, "match": hand.match_id,
            "dealer": hand.dealer, "streak": hand.streak,
            # In TIME_ZONE, as every timestamp of the API (DRF's DateTimeField) is.
            "ended_at": timezone.localtime(hand.ended_at).isoformat() if hand.ended_at else None,
        },
        "variant": record.get("variant"),
        "variant_name": variant_name(str(record.get("variant"))),
        "players": [{"seat": s, "name": n} for s, n in sorted(names.items())],
        "frames": frames,
        "settlement": settlement,
        "lines": [row["text"] for row in hand_lines_in_words(hand)],
        "fanji": (settlement.get("summary") or {}).get("fanji"),
        "seed": seed_check(hand),
    }
