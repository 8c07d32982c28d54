"""Project-level WebSocket consumers."""

from channels.generic.websocket import AsyncWebsocketConsumer


class PingConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    """Echo every text frame back; proves the websocket stack end to end."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Send the received frame straight back."""
        await self.send(text_data=text_data, bytes_data=bytes_data)
