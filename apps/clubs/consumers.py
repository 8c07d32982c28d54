"""The live room lobby: members watch seats and ready states change without reloading."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.core.groups import user_group

from .broadcast import lobby_group_name
from .errors import ClubNotFound
from .models import Room
from .selectors import lobby_state, room_get_for_member

NOT_FOUND_CLOSE_CODE = 4404
FORBIDDEN_CLOSE_CODE = 4403


class LobbyConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    """``ws/rooms/<code>/lobby/``: sends ``{"type": "lobby", "state": ...}`` on connect and
    after every committed seat change. Only members of the room's club may connect.

    Seat changes themselves go through the API (the same services), not this socket.
    """

    group_name: str | None = None

    async def connect(self) -> None:
        """Accept club members and send them the current lobby; refuse everyone else."""
        code = self.scope["url_route"]["kwargs"]["code"]
        found = await self._room_and_state(code)
        if found is None:
            # Accepted first: a close before the accept reaches the browser as HTTP 403.
            await self.accept()
            await self.close(code=NOT_FOUND_CLOSE_CODE)
            return
        room_id, state = found
        self.group_name = lobby_group_name(room_id)
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.channel_layer.group_add(user_group(self.scope["user"].pk), self.channel_name)
        await self.accept()
        await self.send_json({"type": "lobby", "state": state})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The lobby takes no messages (seat changes go through the API); anything that is
        not JSON text gets an error frame instead of an internal error."""
        if text_data is None:
            await self.send_json(
                {"type": "error", "code": "malformed", "message": "大厅连接只接受 JSON 文本消息"}
            )
            return
        try:
            await self.receive_json(await self.decode_json(text_data))
        except (ValueError, RecursionError):
            await self.send_json(
                {"type": "error", "code": "malformed", "message": "消息不是有效的 JSON"}
            )

    async def disconnect(self, code: int) -> None:
        """Stop receiving the lobby's updates."""
        if self.group_name is not None:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)
            await self.channel_layer.group_discard(
                user_group(self.scope["user"].pk), self.channel_name
            )

    async def access_changed(self, event: dict[str, Any]) -> None:
        """Access may have ended (:data:`apps.core.groups.ACCESS_EVENT`): check it again;
        close with 4403 when the user is no longer a member, 4404 when the room closed."""
        code = self.scope["url_route"]["kwargs"]["code"]
        found = await self._room_and_state(code)
        if found is None:
            await self.close(code=FORBIDDEN_CLOSE_CODE)
        elif found[1]["status"] == Room.Status.CLOSED:
            await self.close(code=NOT_FOUND_CLOSE_CODE)

    async def lobby_update(self, event: dict[str, Any]) -> None:
        """Forward a broadcast lobby state to the browser."""
        await self.send_json({"type": "lobby", "state": event["state"]})

    @database_sync_to_async  # type: ignore[untyped-decorator]  # channels ships no type information
    def _room_and_state(self, code: str) -> tuple[int, dict[str, Any]] | None:
        try:
            room = room_get_for_member(code=code, user=self.scope.get("user"))
        except ClubNotFound:
            return None
        return room.pk, lobby_state(room)
