"""Project-level WebSocket consumers."""

from channels.generic.websocket import AsyncWebsocketConsumer


class PingConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    """Echo every text frame back to a logged-in user; proves the websocket stack end to
    end. Anonymous sockets are refused: nothing here is for them."""

    async def connect(self) -> None:
        """Accept a logged-in user's socket only."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Send the received frame straight back."""
        await self.send(text_data=text_data, bytes_data=bytes_data)
