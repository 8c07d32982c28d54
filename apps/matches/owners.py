"""Match owners: one daphne process makes all of a match's moves, wherever its players are
connected.

The players of one room may be connected to different daphne processes (no sticky
sessions). If each process made its own players' moves, every move would find the match
changed by the other process: it would take the row lock and catch its cached round up on
the other process's moves, instead of being written from the warm cache in one statement
(:mod:`apps.matches.state`), and the two processes' moves would wait for each other's row
locks. So, as lichess sends all of a game's moves to one round actor, each match has an
*owner* process, and the others hand their players' moves to it over Redis.

- **The lease.** A Redis key per match names its owner's inbox. The first process to act
  on a match with no owner claims it for :data:`LEASE_SECONDS`; the owner renews it while
  its own players act. A process looks its matches' owners up again every
  :data:`RECHECK_SECONDS` (one Redis call per match, not per move), so an owner whose own
  players left stops renewing and the match passes to a process whose players still act.
- **Forwarding.** A process hands a move to the owner by publishing it to the owner's inbox
  (a Redis pub/sub channel, one per event loop) and waits for the owner's answer on its own
  inbox. The owner makes the move exactly as it makes its own players' (the match's move
  process, :func:`apps.matches.broadcast.call_in_order`) and answers the version, the
  refusal (code and message), or ``unavailable``. The move's update is published at its
  commit, as every update is, and reaches every connection from the match group. Moves and
  answers travel on lean links (:mod:`apps.core.redis_link`); leases, looked up rarely,
  through redis-py.
- **Failures.** Ownership only decides where a move is made; what is accepted is still
  decided by the match row (the conditional write or the row lock), so two processes that
  both act as owner for a while (a lease that moved, a Redis outage) are slower, never
  wrong. A publish that reaches no inbox (the owner's process is gone) hands the match to
  the sender at once. Without Redis, moves are made where they arrive. A forwarded move with
  no answer within :data:`ANSWER_TIMEOUT_SECONDS`, or whose publish failed part-way, may or
  may not have been made: it is answered ``unavailable``, as a move process that died, and
  the client's resync shows which.

The owner trusts the user id in a forwarded move: only the platform's own processes can
publish to its Redis, which carries the channel layer's messages already.

Without move processes (``MOVE_PROCESSES = 0``: in-process tests) moves are made where they
arrive, with no Redis involved.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
import uuid
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import hiredis
import redis.asyncio as aioredis
from django.conf import settings
from django.db import InterfaceError, OperationalError
from redis.exceptions import RedisError

from apps.core.redis_link import RedisLink

from . import broadcast, movers, services
from .protocol import MatchError

LEASE_SECONDS = 30.0
"""How long an owner's claim lasts without being renewed."""
RECHECK_SECONDS = 5.0
"""How long a process trusts the owner it looked up (and an owner renews its lease)."""
ANSWER_TIMEOUT_SECONDS = 10.0
"""How long a forwarded move waits for the owner's answer. The owner may itself wait for
the row: up to :data:`~apps.matches.broadcast.BUSY_GIVE_UP_SECONDS` busy, then the lock."""
KNOWN_OWNERS_LIMIT = 10_000
"""Past this many remembered owners, the ones due a recheck are forgotten."""
REDIS_TIMEOUT_SECONDS = 1.0
"""How long one Redis command may take before Redis counts as away."""
REDIS_AWAY_SECONDS = 5.0
"""After a Redis failure, moves are made where they arrive for this long."""

# Returns the owner of KEYS[1]: ARGV[1] (the caller) when the key is free or names
# ARGV[3] (an owner found gone), renewing the caller's own lease.
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if (not owner) or owner == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return owner
"""

Act = Callable[[int, int, Any], Awaitable[int]]
"""Make a move here: ``(match_id, user_id, payload) -> version``."""

logger = logging.getLogger(__name__)


class OwnerUnavailableError(OperationalError):
    """A forwarded move got no answer: it may or may not have been made. An
    :class:`~django.db.OperationalError`, which the table endpoint answers ``unavailable``."""


class OwnerFailedError(RuntimeError):
    """The owner's move failed unexpectedly (a bug, logged where it happened)."""


