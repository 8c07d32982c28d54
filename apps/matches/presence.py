"""Who is connected to a match's table, per seat, shared by every daphne process (Redis).

Each seat has a sorted set ``presence:match:<id>:seat:<n>`` whose members are the channel
names of that seat's open connections, scored by when they expire. A connection adds itself
on connect, refreshes its score every ``PRESENCE_HEARTBEAT_SECONDS`` and removes itself on
disconnect (durations and clock: :mod:`apps.matches.pacing`). A seat is *connected* while it
has a member that has not expired, so a killed process leaves its seats online for at most
``PRESENCE_TTL_SECONDS``; whichever connection of the match next sends a heartbeat
(:func:`presence_heartbeat`) prunes the dead members and reports the change.

Presence is advisory (it never affects the rules): every function here is fail-soft and
reports ``None`` / no change when Redis cannot be reached.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

import redis
from django.conf import settings

from .pacing import PRESENCE_TTL_SECONDS
from .pacing import now as clock_now

logger = logging.getLogger(__name__)

_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()


def _redis() -> redis.Redis:
    """A client for ``settings.REDIS_URL`` (one connection pool per URL and process)."""
    url = settings.REDIS_URL
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            _clients[url] = client
    return client


def presence_key(match_id: int, seat: int) -> str:
    """The Redis key of one seat's open connections."""
    return f"presence:match:{match_id}:seat:{seat}"


def _now(now: float | None) -> float:
    return clock_now().timestamp() if now is None else now


def presence_join(match_id: int, seat: int, connection: str, *, now: float | None = None) -> bool:
    """Record an open connection of a seat; return whether the seat was offline before."""
    now, key = _now(now), presence_key(match_id, seat)
    try:
        pipe = _redis().pipeline()
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zcard(key)
        pipe.zadd(key, {connection: now + PRESENCE_TTL_SECONDS})
        pipe.expire(key, int(PRESENCE_TTL_SECONDS * 2))
        _, before, *_ = pipe.execute()
    except redis.RedisError:
        logger.warning("presence: join failed for match %s seat %s", match_id, seat)
        return False
    return int(before) == 0


def presence_leave(match_id: int, seat: int, connection: str, *, now: float | None = None) -> bool:
    """Forget a closed connection; return whether that left the seat offline."""
    now, key = _now(now), presence_key(match_id, seat)
    try:
        pipe = _redis().pipeline()
        pipe.zrem(key, connection)
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zcard(key)
        removed, _, after = pipe.execute()
    except redis.RedisError:
        logger.warning("presence: leave failed for match %s seat %s", match_id, seat)
        return False
    return bool(removed) and int(after) == 0


def presence_heartbeat(
    match_id: int, seat: int, connection: str, seats: Iterable[int], *,
    now: float | None = None,
) -> bool:
    """Push back the expiry of an open connection of ``seat``, and drop the expired
    connections of the match's ``seats``; return whether that left a seat offline.

    One Redis round trip: every live connection runs this every
    ``PRESENCE_HEARTBEAT_SECONDS``.
    """
    now, key = _now(now), presence_key(match_id, seat)
    seats = list(seats)
    try:
        pipe = _redis().pipeline()
        pipe.zadd(key, {connection: now + PRESENCE_TTL_SECONDS})
        pipe.expire(key, int(PRESENCE_TTL_SECONDS * 2))
        for other in seats:
            pipe.zremrangebyscore(presence_key(match_id, other), "-inf", now)
            pipe.zcard(presence_key(match_id, other))
        results = pipe.execute()[2:]
    except redis.RedisError:
        logger.warning("presence: heartbeat failed for match %s seat %s", match_id, seat)
        return False
    pairs = zip(results[::2], results[1::2], strict=True)
    return any(int(removed) and not int(left) for removed, left in pairs)


def seats_connected(
    match_id: int, seats: Iterable[int], *, now: float | None = None
) -> dict[int, bool] | None:
    """Whether each seat has a live connection, or ``None`` if Redis cannot be reached."""
    now = _now(now)
    seats = list(seats)
    try:
        pipe = _redis().pipeline()
        for seat in seats:
            pipe.zcount(presence_key(match_id, seat), now, "+inf")
        counts = pipe.execute()
    except redis.RedisError:
        logger.warning("presence: read failed for match %s", match_id)
        return None
    return {seat: int(count) > 0 for seat, count in zip(seats, counts, strict=True)}
