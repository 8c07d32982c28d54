"""A whole club evening, for each game, through the real services, pages and table sockets
(Channels' in-memory layer), on a clock the test moves (time-machine) instead of waiting.

Four friends play eight hands of a match (one phone drops and reconnects, a dissolve vote
is refused, a seat goes to 托管 and comes back), then end it with an accepted dissolve vote.
Two of them then play a match with two 电脑 to its end and press 再来一场, and the next
match deals. The owner opens 结账. What each person saw is checked against the ledger.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Room
from apps.clubs.services import rooms
from apps.matches import pacing, presence
from apps.matches.frames import viewer_events
from apps.matches.models import Match, MatchEvent
from tests.support import factories
from tests.support.bots import choose_discard
from tests.support.clock import later
from tests.support.ws import connect_as

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.timeout(240)]

FRAME_TIMEOUT = 10.0
EVENING = dt.datetime(2026, 12, 5, 19, 30, tzinfo=dt.UTC)


def db(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a blocking call (the database, a service) off the event loop."""
    return sync_to_async(function, thread_sensitive=False)(*args, **kwargs)


class Phone:
    """One person's table page: its socket, the frames it got, the hands it saw settled."""

    def __init__(self, user: User, code: str) -> None:
        self.user, self.code = user, code
        self.comm: WebsocketCommunicator | None = None
        self.v = -1
        self.seat: int | None = None
        self.observation: dict[str, Any] | None = None
        self.table: dict[str, Any] = {}
        self.settled: dict[tuple[int, int], int] = {}
        """(match, hand) → this seat's points in the settlement it was shown."""
        self.rematch: list[dict[str, Any]] = []
        """The 再来一场 prompts this page was shown (``rematch`` frames)."""

    async def open(self, *, since: int | None = None) -> None:
        self.comm = connect_as(self.user, self.code, "" if since is None else f"v={since}")
        connected, _ = await self.comm.connect(FRAME_TIMEOUT)
        assert connected
        await self.next_state()

    async def close(self) -> None:
        assert self.comm is not None
        await self.comm.disconnect()
        self.comm = None

    async def next_state(self) -> dict[str, Any]:
        """Read frames up to the next versioned one, fold it in and return it."""
        assert self.comm is not None
        while True:
            frame = await self.comm.receive_json_from(FRAME_TIMEOUT)
            if frame["type"] in ("presence", "phrase"):
                continue
            if frame["type"] == "rematch":
                self.rematch.append(frame)
                continue
            if frame["type"] == "waiting":
                self.seat = frame["seat"]
                return dict(frame)
            assert frame["type"] in ("snapshot", "update", "catchup"), frame
            self.fold(frame)
            return dict(frame)

    def fold(self, frame: dict[str, Any]) -> None:
        if frame["table"]["match"] != self.table.get("match"):
            self.v = -1  # the room's next match: its own versions
        assert frame["v"] >= self.v, frame  # never backwards
        self.v = frame["v"]
        self.seat = frame.get("seat", self.seat)
        self.table = frame["table"]
        self.observation = frame.get("observation")
        for event in frame.get("events", []):
            if event.get("type") == "settlement" and self.seat is not None:
                key = (frame["table"]["match"], event["hand"])
                self.settled[key] = event["settlement"]["totals"][self.seat]

    @property
    def legal(self) -> list[dict[str, Any]]:
        me = (self.observation or {}).get("me") or {}
        return list(me.get("legal") or [])


def _due_versions(match_id: int, since: int, upto: int, viewers: list[int | None]) -> dict[
        int | None, int]:
    """For each viewer, the last version in ``(since, upto]`` with an event it may see
    (``since`` if none): what the table socket owes it."""
    entries = list(MatchEvent.objects.filter(match_id=match_id, seq__gt=since, seq__lte=upto)
                   .order_by("seq"))
    due: dict[int | None, int] = dict.fromkeys(viewers, since)
    for viewer in viewers:
        for event in viewer_events(entries, viewer):
            due[viewer] = max(due[viewer], event["v"])
    return due


