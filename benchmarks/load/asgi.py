"""ASGI application of the benchmark's daphne processes.

The platform's application (:mod:`config.asgi`) unchanged, plus the bare-transport
consumer at ``ws/bench/<group>/`` and the counters and garbage-collection endpoints
(:mod:`.instrument`).
``BENCH_UNLIMITED_RATE=1`` lifts the per-connection message rate limit,
``BENCH_UNLIMITED_SOCKETS=1`` the limit of table connections per account and address.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.load.settings")

from channels.routing import URLRouter

from config.asgi import application as platform

from . import bare, instrument

instrument.install(unlimited_rate=os.environ.get("BENCH_UNLIMITED_RATE") == "1",
                   unlimited_sockets=os.environ.get("BENCH_UNLIMITED_SOCKETS") == "1")
_bare = URLRouter(bare.websocket_urlpatterns)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Route the benchmark's own paths; everything else goes to the platform."""
    if scope["type"] == "websocket" and scope["path"].startswith("/ws/bench/"):
        await _bare(scope, receive, send)
    elif scope["type"] == "http" and scope["path"] in (instrument.STATS_PATH,
                                                        instrument.GC_PATH):
        await instrument.stats_app(scope, receive, send)
    else:
        await platform(scope, receive, send)
