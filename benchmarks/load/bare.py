"""The bare-transport reference: a consumer that relays each message to a group of 4.

No authentication, no database: receive a text frame, ``group_send`` it to the
connection's group, and forward what the group receives. Its throughput is the ceiling
for any Channels app on the same machine and channel layer.
"""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path

RELAY_EVENT = "bench.relay"


class BareConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    """Join the group named in the URL; broadcast every received frame to it."""

    async def connect(self) -> None:
        """Join ``bench_<group>`` and accept."""
        self.group = "bench_" + self.scope["url_route"]["kwargs"]["group"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        """Leave the group."""
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Broadcast the frame to the group (the sender included)."""
        await self.channel_layer.group_send(self.group, {"type": RELAY_EVENT, "text": text_data})

    async def bench_relay(self, event: dict[str, Any]) -> None:
        """Forward a broadcast frame to the client."""
        await self.send(text_data=event["text"])


websocket_urlpatterns = [path("ws/bench/<slug:group>/", BareConsumer.as_asgi())]