def _version(match_id: int) -> int:
    return int(Match.objects.values_list("version", flat=True).get(pk=match_id))


class Evening:
    """A room's phones, the moves they make, and the clock."""

    def __init__(self, room: Room, phones: list[Phone], clock: Any, rng: random.Random) -> None:
        self.room, self.phones, self.clock, self.rng = room, phones, clock, rng

    async def match_id(self) -> int:
        return int(await db(lambda: Match.objects.filter(room=self.room).latest("pk").pk))

    @property
    def seen(self) -> dict[str, Any]:
        """The table as the first open phone shows it (public to every seat)."""
        return next(p.table for p in self.phones if p.comm is not None)

    async def sync(self) -> None:
        """Every open phone reads the frames the log says are due to it."""
        match_id = await self.match_id()
        version = await db(_version, match_id)
        open_phones = [p for p in self.phones if p.comm is not None]
        since = min(p.v for p in open_phones)
        due = await db(_due_versions, match_id, max(since, 0), version,
                       [p.seat for p in open_phones])
        for phone in open_phones:
            while phone.v < due[phone.seat]:
                await phone.next_state()

    async def later(self, seconds: float) -> None:
        """Move the clock on and run the sweep, as Celery beat would. The open phones kept
        beating meanwhile (a connection refreshes its presence every few seconds of real
        time, which the test does not spend): their presence does not lapse."""
        await db(_open_connections_beat, seconds)
        await db(later, self.clock, seconds)
        await self.sync()

    async def send(self, phone: Phone, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a message from a phone; the error frame if it was refused."""
        assert phone.comm is not None
        before = phone.v
        await phone.comm.send_json_to(message)
        match_id = await self.match_id()
        # The sender learns the outcome: its own frame, or an error.
        while True:
            frame = await phone.comm.receive_json_from(FRAME_TIMEOUT)
            if frame["type"] == "error":
                return dict(frame)
            if frame["type"] in ("update", "catchup", "snapshot"):
                phone.fold(frame)
                break
        version = await db(_version, match_id)
        assert phone.v > before or version == before
        await self.sync()
        return None

    def choose(self, phone: Phone) -> dict[str, Any]:
        """A person's move: 胡 when offered, else the discard nearest to ready, else pass."""
        legal = phone.legal
        wins = [a for a in legal if a["type"] == "win"]
        if wins:
            return wins[0]
        plain = [a for a in legal if a["type"] == "discard" and not a.get("declare")]
        if plain:
            me = (phone.observation or {})["me"]
            hand = [*me["hand"], *([me["drawn"]] if me.get("drawn") else [])]
            tile = choose_discard(hand, [a["tile"] for a in plain])
            return next(a for a in plain if a["tile"] == tile)
        for kind in ("pass", "baogang_skip"):
            passes = [a for a in legal if a["type"] == kind]
            if passes:
                return passes[0]
        return legal[0]

    async def step(self, *, idle: Phone | None = None) -> bool:
        """One person with something to decide decides (``idle`` never does: its clock runs
        out); when nobody can, the clock moves to the next due moment. Return whether the
        match is still in play."""
        for phone in self.phones:
            if phone is idle or phone.comm is None or not phone.legal:
                continue
            action = {k: v for k, v in self.choose(phone).items() if k != "seat"}
            refused = await self.send(phone, {**action, "v": phone.v})
            assert refused is None, refused
            return await self.playing()
        await self.later(await db(_until_due, await self.match_id()))
        return await self.playing()

    async def playing(self) -> bool:
        return bool(self.seen["status"] == "playing")

    async def hands_played(self) -> int:
        return int(self.seen["hands_played"])

    async def play_hand(self, *, idle: Phone | None = None) -> None:
        """Play until the current hand has ended (and the next is dealt or the match ends)."""
        start = await self.hands_played()
        while await self.hands_played() == start and await self.step(idle=idle):
            pass
        await self.ready_up()

    async def ready_up(self) -> None:
        """Between hands each person presses 准备下一局 (the last one deals)."""
        if self.seen["status"] != "playing" or self.seen["stage"] != "between":
            return
        for phone in self.phones:
            if phone.comm is not None and phone.seat not in self.seen["ready"]:
                await self.send(phone, {"type": "ready_next"})
                if self.seen["stage"] != "between":
                    return
        await self.later(pacing.NEXT_HAND_SECONDS)  # a phone that was away: the wait ends

    async def contribute(self) -> None:
        """Each page sends its random value for hand 1 (the fair shuffle), as the page does."""
        match_id = await self.match_id()
        for phone in self.phones:
            refused = await self.send(phone, {"type": "contribute", "hand": 1,
                                              "value": f"{self.rng.getrandbits(256):064x}"})
            assert refused is None, refused
        assert await db(lambda: Match.objects.get(pk=match_id).stage) == "hand"


def _open_connections_beat(seconds: float) -> None:
    """Every open table connection's presence, as its heartbeats would leave it ``seconds``
    from now (closed connections left their seat's set when they closed)."""
    redis = presence._redis()
    expiry = pacing.now().timestamp() + seconds + pacing.PRESENCE_TTL_SECONDS
    for key in redis.scan_iter("presence:match:*"):
        redis.zadd(key, dict.fromkeys(redis.zrange(key, 0, -1), expiry))


def _until_due(match_id: int) -> float:
    """Seconds until the match's next due moment (a little past it)."""
    due = Match.objects.get(pk=match_id).timer_due
    assert due is not None, "nothing is due and nobody can move"
    return max(0.0, (due - pacing.now()).total_seconds()) + 0.01


def _page(user: User, path: str, data: dict[str, Any] | None = None) -> Any:
    client = Client()
    client.force_login(user)
    response = client.post(path, data or {}) if data is not None else client.get(path)
    assert response.status_code in (200, 302), (path, response.status_code)
    return response


def _four_friends(variant: str) -> factories.Table:
    return factories.table(variant, start=False, ready=False, hands_per_match=16,
                           claim_pause_ms=300)


@pytest.mark.parametrize("variant", ["duyun", "zigong"])
async def test_a_club_evening(variant: str) -> None:
    rng = random.Random(f"evening-{variant}")
    with time_machine.travel(EVENING, tick=False) as clock:
        world = await db(_four_friends, variant)
        people = world.users
        owner = people[0]
        phones = [Phone(user, world.room.code) for user in people]
        evening = Evening(world.room, phones, clock, rng)
        for phone in phones:
            await phone.open()
        # Everyone presses 准备 in the room's lobby: the last one starts the match.
        for user in people:
            await db(_page, user, f"/rooms/{world.room.code}/ready/", {"ready": "1"})
        for phone in phones:
            await phone.next_state()  # the match started: a snapshot
        await evening.contribute()

        # Hands 1–2; then 赵六's phone drops for a hand and comes back by version.
        for _ in range(2):
            await evening.play_hand()
        away = phones[3]
        last_seen = away.v
        await away.close()
        await evening.play_hand()
        await away.open(since=last_seen)
        assert away.table["hands_played"] == 3, (away.table, phones[0].table["hands_played"])
        # A dissolve vote: 李四 proposes, 王五 refuses, play goes on.
        assert await evening.send(phones[1], {"type": "dissolve_propose"}) is None
        assert await evening.send(phones[2], {"type": "dissolve_vote", "agree": False}) is None
        assert phones[0].table["dissolve"] is None and await evening.playing()
        # Hand 4: 王五 never answers; two timeouts put the seat in 托管, which plays for it.
        idle = phones[2]
        await evening.play_hand(idle=idle)
        assert idle.table["players"][idle.seat]["auto_play"] is True
        assert phones[0].table["players"][idle.seat]["auto_play"] is True  # the table sees it
        assert await evening.send(idle, {"type": "resume"}) is None
        assert idle.table["players"][idle.seat]["auto_play"] is False
        for _ in range(4):
            await evening.play_hand()
        assert await evening.hands_played() == 8
        # The evening's first match ends by an accepted vote: its 8 hands stay booked.
        assert await evening.send(phones[0], {"type": "dissolve_propose"}) is None
        for phone in phones[1:]:
            assert await evening.send(phone, {"type": "dissolve_vote", "agree": True}) is None
        assert phones[0].table["status"] == "dissolved"
        first_match = await evening.match_id()
        for phone in phones:
            await phone.close()

        # Two of them play a match with two 电脑, then 再来一场.
        duo_room = await db(_duo_room, world, variant)
        duo = [Phone(user, duo_room.code) for user in people[:2]]
        computer_evening = Evening(duo_room, duo, clock, rng)
        for phone in duo:
            await phone.open()
        await db(_page, people[0], f"/rooms/{duo_room.code}/computers/", {})
        for user in people[:2]:
            await db(_page, user, f"/rooms/{duo_room.code}/ready/", {"ready": "1"})
        for phone in duo:
            await phone.next_state()
        await computer_evening.contribute()
        while await computer_evening.playing():
            await computer_evening.play_hand()
        assert duo[0].table["status"] == "finished"
        finished = await computer_evening.match_id()
        for user in people[:2]:
            await db(_page, user, f"/rooms/{duo_room.code}/rematch/", {})
        rematch = await computer_evening.match_id()
        assert rematch != finished, "再来一场 did not start the next match"
        for phone in duo:
            await phone.next_state()  # the new match's snapshot
        # The first 再来一场 (by the room's form) was a prompt on the other's table.
        first_prompt = duo[1].rematch[0]
        assert first_prompt["state"] == "open"
        assert [s["agreed"] for s in first_prompt["seats"]] == [True, False, True, True]
        await computer_evening.contribute()  # …and it deals
        for phone in duo:
            await phone.close()

        # The owner opens 结账, and each person their own 战绩.
        checkout = (await db(_page, owner, f"/ledgers/clubs/{world.club.pk}/checkout/")).context
        html = (await db(_page, owner, f"/ledgers/clubs/{world.club.pk}/checkout/")).content
        ledger = (await db(_page, owner, f"/ledgers/clubs/{world.club.pk}/")).context

    stake = int(world.room.settings.get("base_stake", 1))
    seen: dict[int, int] = {}
    for phone in phones:  # the booked match's settlements, as each person saw them
        seen[phone.user.pk] = sum(points for (match, _), points in phone.settled.items()
                                  if match == first_match)
    assert len({k for p in phones for k in p.settled if k[0] == first_match}) == 8
    balances = {row["user_id"]: row["amount"] for row in ledger["totals"]}
    assert balances == {user_id: points * stake for user_id, points in seen.items()}, \
        "a ledger balance differs from the settlements its person saw"
    view = checkout["view"]
    due = {row.user_id: row.total for row in view.rows}
    assert due == {k: v for k, v in balances.items() if v}
    paid = dict.fromkeys(due, 0)
    for payment in view.payments:
        paid[payment.payer_id] += payment.amount
        paid[payment.payee_id] -= payment.amount
    assert all(due[user] + paid[user] == 0 for user in due), "结账 leaves a balance unsettled"
    computer_ids = set(await db(lambda: list(
        User.objects.filter(is_computer=True).values_list("pk", flat=True))))
    assert not computer_ids & (set(due) | set(balances)), "a computer is in the money"
    assert "电脑" not in html.decode()
    # The match with computers was played and settled at the table, and booked nowhere.
    assert any(match == finished for p in duo for match, _ in p.settled)


def _duo_room(world: factories.Table, variant: str) -> Room:
    room = rooms.room_create(
        club=world.club, actor=world.users[0], variant=variant,
        settings=factories.table_settings(variant, hands_per_match=4),
        allow_computers=True,
    )
    rooms.room_sit(room=room, user=world.users[0], seat=0)
    rooms.room_sit(room=room, user=world.users[1], seat=1)
    return room  # its empty seats are filled through the room page (the creator's 电脑补位)
