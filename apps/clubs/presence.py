"""Who has a club open: members with the club page or one of its room lobbies in view.

Each open lobby socket marks its user online in its club for :data:`TTL_SECONDS` and
refreshes the mark with every heartbeat; a closed page's mark simply expires (so moving from
the club page to a room never shows the player offline in between). Marks live in the
Django cache (Redis in production, shared by every process) under
``online:club:<club>:<user>``, so counting a club's online members is one multi-get of its
member IDs. Presence is advisory: a cache
that cannot be reached reports nobody online and never fails a page.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from django.core.cache import cache

logger = logging.getLogger(__name__)

TTL_SECONDS = 60
"""A mark not refreshed for this long has expired: the member counts as gone."""
HEARTBEAT_SECONDS = 20
"""How often an open lobby page refreshes its mark."""


def _key(club_id: int, user_id: int) -> str:
    return f"online:club:{club_id}:{user_id}"


def presence_mark(*, club_id: int, user_id: int) -> bool:
    """Mark the user online in the club for the next :data:`TTL_SECONDS`; return whether
    they were offline before (so that the lobbies are told)."""
    key = _key(club_id, user_id)
    try:
        if cache.add(key, time.time(), timeout=TTL_SECONDS):
            return True
        cache.set(key, time.time(), timeout=TTL_SECONDS)
    except Exception:  # advisory: any cache failure leaves the page working
        logger.warning("presence: could not mark user %s in club %s", user_id, club_id)
    return False


def online_user_ids(*, club_id: int, user_ids: Iterable[int]) -> set[int]:
    """Which of ``user_ids`` are online in the club."""
    keys = {_key(club_id, user_id): user_id for user_id in user_ids}
    if not keys:
        return set()
    try:
        found = cache.get_many(list(keys))
    except Exception:
        logger.warning("presence: could not read club %s", club_id)
        return set()
    return {keys[key] for key in found}
