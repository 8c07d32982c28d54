"""Starting a room's match and dealing its first hand, as the seats' pages would."""

from __future__ import annotations

import secrets

from apps.clubs.models import Room
from apps.matches import services
from apps.matches.models import Match


def match_start_dealt(room: Room) -> Match:
    """Start the room's match and deal its first hand (:func:`first_hand_contribute`)."""
    return first_hand_contribute(services.match_start(room=room))


def first_hand_contribute(match: Match) -> Match:
    """Have every human seat of a just-started match contribute to the first hand's wall
    (what each seat's table page does on its first frame), so hand 1 is dealt now."""
    for player in match.players.filter(computer=False).order_by("seat"):
        services.match_act(match_id=match.pk, user_id=player.user_id, payload={
            "type": "contribute", "hand": 1, "value": secrets.token_hex(32),
        })
    match.refresh_from_db()
    assert match.stage == Match.Stage.HAND, "hand 1 was not dealt"
    return match
