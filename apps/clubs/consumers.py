"""The live lobbies: a room's seats and ready states, and a club's open tables, pushed to
members as changes commit. Each open lobby also keeps its member marked online in the club
(:mod:`apps.clubs.presence`) by a heartbeat from the page."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.core.channel_layer import channel_forget
from apps.core.groups import user_group

from .broadcast import (
    club_broadcast_on_commit,
    club_group_name,
    club_state,
    lobby_broadcast,
    lobby_group_name,
)
from .errors import ClubNotFound
from .models import Room
from .presence import presence_mark
from .selectors import club_get_for_member, lobby_state, room_get_for_member

NOT_FOUND_CLOSE_CODE = 4404
FORBIDDEN_CLOSE_CODE = 4403
MAX_ID_DIGITS = 18


class _PresenceConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    """A lobby socket that marks its member online in ``club_id`` on connect and on every
    ``{"type": "ping"}`` the page sends."""

    group_name: str | None = None
    club_id: int | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the connection; however it ends, the layer forgets its channel."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            await channel_forget(self)

    async def join(self, group_name: str) -> None:
        """Accept, and follow ``group_name`` and the user's own group (access changes)."""
        self.group_name = group_name
        await self.channel_layer.group_add(group_name, self.channel_name)
        await self.channel_layer.group_add(user_group(self.scope["user"].pk), self.channel_name)
        await self.accept()

    async def refuse(self, code: int) -> None:
        """Accepted first: a close before the accept reaches the browser as HTTP 403."""
        await self.accept()
        await self.close(code=code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Only heartbeats come in; anything that is not JSON text gets an error frame
        instead of an internal error."""
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

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """A heartbeat refreshes the member's online mark; anything else is ignored."""
        if isinstance(content, dict) and content.get("type") == "ping":
            await self._mark()

    async def disconnect(self, code: int) -> None:
        """Stop receiving the lobby's updates (the online mark expires by itself)."""
        if self.group_name is not None:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)
            await self.channel_layer.group_discard(
                user_group(self.scope["user"].pk), self.channel_name
            )

    @database_sync_to_async  # type: ignore[untyped-decorator]  # channels ships no type information
    def _mark(self) -> None:
        user = self.scope.get("user")
        if self.club_id is not None and user is not None:
            presence_mark(club_id=self.club_id, user_id=user.pk)


class LobbyConsumer(_PresenceConsumer):
    """``ws/rooms/<code>/lobby/``: sends ``{"type": "lobby", "state": ...}`` on connect and
    after every committed seat change. Only members of the room's club may connect.

    Seat changes themselves go through the pages and the API (the same services), not this
    socket.
    """

    async def connect(self) -> None:
        """Accept club members and send them the current lobby; refuse everyone else."""
        code = self.scope["url_route"]["kwargs"]["code"]
        found = await self._room_and_state(code)
        if found is None:
            await self.refuse(NOT_FOUND_CLOSE_CODE)
            return
        room_id, state, came_online = found
        await self.join(lobby_group_name(room_id))
        await self.send_json({"type": "lobby", "state": state})
        if came_online:
            await self._announce(room_id)

    async def access_changed(self, event: dict[str, Any]) -> None:
        """Access may have ended (:data:`apps.core.groups.ACCESS_EVENT`): check it again;
        close with 4403 when the user is no longer a member, 4404 when the room closed."""
        found = await self._room_and_state(self.scope["url_route"]["kwargs"]["code"])
        if found is None:
            await self.close(code=FORBIDDEN_CLOSE_CODE)
        elif found[1]["status"] == Room.Status.CLOSED:
            await self.close(code=NOT_FOUND_CLOSE_CODE)

    async def lobby_update(self, event: dict[str, Any]) -> None:
        """Forward a broadcast lobby state to the browser."""
        await self.send_json({"type": "lobby", "state": event["state"]})

    @database_sync_to_async  # type: ignore[untyped-decorator]  # channels ships no type information
    def _room_and_state(self, code: str) -> tuple[int, dict[str, Any], bool] | None:
        user = self.scope.get("user")
        try:
            room = room_get_for_member(code=code, user=user)
        except ClubNotFound:
            return None
        self.club_id = room.club_id
        came_online = presence_mark(club_id=room.club_id, user_id=user.pk)
        return room.pk, lobby_state(room), came_online

    @database_sync_to_async  # type: ignore[untyped-decorator]  # channels ships no type information
    def _announce(self, room_id: int) -> None:
        """Tell the room and the club that this member has come online."""
        lobby_broadcast(room_id)


class ClubLobbyConsumer(_PresenceConsumer):
    """``ws/clubs/<club_id>/lobby/``: sends ``{"type": "club", "state": ...}`` (the open
    tables' markup and the online count) on connect and after every committed change to
    the club's rooms. Only members may connect."""

    async def connect(self) -> None:
        """Accept members and send them the club's tables; refuse everyone else."""
        raw_id = str(self.scope["url_route"]["kwargs"]["club_id"])
        state = None
        if raw_id.isdigit() and len(raw_id) <= MAX_ID_DIGITS:
            state = await self._club_state(int(raw_id))
        if state is None or self.club_id is None:
            await self.refuse(NOT_FOUND_CLOSE_CODE)
            return
        await self.join(club_group_name(self.club_id))
        await self.send_json({"type": "club", "state": state})

    async def access_changed(self, event: dict[str, Any]) -> None:
        """Access may have ended: close with 4403 when the user is no longer a member."""
        assert self.club_id is not None
        if await self._club_state(self.club_id) is None:
            await self.close(code=FORBIDDEN_CLOSE_CODE)

    async def club_update(self, event: dict[str, Any]) -> None:
        """Forward a broadcast club state to the browser."""
        await self.send_json({"type": "club", "state": event["state"]})

    @database_sync_to_async  # type: ignore[untyped-decorator]  # channels ships no type information
    def _club_state(self, club_id: int) -> dict[str, Any] | None:
        user = self.scope.get("user")
        try:
            club = club_get_for_member(club_id=club_id, user=user)
        except ClubNotFound:
            return None
        self.club_id = club.pk
        if presence_mark(club_id=club.pk, user_id=user.pk):
            club_broadcast_on_commit(club.pk)
        return club_state(club, user)
