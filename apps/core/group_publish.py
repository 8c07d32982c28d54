"""Sending a message to a channel-layer group from synchronous code, without an event loop.

Every committed change is announced from the thread or process that committed it: a move
process, a move thread, a Celery worker running a timer, a request. There,
``async_to_sync(layer.group_send)`` would start an event loop per call and, since the
pub/sub layer keeps its Redis connections per loop, a new Redis connection too. And handing
the message back to a socket process's event loop to publish puts it behind that loop's
other work and behind channels-redis's per-connection lock, one round trip per publish
(under load that wait reached tens of milliseconds).

:func:`group_publish` instead publishes with one synchronous, pooled Redis client per
process, on the Redis channel and in the encoding that channels-redis's pub/sub layer uses
for the group (``RedisPubSubLoopLayer.group_send``), so every subscribed consumer receives
it as if the layer had sent it. A test checks that against the real layer.

Pub/sub is at most once: a publish that fails (Redis unreachable or too slow) is logged and
dropped, and connections catch up from the match's log by their version check. After a
failure the process stops trying for :data:`RETRY_AFTER_SECONDS`, so that a hung Redis
costs the moves of that second nothing rather than a timeout each.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from typing import Any

import redis
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import RedisError

TIMEOUT_SECONDS = 1.0
"""How long one publish may take. Redis answers in well under a millisecond; a Redis slower
than this is treated as unreachable, and the update reaches clients by their catch-up."""
RETRY_AFTER_SECONDS = 1.0
"""After a failed publish, publishes of the next this many seconds are dropped unsent."""

logger = logging.getLogger(__name__)


class _Publisher:
    """Synchronous Redis clients for one channel layer's hosts, and its failure state."""

    def __init__(self, layer: RedisPubSubChannelLayer, config: dict[str, Any]) -> None:
        self.layer = layer
        self.prefix = config.get("prefix", "asgi")
        self.clients = [_client(host) for host in decode_hosts(config.get("hosts"))]
        self.quiet_until = 0.0

    def publish(self, group: str, message: dict[str, Any]) -> bool:
        now = time.monotonic()
        if now < self.quiet_until:
            return False
        channel = f"{self.prefix}__group__{group}"
        client = self.clients[_consistent_hash(channel, len(self.clients))]
        try:
            client.publish(channel, self.layer.serialize(message))
        except (RedisError, OSError) as error:
            self.quiet_until = now + RETRY_AFTER_SECONDS
            logger.warning("%s: message %s not published (%s); dropping messages for %s s",
                           group, message.get("type"), error, RETRY_AFTER_SECONDS)
            return False
        return True


def _client(host: dict[str, Any]) -> redis.Redis:
    options = {**host, "socket_timeout": TIMEOUT_SECONDS,
               "socket_connect_timeout": min(TIMEOUT_SECONDS,
                                             host.get("socket_connect_timeout", TIMEOUT_SECONDS))}
    address = options.pop("address", None)
    if "master_name" in options:
        raise ImproperlyConfigured("group_publish does not support Redis Sentinel hosts")
    if address is not None:
        return redis.Redis.from_url(address, **options)
    return redis.Redis(**options)


_publishers: weakref.WeakKeyDictionary[RedisPubSubChannelLayer, _Publisher] = (
    weakref.WeakKeyDictionary()
)
_publishers_lock = threading.Lock()


def group_publish(group: str, message: dict[str, Any]) -> bool:
    """Send ``message`` to every consumer in channel-layer ``group``, from sync code.

    Returns whether it was published; a failure is logged, never raised (the change it
    announces is already safe in the database).
    """
    layer = get_channel_layer()
    if not isinstance(layer, RedisPubSubChannelLayer):
        raise ImproperlyConfigured("CHANNEL_LAYERS must use channels_redis's pub/sub layer")
    with _publishers_lock:
        publisher = _publishers.get(layer)
        if publisher is None:
            config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
            publisher = _publishers[layer] = _Publisher(layer, config)
    return publisher.publish(group, message)
