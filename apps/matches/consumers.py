"""The table WebSocket endpoint ``ws/rooms/<code>/`` (protocol: ``docs/protocol.md``).

Thin by design: it authenticates (session user from ``AuthMiddlewareStack``; the origin is
checked by ``AllowedHostsOriginValidator``), decides seat or spectator, relays client
messages to :func:`apps.matches.services.match_act` (in a worker thread, one call per match
at a time: :func:`call_in_order`), and forwards committed updates from
the channel layer in version order, catching up from the log when it sees a gap. A seated
connection also keeps its seat's presence (:mod:`apps.matches.presence`) alive and tells the
table when a seat comes online or goes offline (a ``presence`` frame).

The channel layer is Redis pub/sub: at most once. An update published while this process's
subscription was reconnecting is lost, and so is one whose commit outlived a dropped
database link. A gap shows at the next update; a lost *last* update would leave the client
waiting (as would a lost ``match_started``), so a connection that has forwarded nothing for
:data:`VERSION_CHECK_SECONDS` reads the room's current match and its version, and follows or
catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar, TypeVar
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import InterfaceError, OperationalError
from redis.exceptions import RedisError

from apps.accounts.ratelimit import scope_client_ip
from apps.accounts.services import LAST_SEEN_EVERY, user_last_seen_update
from apps.clubs.selectors import rematch_state_open
from apps.clubs.services.rematch import rematch_answer
from apps.core.authentication import bearer_user
from apps.core.channel_layer import channel_forget
from apps.core.groups import group_sends_to_this_loop, user_group

from . import frames, pacing, presence, selectors, services, socket_limits
from .pacing import PRESENCE_HEARTBEAT_SECONDS, VERSION_CHECK_SECONDS
from .protocol import (
    MAX_MESSAGE_BYTES,
    PHRASES,
    ROOM_MESSAGES,
    MatchError,
    decode_message,
    encode_frame,
    message_type,
    parse_hello,
    parse_phrase,
    parse_ping,
    parse_room_message,
    request_id,
)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NO_ROOM = 4404
CLOSE_TOO_MANY = 4429
"""This account or address already holds as many table connections as allowed
(:mod:`apps.matches.socket_limits`)."""
CLOSE_REPLACED = 4009
"""A seated player opened the table again elsewhere: this older connection was replaced."""
CLOSE_INTERNAL_ERROR = 1011
PHRASE_EVERY_SECONDS = 3.0
"""A seat may send one quick phrase this often (a burst of two)."""

logger = logging.getLogger(__name__)

T = TypeVar("T")
_match_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[int, asyncio.Lock]
] = weakref.WeakKeyDictionary()


async def call_in_order(function: Callable[..., T], *, match_id: int, **kwargs: Any) -> T:
    """Run a blocking service call on match ``match_id`` (a move, a snapshot, a catch-up)
    in a worker thread, one at a time per match in this process and in the order they came.

    The match row decides between processes; this lock only keeps one process's calls on
    a match from queueing on the row lock in several threads at once, and keeps its cached
    state in use by one call at a time. The call runs to its end even if the caller is
    cancelled (a closing connection), and the lock passes on only then.
    """
    group_sends_to_this_loop()  # the call's committed update is sent from this loop
    async with _match_lock(match_id):
        work = asyncio.ensure_future(
            database_sync_to_async(function, thread_sensitive=False)(match_id=match_id, **kwargs)
        )
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await work
            raise


def _match_lock(match_id: int) -> asyncio.Lock:
    locks = _match_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    return locks.setdefault(match_id, asyncio.Lock())


class TokenBucket:
    """Allow ``rate`` costs per second with bursts up to ``capacity``."""

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.tokens, self.stamp = capacity, time.monotonic()

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if there are enough; return whether it was allowed."""
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def charge(self, cost: float) -> None:
        """Spend ``cost`` tokens even if that leaves fewer than none (a debt)."""
        self.take(0.0)
        self.tokens -= cost


class TableConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """One connection to a room's table: a seat's player or a spectator."""

    heartbeat: asyncio.Task[None] | None = None
    """The connection's :meth:`_heartbeat` task, once it is connected."""
    messages_per_second = 10.0
    message_burst = 40.0
    error_cost = 2.0
    """A refused message costs this many tokens more (3 in all): a flood of bad ones is cut
    off first. Not ``unavailable``: the database being away is not the client's doing."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the connection; however it ends (closed, or a handler that raised, which
        skips ``disconnect``), its heartbeat stops (it would poll the database and Redis
        for a connection that is gone, for ever) and the layer forgets its channel."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.heartbeat is not None:
                self.heartbeat.cancel()
            await channel_forget(self)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Call the message's handler, without Channels' ``close_old_connections`` hop.

        Channels runs that clean-up in the process's single database thread before every
        message, including each ``table.update`` relayed to every connection, where it
        queues behind the actions being handled. Every database access here goes through
        ``database_sync_to_async``, which does the same clean-up around itself.
        """
        await getattr(self, get_handler_name(message))(message)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        """Frames sent with ``send_json`` are encoded like relayed updates."""
        return encode_frame(content)

    async def connect(self) -> None:
        """Authenticate (the session, or a token: ``Authorization: Bearer``), decide seat or
        spectator, subscribe, send the current view."""
        user = self.scope.get("user")
        # A read-only token may watch and resync, not act.
        self.may_act = True
        if user is None or not user.is_authenticated:
            token = await _read(bearer_user, self.scope.get("headers", []))
            if token is not None:
                user, self.may_act = token[0], token[1].play
        if user is None or not user.is_authenticated:
            await self._refuse_connection(CLOSE_UNAUTHENTICATED)
            return
        room = await _read(selectors.room_by_code, self.scope["url_route"]["kwargs"]["code"])
        if room is None:
            await self._refuse_connection(CLOSE_NO_ROOM)
            return
        access = await _read(selectors.table_access, room, user)
        if access is None:
            await self._refuse_connection(CLOSE_FORBIDDEN)
            return
        self.address = scope_client_ip(self.scope)
        if not await _off_loop(partial(socket_limits.sockets_open, user_id=user.pk,
                                       address=self.address, connection=self.channel_name)):
            await self._refuse_connection(CLOSE_TOO_MANY)
            return
        self.user, self.room_id, self.seat = user, access.room_id, access.seat
        # When this connection opened, to tell the newer of two (see table_replaced).
        self.opened = pacing.now().timestamp()
        self.match_id: int | None = None
        self.over = False  # the match followed has ended (its 再来一场 prompt may be open)
        self.version = -1
        # The version of the last state frame sent: the ``v`` of errors, presence, phrases.
        self.shown = -1
        # The ``id`` of the message being answered, and of an applied one whose update is
        # still to come (with the version it reached): its frame carries it to this client.
        self.asked: int | str | None = None
        self.awaited: tuple[int, int | str] | None = None
        self.seats: list[int] = []
        self.sent_at = time.monotonic()
        # Held while a frame is chosen and sent, so frames leave in version order.
        self.order = asyncio.Lock()
        self.bucket = TokenBucket(self.messages_per_second, self.message_burst)
        self.limited_notice_at = 0.0
        self.phrases = TokenBucket(1 / PHRASE_EVERY_SECONDS, 2)
        await self.accept()
        if self.seat is not None:
            await _read(partial(user_last_seen_update, user_id=user.pk))
        await self.channel_layer.group_add(frames.room_group(self.room_id), self.channel_name)
        await self.channel_layer.group_add(user_group(user.pk), self.channel_name)
        # One connection plays a seat: a newer one replaces it (a read-only token's only
        # watches, and neither replaces nor is replaced).
        self.plays = self.seat is not None and self.may_act
        if self.plays:
            await self.channel_layer.group_add(
                frames.seat_group(self.room_id, user.pk), self.channel_name)
        self.heartbeat = asyncio.create_task(self._heartbeat())
        if access.match_id is not None:
            await self._follow(access.match_id, since=self._query_version())
            if self.over:
                await self._send_rematch()
        else:
            await self.send_json({"type": "waiting", "seat": self.seat})
        if self.plays:
            # After this connection's presence joined: the seat never looks offline.
            await self.channel_layer.group_send(
                frames.seat_group(self.room_id, user.pk),
                {"type": frames.REPLACED_EVENT, "origin": self.channel_name,
                 "opened": self.opened})

    async def _send_rematch(self) -> None:
        """Show a page that connects to a finished match the room's open 再来一场 prompt."""
        state = await _read(rematch_state_open, self.room_id)
        if state is not None:
            await self.send_json({"type": "rematch", "v": self.shown, **state})

    async def _refuse_connection(self, code: int) -> None:
        """Accept, then close with ``code``: a handshake refused before the accept reaches
        the browser as a plain HTTP 403, without the code the page needs to stop retrying
        and show "无法进入牌桌"."""
        await self.accept()
        await self.close(code=code)

    def _query_version(self) -> int | None:
        values = parse_qs(self.scope.get("query_string", b"").decode()).get("v")
        if values and values[0].lstrip("-").isdigit():
            return int(values[0])
        return None

    async def _follow(self, match_id: int, *, since: int | None, again: bool = True) -> None:
        """Subscribe to a match (leaving the previous one), then send a snapshot or the
        events missed since ``since``; unless ``again`` is false, also when already
        following it.

        Holds ``order`` throughout: a version check by the heartbeat meanwhile would
        otherwise find the connection at version -1 and send a second snapshot, and at a
        match's start the start notice and that check may both ask to follow it.
        """
        came_online = False
        async with self.order:
            if self.match_id == match_id and not again:
                return
            if self.match_id != match_id:
                await self._leave_match()
                self.match_id, self.version = match_id, -1
                await self.channel_layer.group_add(
                    frames.match_group(match_id), self.channel_name
                )
                if self.seat is not None:
                    came_online = await _off_loop(
                        presence.presence_join, match_id, self.seat, self.channel_name
                    )
            await self._resync_in_order(since)
        if came_online:
            await self._presence_broadcast()
            await self._note_table_presence(offline=False)

    async def _leave_match(self) -> None:
        """Stop following the current match: its group and this seat's presence in it."""
        if self.match_id is None:
            return
        if self.seat is not None:
            went_offline = await _off_loop(
                presence.presence_leave, self.match_id, self.seat, self.channel_name
            )
            if went_offline:
                await self._presence_broadcast()
                await self._note_table_presence(offline=True)
        await self.channel_layer.group_discard(
            frames.match_group(self.match_id), self.channel_name
        )

    async def _resync(self, since: int | None, *, reply: int | str | None = None) -> None:
        async with self.order:
            await self._resync_in_order(since, reply=reply)

    async def _resync_in_order(self, since: int | None, *,
                               reply: int | str | None = None) -> None:
        """Send a snapshot, or the events since ``since``; ``reply``: the ``id`` of the
        ``hello`` this answers."""
        assert self.match_id is not None
        if since is None:
            frame = await call_in_order(
                selectors.table_snapshot, match_id=self.match_id, viewer=self.seat
            )
        else:
            frame = await call_in_order(
                selectors.table_catchup, match_id=self.match_id, since=since, viewer=self.seat
            )
        self.version = frame["v"]
        self.over = frame["table"]["status"] != "playing"
        self.seats = [p["seat"] for p in frame["table"]["players"]]
        self.sent_at = time.monotonic()
        if reply is not None:
            frame["id"] = reply
        elif self.awaited is not None and frame["v"] >= self.awaited[0]:
            frame["id"], self.awaited = self.awaited[1], None
        await self.send_json(frame)
        self.shown = frame["v"]

    async def _heartbeat(self) -> None:
        """After a quiet spell, which may hide a lost update or a lost ``match_started``,
        check the room's current match and catch up; for a seat, keep its presence alive
        and report seats whose connections died."""
        # A random phase: connections opened together (a table's seats, the players of a
        # restarted process reconnecting) would otherwise all check and refresh in the same
        # instant, a burst that held up moves for hundreds of milliseconds at 100 tables.
        await asyncio.sleep(random.uniform(0, VERSION_CHECK_SECONDS))
        refreshed_at = seen_at = time.monotonic()
        while True:
            await asyncio.sleep(VERSION_CHECK_SECONDS)
            try:
                if time.monotonic() - self.sent_at >= VERSION_CHECK_SECONDS:
                    await self._catch_up_if_behind()
                if time.monotonic() - refreshed_at < PRESENCE_HEARTBEAT_SECONDS:
                    continue
                refreshed_at = time.monotonic()
                await _off_loop(partial(socket_limits.sockets_refresh, user_id=self.user.pk,
                                        address=self.address, connection=self.channel_name))
                if self.match_id is None or self.seat is None:
                    continue
                if time.monotonic() - seen_at >= LAST_SEEN_EVERY.total_seconds():
                    seen_at = time.monotonic()  # a player at the table is online (在线)
                    await _read(partial(user_last_seen_update, user_id=self.user.pk))
                if await _off_loop(presence.presence_heartbeat, self.match_id, self.seat,
                                   self.channel_name, self.seats):
                    await self._presence_broadcast()
            except (OperationalError, InterfaceError, RedisError, OSError):
                pass  # the database or Redis is away: the next round tries again
            except Exception:
                logger.exception("room %s: heartbeat round failed", self.room_id)

    async def _catch_up_if_behind(self) -> None:
        current = await _read(selectors.room_match_version, self.room_id, self.seat)
        if current is None:
            return
        match_id, version = current
        if match_id != self.match_id:
            logger.info("room %s: following match %s (its start was not heard)",
                        self.room_id, match_id)
            await self._switch_to(match_id)
            return
        if version <= self.version:
            return
        async with self.order:
            if version > self.version:  # an update may have arrived meanwhile
                logger.info("match %s: catching up a connection from v%s to v%s",
                            match_id, self.version, version)
                await self._resync_in_order(self.version)

    async def _presence_broadcast(self) -> None:
        """Tell everyone at the table which seats are connected now."""
        assert self.match_id is not None
        connected = await _off_loop(presence.seats_connected, self.match_id, self.seats)
        if connected is None:
            return
        players = [{"seat": seat, "connected": on} for seat, on in connected.items()]
        await self.channel_layer.group_send(
            frames.room_group(self.room_id),
            {"type": frames.PRESENCE_EVENT, "players": players},
        )

    async def _note_table_presence(self, *, offline: bool) -> None:
        """Tell the match when its last seat went offline, or its first came back; the
        sweep pauses and later dissolves an abandoned table (:mod:`apps.matches.pause`)."""
        assert self.match_id is not None
        if offline:
            connected = await _off_loop(presence.seats_connected, self.match_id, self.seats)
            if not connected or any(connected.values()):
                return
        try:
            await call_in_order(
                services.match_presence_note, match_id=self.match_id, offline=offline
            )
        except (OperationalError, InterfaceError):
            logger.warning("match %s: could not record the table's presence", self.match_id)

    async def disconnect(self, code: int) -> None:
        """Give up this connection's presence (reporting a seat gone offline); leave groups."""
        if not hasattr(self, "room_id"):
            return
        await _off_loop(partial(socket_limits.sockets_close, user_id=self.user.pk,
                                address=self.address, connection=self.channel_name))
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            with contextlib.suppress(BaseException):
                await self.heartbeat
        await self._leave_match()
        await self.channel_layer.group_discard(
            frames.room_group(self.room_id), self.channel_name
        )
        await self.channel_layer.group_discard(user_group(self.user.pk), self.channel_name)
        await self.channel_layer.group_discard(
            frames.seat_group(self.room_id, self.user.pk), self.channel_name)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """Refuse oversized or binary frames before parsing; rate-limit everything."""
        text = message.get("text")
        if not self.bucket.take():
            await self._rate_limited()
            return
        if text is None:
            await self._refuse(MatchError("malformed", "只接受 JSON 文本消息"))
            return
        if len(text.encode()) > MAX_MESSAGE_BYTES:
            await self._refuse(MatchError("too_large"))
            return
        try:
            content = decode_message(text)
        except ValueError:
            await self._refuse(MatchError("malformed", "消息不是有效的 JSON"))
            return
        try:
            await self.receive_json(content)
        except Exception:
            # Not an answer to the client: a bug. Close as an error in a handler would;
            # the client reconnects and resyncs.
            logger.exception("room %s: a client message failed", self.room_id)
            await self.close(code=CLOSE_INTERNAL_ERROR)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Answer one message, carrying back the ``id`` it may have: its handler by type
        (:attr:`handlers`; anything else goes to the match service), or its refusal."""
        try:
            self.asked = request_id(content)
            await getattr(self, self.handlers.get(message_type(content), "_act"))(content)
        except MatchError as error:
            await self._refuse(error)
        except (OperationalError, InterfaceError):
            # The database is unreachable: nothing was saved, unless the link dropped during
            # the commit itself; the client's ``hello`` resync, which it repeats after
            # ``unavailable``, shows which.
            await self._unavailable()
        finally:
            self.asked = None

    async def _hello(self, content: dict[str, Any]) -> None:
        """Resume from a version (a catch-up) or from nothing (a snapshot); before the
        room's match starts, the ``waiting`` frame again."""
        since = parse_hello(content)
        if self.match_id is None:
            await self.send_json({"type": "waiting", "seat": self.seat, **self._reply_id()})
            return
        await self._resync(since, reply=self.asked)

    def _check_seat(self) -> int:
        """The match a seat's message is for; refused without a match, from a spectator,
        and from a read-only token."""
        if self.match_id is None:
            raise MatchError("no_match")
        if self.seat is None:
            raise MatchError("not_seated")
        if not self.may_act:
            raise MatchError("read_only")
        return self.match_id

    async def _act(self, content: Any) -> None:
        """A message for the match service: a move, 准备, 托管, a vote, a contribution."""
        match_id = self._check_seat()
        version = await call_in_order(
            services.match_act, match_id=match_id, user_id=self.user.pk, payload=content,
        )
        if self.asked is not None and version > self.version:
            # The update arrives after this handler returns (a consumer handles one
            # message at a time), or in a catch-up: whichever sends ``version`` carries it.
            self.awaited = (version, self.asked)

    def _reply_id(self) -> dict[str, Any]:
        return {} if self.asked is None else {"id": self.asked}

    async def _ping(self, content: dict[str, Any]) -> None:
        """Answer at once (the page's check that a quiet socket is still alive)."""
        parse_ping(content)
        await self.send_json({"type": "pong", **self._reply_id()})

    async def _phrase(self, content: dict[str, Any]) -> None:
        """Send a quick phrase to the table (not versioned, not logged)."""
        self._check_seat()
        phrase = parse_phrase(content)
        if not self.phrases.take():
            raise MatchError("phrase_too_fast")
        await self.channel_layer.group_send(
            frames.room_group(self.room_id),
            {"type": frames.PHRASE_EVENT, "seat": self.seat, "phrase": phrase,
             "origin": self.channel_name, **self._reply_id()},
        )

    async def _room_message(self, content: dict[str, Any]) -> None:
        """再来一场 (``rematch``) or 离开 (``rematch_leave``), answered by the clubs app's
        service; the answer is this connection's ``rematch`` frame (the others hear the
        change through the room's lobby broadcast)."""
        self._check_seat()
        leave = parse_room_message(content) == "rematch_leave"
        state = await _read(partial(rematch_answer, room_id=self.room_id,
                                    user=self.user, leave=leave))
        await self.send_json({"type": "rematch", "v": self.shown, **state, **self._reply_id()})

    handlers: ClassVar[dict[str | None, str]] = {
        "hello": "_hello", "phrase": "_phrase", "ping": "_ping",
        **dict.fromkeys(ROOM_MESSAGES, "_room_message"),
    }
    """The methods that answer messages here rather than by the match service (``_act``)."""

    async def _unavailable(self) -> None:
        logger.warning("match %s: database unavailable, message refused", self.match_id)
        await self._refuse(MatchError("unavailable"), cost=0.0)

    async def _refuse(self, error: MatchError, *, cost: float | None = None) -> None:
        """Answer a message that was let through with its refusal, always; the refusal's
        extra cost (:attr:`error_cost` unless ``cost``) is then charged (into debt), so a
        flood of bad messages is cut off at the next ones, never by dropping this answer."""
        await self.send_json({**error.to_json(), "v": self.shown, **self._reply_id()})
        self.bucket.charge(self.error_cost if cost is None else cost)

    async def _rate_limited(self) -> None:
        """Tell the client at most once a second that its messages are being dropped."""
        now = time.monotonic()
        if now - self.limited_notice_at >= 1.0:
            self.limited_notice_at = now
            await self.send_json({**MatchError("rate_limited").to_json(), "v": self.shown})

    async def table_update(self, event: dict[str, Any]) -> None:
        """A committed change: forward this connection's own frame in order, or catch up
        from the log on a gap."""
        async with self.order:
            # None for a seat this match does not have (its room's seats changed).
            span = event["spans"].get(frames.audience(self.seat))
            if span is None:
                return
            since, version = span
            if version <= self.version:  # nothing this viewer may see (H2), or sent already
                return
            if since != self.version:
                await self._resync_in_order(self.version)
                return
            self.version = version
            text = event["texts"][frames.audience(self.seat)]
            if self.awaited is not None and version >= self.awaited[0]:
                # The frame is encoded once for every viewer: the id goes in front.
                text = f'{encode_frame({"id": self.awaited[1]})[:-1]},{text[1:]}'
                self.awaited = None
            self.sent_at = time.monotonic()
            await self.send(text_data=text)
            self.shown = version

    async def table_presence(self, event: dict[str, Any]) -> None:
        """A seat came online or went offline: forward who is connected (not versioned)."""
        if self.match_id is not None:
            await self.send_json({"type": "presence", "v": self.shown,
                                  "players": event["players"]})

    async def table_phrase(self, event: dict[str, Any]) -> None:
        """A seat's quick phrase: forward it with its text (not versioned)."""
        if self.match_id is not None:
            mine = event.get("origin") == self.channel_name and "id" in event
            await self.send_json({"type": "phrase", "v": self.shown, "seat": event["seat"],
                                  "phrase": event["phrase"], "text": PHRASES[event["phrase"]],
                                  **({"id": event["id"]} if mine else {})})

    async def table_rematch(self, event: dict[str, Any]) -> None:
        """The room's 再来一场 prompt changed: forward it (not versioned)."""
        if self.match_id is not None:
            await self.send_json({"type": "rematch", "v": self.shown, **event["rematch"]})

    async def table_replaced(self, event: dict[str, Any]) -> None:
        """The same player opened this table in another tab: say so, and close (4009).

        Only an older connection gives way: the notice of one that opened earlier can
        arrive late (its handshake was still sending it when the page reconnected), and
        must not close the newer one. At the same moment (a clock that stands still in a
        test) the notice wins, as the newer one's would."""
        if event["origin"] != self.channel_name and event["opened"] >= self.opened:
            await self.send_json({"type": "replaced", "v": self.shown})
            await self.close(code=CLOSE_REPLACED)

    async def access_changed(self, event: dict[str, Any]) -> None:
        """The user's access may have ended (removed from the club, a role change): check
        it again, and close with 4403 when it is gone."""
        room = await _read(selectors.room_by_code, self.scope["url_route"]["kwargs"]["code"])
        access = None if room is None else await _read(selectors.table_access, room, self.user)
        if access is None:
            await self.close(code=CLOSE_FORBIDDEN)

    async def table_match_started(self, event: dict[str, Any]) -> None:
        """A match started in this room: follow it."""
        await self._switch_to(event["match_id"])

    async def _switch_to(self, match_id: int) -> None:
        """Re-check the seat in the room's new match, subscribe and send a snapshot."""
        room = await _read(selectors.room_by_code, self.scope["url_route"]["kwargs"]["code"])
        access = await _read(selectors.table_access, room, self.user)
        if access is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if access.seat != self.seat:
            await self._leave_match()  # presence is kept per seat
            self.match_id = None
        self.seat = access.seat
        await self._follow(match_id, since=None, again=False)


async def _read(function: Any, *args: Any) -> Any:
    """Run a blocking database read in a worker thread of its own.

    Not in Channels' single thread-sensitive thread (``database_sync_to_async``'s default):
    there the reads of every connection of the process wait in one line, each for its round
    trips to the database, and a reconnecting crowd (a restarted process, 100 tables
    starting together) took tens of seconds to be served. Django gives each thread its own
    connection.
    """
    return await database_sync_to_async(function, thread_sensitive=False)(*args)


async def _off_loop(function: Any, *args: Any) -> Any:
    """Run a blocking presence call (Redis) in a worker thread, off the event loop."""
    return await sync_to_async(function, thread_sensitive=False)(*args)
