"""How many table connections one account and one address hold open at once, counted
across every web process (Redis).

The table socket is the platform's costly connection: it follows a match, answers ``hello``
with a snapshot and takes every relayed update. Its own message budget bounds one socket;
this bounds how many one account (phone, tablet, a few tables watched) or one address (a
home or campus network of players) opens. A connection over either limit is closed with
``4429`` before it follows anything; the ones already open are untouched.

Like :mod:`apps.matches.presence`, each account and address has a sorted set of its open
connections' channel names scored by when they expire; a connection refreshes its entry
with its heartbeat, so the connections of a killed process stop counting within
``PRESENCE_TTL_SECONDS``. Fail-open: without Redis nobody is refused.
"""

from __future__ import annotations

import ipaddress
import logging

import redis

from . import presence
from .pacing import PRESENCE_TTL_SECONDS

logger = logging.getLogger(__name__)

SOCKETS_PER_USER = 12
SOCKETS_PER_ADDRESS = 100


def _limits(user_id: int, address: str | None) -> list[tuple[str, int]]:
    """The Redis keys counting this connection, each with its limit. A loopback address
    is not counted: it is this machine (a benchmark, or a proxy missing from
    ``TRUSTED_PROXIES``, which would otherwise put every player behind one address)."""
    limits = [(f"sockets:user:{user_id}", SOCKETS_PER_USER)]
    if address and not _loopback(address):
        limits.append((f"sockets:address:{address}", SOCKETS_PER_ADDRESS))
    return limits


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def sockets_open(*, user_id: int, address: str | None, connection: str,
                 now: float | None = None) -> bool:
    """Count a new connection of ``user_id`` from ``address``; False, and not counted, when
    that passes a limit (two racing for the last place may both be refused)."""
    now, limits = presence._now(now), _limits(user_id, address)
    try:
        pipe = presence._redis().pipeline()
        for key, _ in limits:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {connection: now + PRESENCE_TTL_SECONDS})
            pipe.expire(key, int(PRESENCE_TTL_SECONDS * 2))
            pipe.zcard(key)
        counts = pipe.execute()[3::4]
    except redis.RedisError:
        logger.warning("socket limits: count failed for user %s", user_id)
        return True
    if any(int(count) > limit for count, (_, limit) in zip(counts, limits, strict=True)):
        sockets_close(user_id=user_id, address=address, connection=connection)
        return False
    return True


def sockets_refresh(*, user_id: int, address: str | None, connection: str,
                    now: float | None = None) -> None:
    """Push back the expiry of an open connection (its heartbeat)."""
    now = presence._now(now)
    try:
        pipe = presence._redis().pipeline()
        for key, _ in _limits(user_id, address):
            pipe.zadd(key, {connection: now + PRESENCE_TTL_SECONDS})
            pipe.expire(key, int(PRESENCE_TTL_SECONDS * 2))
        pipe.execute()
    except redis.RedisError:
        logger.warning("socket limits: refresh failed for user %s", user_id)


def sockets_close(*, user_id: int, address: str | None, connection: str) -> None:
    """Stop counting a closed connection."""
    try:
        pipe = presence._redis().pipeline()
        for key, _ in _limits(user_id, address):
            pipe.zrem(key, connection)
        pipe.execute()
    except redis.RedisError:
        logger.warning("socket limits: close failed for user %s", user_id)
