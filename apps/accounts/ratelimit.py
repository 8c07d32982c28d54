"""A small fixed-window rate limiter on the Django cache, keyed by client IP.

Used for registration (logins are limited by django-axes). With several web processes
the cache must be shared (Redis) for the limit to be global; with the default
per-process cache each process counts on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: the peer's, unless the peer is one of ``TRUSTED_PROXIES``;
    then the last address of ``X-Forwarded-For``, the one that proxy saw and wrote.

    Only the proxy's own hop is trusted: whatever a client puts in the header itself
    comes before it (nginx ``$proxy_add_x_forwarded_for``) or is replaced by it (nginx
    ``X-Forwarded-For $remote_addr``, docs/deploy.md). Also django-axes' address
    (``AXES_CLIENT_IP_CALLABLE``). ``None`` for a request with no peer (a test client's
    ``force_login``): axes stores no address then, where PostgreSQL's ``inet`` column
    would refuse a placeholder.
    """
    return _address(request.META.get("REMOTE_ADDR") or None,
                    request.META.get("HTTP_X_FORWARDED_FOR", ""))


def scope_client_ip(scope: Mapping[str, Any]) -> str | None:
    """The client's address of a socket (an ASGI ``scope``), read as :func:`client_ip`
    reads a request's."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    return _address(peer, headers.get(b"x-forwarded-for", b"").decode("latin-1"))


def _address(peer: str | None, forwarded_for: str) -> str | None:
    if peer is None or peer not in settings.TRUSTED_PROXIES:
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",")]
    return next((hop for hop in reversed(hops) if hop), peer)


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
