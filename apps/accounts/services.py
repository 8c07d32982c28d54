"""Writes of the accounts app."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from .models import User

LAST_SEEN_EVERY = timedelta(minutes=1)
"""``last_seen`` is written at most this often per player."""


def user_last_seen_update(*, user_id: int, now: datetime | None = None) -> bool:
    """Record that the player was seen now, unless that was already recorded within
    :data:`LAST_SEEN_EVERY`; return whether a row was written.

    One conditional ``UPDATE`` (no read): cheap enough to call on every request, or from a
    table connection's heartbeat.
    """
    now = now or timezone.now()
    return bool(
        User.objects.filter(pk=user_id)
        .filter(Q(last_seen__isnull=True) | Q(last_seen__lt=now - LAST_SEEN_EVERY))
        .update(last_seen=now)
    )
