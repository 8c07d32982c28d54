"""A small fixed-window rate limiter on the Django cache, keyed by client IP.

Used for registration (logins are limited by django-axes). With several web processes
the cache must be shared (Redis) for the limit to be global; with the default
per-process cache each process counts on its own.
"""

from __future__ import annotations

from django.core.cache import cache
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """The client's address as the server saw it."""
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def rate_limit_exceeded(*, scope: str, key: str, limit: int, window_seconds: int) -> bool:
    """Count one attempt for ``key`` in ``scope``; True once it is over ``limit`` per window."""
    cache_key = f"ratelimit:{scope}:{key}"
    cache.add(cache_key, 0, timeout=window_seconds)
    try:
        attempts = cache.incr(cache_key)
    except ValueError:  # expired between add() and incr()
        cache.set(cache_key, 1, timeout=window_seconds)
        attempts = 1
    return attempts > limit