async def act(*, match_id: int, user_id: int, payload: Any) -> int:
    """Make a player's move on match ``match_id`` in its owner process; return the match
    version afterwards. Raises :class:`~apps.matches.protocol.MatchError` when refused,
    :class:`~django.db.OperationalError` when the change may not have been saved."""
    if not movers.enabled():
        return await _act_here(match_id, user_id, payload)
    return await router().act(match_id=match_id, user_id=user_id, payload=payload)


def start() -> None:
    """Open this process's inbox (called on the event loop as players connect), so that it
    is listening before it claims a match."""
    if movers.enabled():
        router()


async def _act_here(match_id: int, user_id: int, payload: Any) -> int:
    return await broadcast.call_in_order(services.match_act, match_id=match_id,
                                         user_id=user_id, payload=payload)


_routers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Router] = (
    weakref.WeakKeyDictionary()
)


def router() -> Router:
    """The running event loop's router, started on first use."""
    loop = asyncio.get_running_loop()
    found = _routers.get(loop)
    if found is None:
        found = _routers[loop] = Router(settings.REDIS_URL, _act_here)
    return found


class Router:
    """One event loop's side of match ownership: its inbox, the owners it knows, and the
    forwarded moves waiting for an answer."""

    def __init__(self, redis_url: str, act_here: Act) -> None:
        self.inbox = f"owners:inbox:{uuid.uuid4().hex}"
        self.url, self.act_here = redis_url, act_here
        # Leases are looked up once per match every few seconds: redis-py. Moves and
        # answers, on every forwarded move: lean links (apps.core.redis_link).
        self.client = aioredis.Redis.from_url(
            redis_url, socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS)
        self.claim = self.client.register_script(_CLAIM)
        self.publisher: RedisLink | None = None
        self.opening = asyncio.Lock()
        self.owners: dict[int, tuple[str, float]] = {}
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.ids = itertools.count()
        self.away_until = 0.0
        self.listening = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()
        self.listener = asyncio.create_task(self._listen())

    async def act(self, *, match_id: int, user_id: int, payload: Any) -> int:
        """Make the move here if this loop owns the match, else forward it to the owner."""
        gone: str | None = None
        for _ in range(2):
            owner = await self._owner(match_id, gone)
            if owner == self.inbox:
                return await self.act_here(match_id, user_id, payload)
            answer = await self._forward(owner, match_id, user_id, payload)
            if answer is not None:
                return _outcome(answer)
            gone = owner
        return await self.act_here(match_id, user_id, payload)

    async def close(self) -> None:
        """Stop listening and close the Redis connections (tests; a stopping loop)."""
        self.listener.cancel()
        for task in [self.listener, *self.tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.publisher is not None:
            self.publisher.close()
        await self.client.aclose()

    async def _owner(self, match_id: int, gone: str | None) -> str:
        """The match's owner: this loop's inbox, or another's. Claims a free match (or
        one whose owner ``gone`` left) and renews this loop's own leases."""
        now = time.monotonic()
        known = self.owners.get(match_id)
        if gone is None and known is not None and known[1] > now:
            return known[0]
        if now < self.away_until or not self.listening.is_set():
            return self.inbox  # nobody could answer us: act here, unclaimed
        try:
            owner = await self.claim(keys=[f"owners:match:{match_id}"],
                                     args=[self.inbox, int(LEASE_SECONDS * 1000), gone or ""])
        except (RedisError, OSError) as error:
            self._redis_away(error)
            return self.inbox
        owner = owner.decode() if isinstance(owner, bytes) else str(owner)
        if len(self.owners) >= KNOWN_OWNERS_LIMIT:
            self.owners = {m: k for m, k in self.owners.items() if k[1] > now}
        self.owners[match_id] = (owner, now + RECHECK_SECONDS)
        return owner

    async def _forward(self, owner: str, match_id: int, user_id: int,
                       payload: Any) -> dict[str, Any] | None:
        """Hand a move to ``owner`` and return its answer; ``None`` when no process listens
        on ``owner`` any more (nothing was sent)."""
        call = next(self.ids)
        answer = self.waiting[call] = asyncio.get_running_loop().create_future()
        request = {"kind": "move", "call": call, "reply": self.inbox, "match": match_id,
                   "user": user_id, "payload": payload}
        try:
            try:
                receivers = await self._publish(owner, json.dumps(request))
            except (OSError, hiredis.ReplyError) as error:
                self._redis_away(error)
                raise OwnerUnavailableError(f"match {match_id}: move not forwarded") from error
            if receivers == 0:
                return None
            try:
                return await asyncio.wait_for(answer, ANSWER_TIMEOUT_SECONDS)
            except TimeoutError as error:
                self.owners.pop(match_id, None)
                raise OwnerUnavailableError(f"match {match_id}: the owner did not answer") \
                    from error
        finally:
            self.waiting.pop(call, None)

    async def _publish(self, channel: str, data: str) -> int:
        """``PUBLISH`` on this loop's link (opened again if it closed); how many inboxes
        received it. Raises :class:`OSError` (a timeout included) when Redis is away."""
        link = self.publisher
        if link is None or not link.is_open:
            async with self.opening:
                link = self.publisher
                if link is None or not link.is_open:
                    link = self.publisher = await RedisLink.open(
                        self.url, timeout=REDIS_TIMEOUT_SECONDS)
        try:
            return int(await asyncio.wait_for(link.command("PUBLISH", channel, data),
                                              REDIS_TIMEOUT_SECONDS))
        except TimeoutError:
            link.close()  # a hung link: the next publish opens another
            raise

    def _redis_away(self, error: BaseException) -> None:
        logger.warning("match owners: Redis unreachable (%s); moves are made where they "
                       "arrive for %s s", error, REDIS_AWAY_SECONDS)
        self.away_until = time.monotonic() + REDIS_AWAY_SECONDS
        self.owners.clear()

    async def _listen(self) -> None:
        """Receive forwarded moves and answers on this loop's inbox; subscribe again after
        a lost connection."""
        while True:
            try:
                link = await RedisLink.open(self.url, timeout=REDIS_TIMEOUT_SECONDS,
                                            on_message=self._on_message)
                try:
                    await asyncio.wait_for(link.command("SUBSCRIBE", self.inbox),
                                           REDIS_TIMEOUT_SECONDS)
                    self.listening.set()
                    await link.closed
                finally:
                    self.listening.clear()
                    link.close()
                self._redis_away(ConnectionError("the inbox's link closed"))
            except (OSError, hiredis.ReplyError) as error:
                self._redis_away(error)
            await asyncio.sleep(REDIS_AWAY_SECONDS)

    def _on_message(self, channel: bytes, data: bytes) -> None:
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        if not _well_formed(message):
            logger.warning("match owners: a malformed message on %r dropped: %.200r",
                           channel, data)
            return
        if message["kind"] == "move":
            task = asyncio.create_task(self._serve(message))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return
        waiting = self.waiting.get(message["call"])
        if waiting is not None and not waiting.done():
            waiting.set_result(message)

    async def _serve(self, request: dict[str, Any]) -> None:
        """Make a forwarded move here and answer its sender."""
        answer: dict[str, Any] = {"kind": "answer", "call": request["call"]}
        try:
            answer["version"] = await self.act_here(request["match"], request["user"],
                                                    request["payload"])
        except MatchError as error:
            answer["refused"] = [error.code, error.message]
        except (OperationalError, InterfaceError):
            answer["unavailable"] = True
        except Exception:
            logger.exception("match %s: a forwarded move failed", request["match"])
            answer["failed"] = True
        try:
            await self._publish(request["reply"], json.dumps(answer))
        except (OSError, hiredis.ReplyError) as error:
            self._redis_away(error)


_FIELDS: dict[Any, dict[str, type]] = {
    "move": {"call": int, "reply": str, "match": int, "user": int},
    "answer": {"call": int},
}
"""The fields each kind of inbox message must carry (a move's ``payload`` is any JSON)."""


def _well_formed(message: Any) -> bool:
    """Whether ``message`` is a forwarded move or an answer with the fields it needs."""
    if not isinstance(message, dict):
        return False
    fields = _FIELDS.get(message.get("kind"))
    return fields is not None and all(
        isinstance(message.get(name), kind) for name, kind in fields.items()
    ) and (message["kind"] != "move" or "payload" in message)


def _outcome(answer: dict[str, Any]) -> int:
    """The version an owner's answer carries, or its refusal or failure raised."""
    if "version" in answer:
        return int(answer["version"])
    if "refused" in answer:
        code, message = answer["refused"]
        raise MatchError(code, message)
    if answer.get("unavailable"):
        raise OwnerUnavailableError("the owner could not reach the database")
    raise OwnerFailedError("the owner's move failed")
