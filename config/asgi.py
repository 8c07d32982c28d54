"""ASGI entry point: Django for HTTP, Channels for WebSockets (served by daphne)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the app registry)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from .routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# What is loaded by now (Django, the apps, the rules package) lives as long as the process.
# Frozen out of the cyclic collector's reach, it is no longer walked by every full
# collection: under load those came every half minute or so and paused the event loop for
# 90-170 ms, about half of it spent on these objects (docs/benchmarks.md).
gc.freeze()
# A move builds thousands of short-lived containers (five observations and their frames).
# With the default first threshold (700) young collections ran mid-move and promoted the
# move's live temporaries, whose growth then triggered a full collection every 15-20 s at
# 100 tables (80-110 ms pauses). Collecting the young generation every 20,000 net
# allocations lets them die young; full collections become rare and young ones stay short.
gc.set_threshold(20_000, 20, 20)
