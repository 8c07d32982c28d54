"""Re-pointing the test process's Celery app at another broker or default queue."""

from __future__ import annotations

from typing import Any

from config.celery import app

_AMQP_CACHES = ("queues", "router", "default_queue", "default_exchange")


def celery_repoint(**conf: Any) -> dict[str, Any]:
    """Update the app's configuration and forget everything it built from the old one:
    pooled connections and producers, the queue set, router and exchange, and the result
    backend. Returns the previous values, to pass back later."""
    previous = {key: app.conf[key] for key in conf}
    # The app reads Django settings with the CELERY namespace; Celery < 5.7 then prefers the
    # namespaced key (CELERY_TASK_DEFAULT_QUEUE) over the plain one, so set both.
    app.conf.update(**conf, **{f"CELERY_{key.upper()}": value for key, value in conf.items()})
    app._pool = None
    app.amqp._producer_pool = None
    for cached in _AMQP_CACHES:
        app.amqp.__dict__.pop(cached, None)
    app._local.__dict__.pop("backend", None)
    return previous
