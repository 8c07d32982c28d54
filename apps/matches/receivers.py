"""Signal receivers: start a match when the clubs app reports a room all ready."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from apps.clubs.models import Room
from apps.clubs.signals import room_all_ready

from .services import match_start


@receiver(room_all_ready, sender=Room, dispatch_uid="matches.start_on_all_ready")
def start_match_when_all_ready(sender: type[Room], room: Room, **kwargs: Any) -> None:
    """Start the room's match in the clubs app's transaction."""
    match_start(room=room)
