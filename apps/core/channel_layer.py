"""The channel layer: channels_redis' pub/sub layer, which also forgets a closed
connection's channel when the connection ends.

channels_redis forgets a channel (its queue in this process and its Redis subscription)
only when the consumer's wait on it is cancelled. A message that reaches the channel as the
socket closes (a seat's own presence broadcast, another seat's move) ends that wait first,
and the entry then stays for the life of the process (django/channels_redis#276; a review
counted 400 left per 100 matches). :func:`channel_forget`, called by every consumer when
it ends, forgets it whatever happened.
"""

from __future__ import annotations

from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):  # type: ignore[misc]  # channels_redis ships no type information
    """channels_redis' pub/sub layer with :meth:`channel_close`."""

    async def channel_close(self, channel: str) -> None:
        """Forget ``channel``: its queue and its Redis subscription (nothing if the library
        already did)."""
        layer = self._get_layer()
        if layer.channels.pop(channel, None) is not None:
            await layer._get_shard(channel).unsubscribe(channel)


async def channel_forget(consumer: Any) -> None:
    """Forget an ended consumer's channel, on a layer that can (the in-memory layer of the
    fast tests drops its channels by expiry)."""
    close = getattr(consumer.channel_layer, "channel_close", None)
    channel = getattr(consumer, "channel_name", None)
    if close is not None and channel is not None:
        await close(channel)
