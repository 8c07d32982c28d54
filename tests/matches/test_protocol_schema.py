"""The AsyncAPI document ``docs/protocol.asyncapi.yaml`` against real games.

Three matches are played over the real consumers (:mod:`tests.matches.recorded`): every
frame received and every message the client sent is validated against the document's
schemas, every schema must have been used (so that the document cannot keep dead entries),
and the document's lists of codes, phrases and events are the server's.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
import yaml
from channels.db import database_sync_to_async
from jsonschema import _keywords
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from apps.clubs.services.computers import room_computers_fill
from apps.clubs.services.rooms import room_ready_set, room_sit
from apps.matches import computer, services
from apps.matches.frames import view_version
from apps.matches.models import Match
from apps.matches.protocol import ERROR_MESSAGES, PHRASES, MatchError, parse_client_message
from apps.matches.selectors import table_catchup
from majiang import ActionType, IllegalActionError, Tile
from majiang.refusals import CODES as REFUSAL_CODES
from majiang.refusals import TEMPLATES
from tests.support.rounds import round_now

from . import recorded
from .driving import choose
from .test_computers import _club_room, _shift_clock

pytestmark = pytest.mark.django_db(transaction=True)

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "protocol.asyncapi.yaml"
DOC_URI = "urn:protocol-asyncapi"
NEVER_SEEN: dict[str, str] = {
    # Each of these is in the document but no recorded game sends it; say why.
    "SeatTakenEvent": "needs computer seats: test_a_taken_computer_seat_fits_the_document",
}
"""Schemas the recorded games do not exercise, with the reason."""
REFUSAL_SAMPLES: list[dict[str, Any]] = [
    {},
    *({"action": kind.value, "tile": Tile.M5, "declare": True, "variant": variant}
      for kind in ActionType for variant in ("duyun", "zigong")),
    *({"action": "discard", "tile": tile} for tile in Tile),
]
"""Data for the rules' refusals: no data, each action in both variants, each tile."""
SHARED = frozenset({"TableInfo", "SeatView", "Settlement", "Hints", "Event", "Result",
                    "LegalAction"})
"""Parts that many frames repeat, each distinct value validated once."""
TOP = {
    "table": "TableFrame", "lobby": "RoomLobbySocketFrame", "club": "ClubLobbySocketFrame",
}
CLIENT = {"table": "TableClientMessage", "lobby": "LobbyClientMessage",
          "club": "LobbyClientMessage"}


def _doc() -> dict[str, Any]:
    return yaml.safe_load(DOC_PATH.read_text(encoding="utf-8"))


class Checker:
    """Validates instances against the document's schemas and notes which were used: a
    ``$ref`` counts once the instance it applies to validated against it."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.used: set[str] = set()
        registry = Registry().with_resource(
            DOC_URI, Resource.from_contents(doc, default_specification=DRAFT7))

        seen: dict[tuple[str, bytes], list[Any]] = {}

        def ref(validator: Any, ref: str, instance: Any, schema: Any) -> Iterator[Any]:
            # The five viewers of a change share most of it (the table, the seats, the
            # settlement): each distinct part of a frame is checked once.
            name = ref.rsplit("/", 1)[-1]
            key = (name, orjson.dumps(instance)) if name in SHARED else None
            if key is not None and key in seen:
                errors = seen[key]
            else:
                errors = list(_keywords.ref(validator, ref, instance, schema))
                if key is not None:
                    seen[key] = errors
            if not errors:
                self.used.add(name)
            yield from errors

        cls = jsonschema.validators.extend(jsonschema.Draft7Validator, {"$ref": ref})
        self.validators: dict[str, Any] = {}
        self.make = lambda name: cls(
            {"$ref": f"{DOC_URI}#/components/schemas/{name}"}, registry=registry)

    def errors(self, name: str, instance: Any) -> list[str]:
        if name not in self.validators:
            self.validators[name] = self.make(name)
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300]
                for e in self.validators[name].iter_errors(instance)]


def _record(make_table: Any) -> recorded.Wire:
    wire = recorded.Wire()
    rng = random.Random(35)
    duyun = make_table("duyun", start=False)
    zigong = make_table("zigong", start=False, luobo=2, declare_pause_ms=500)
    kongs = make_table("duyun", start=False, claim_pause_ms=500)

    async def run() -> None:
        with recorded.fixed_dealing([], rng):
            await recorded.duyun_match(wire, duyun, rng)
        with recorded.fixed_dealing([recorded.MATCH_SEED, recorded.ZIGONG_PANEL_SEED], rng):
            await database_sync_to_async(services.match_start)(room=zigong.room)
            await recorded.zigong_match(wire, zigong, rng)
        with recorded.fixed_dealing([recorded.MATCH_SEED, recorded.DUYUN_KONGS_SEED], rng):
            await database_sync_to_async(services.match_start)(room=kongs.room)
            await recorded.kongs_then_abandoned(wire, kongs)

    asyncio.run(run())
    if os.environ.get("PROTOCOL_DUMP"):
        recorded.dump(wire, os.environ["PROTOCOL_DUMP"])
    return wire


def test_every_frame_and_message_of_real_games_fits_the_document(make_table: Any) -> None:
    wire = _record(make_table)
    started = time.monotonic()
    checker = Checker(_doc())
    problems: list[str] = []
    for socket, frame in wire.received:
        problems += [f"{socket} {frame.get('type')}: {e}" for e in checker.errors(TOP[socket],
                                                                                 frame)]
    for socket, message, well_formed in wire.sent:
        if not well_formed:
            continue
        problems += [f"sent {message!r}: {e}" for e in checker.errors(CLIENT[socket], message)]
    assert not problems, "\n".join(problems[:30])
    print(f"validated {len(wire.received)} frames, {len(wire.sent)} messages "
          f"in {time.monotonic() - started:.1f} s")

    # Junk fails the schema, and no message the schema accepts was refused as malformed.
    for socket, message, well_formed in wire.sent:
        if socket != "table" or well_formed or not isinstance(message, dict):
            continue
        assert checker.errors(CLIENT[socket], message), f"the schema accepts junk {message}"
    for message, reply in wire.refusals:
        if isinstance(message, dict) and not checker.errors("TableClientMessage", message):
            assert reply["code"] != "malformed", (message, reply)

    # Every schema was used, except the ones listed with a reason.
    schemas = set(_doc()["components"]["schemas"])
    never = schemas - checker.used
    assert never == set(NEVER_SEEN), f"unused: {sorted(never - set(NEVER_SEEN))}, " \
        f"used after all: {sorted(set(NEVER_SEEN) - never)}"


def test_the_documents_lists_are_the_servers() -> None:
    schemas = _doc()["components"]["schemas"]
    # The server's own codes and the rules' refusals, but hand_not_over, which only a
    # settlement asked of an unfinished hand raises: a move never does.
    refusal_codes = REFUSAL_CODES - {"hand_not_over"}
    assert not refusal_codes & set(ERROR_MESSAGES)  # one place words each code
    assert set(schemas["ErrorCode"]["enum"]) == set(ERROR_MESSAGES) | refusal_codes
    assert schemas["PhraseId"]["enum"] == list(PHRASES)
    events = schemas["Event"]["properties"]["type"]["enum"]
    dispatched = [branch["if"]["properties"]["type"]["const"]
                  for branch in schemas["Event"]["allOf"]]
    assert dispatched == events
    for kind, branch in zip(events, schemas["Event"]["allOf"], strict=True):
        target = branch["then"]["$ref"].rsplit("/", 1)[-1]
        assert schemas[target]["properties"]["type"]["const"] == kind
    checker = Checker(_doc())
    for code, message in ERROR_MESSAGES.items():
        assert not checker.errors("ChineseMessage", message), (code, message)
    for (code, reason), _ in TEMPLATES.items():
        for data in REFUSAL_SAMPLES:
            message = MatchError.from_rules(IllegalActionError(code, reason, **data)).message
            assert not checker.errors("ChineseMessage", message), (code, reason, message)


@pytest.mark.parametrize("message", [
    {"type": "discard", "tile": "5m", "v": 3},
    {"type": "discard", "tile": "5m", "declare": True, "ticks": ["1s"], "v": 3, "seat": 2},
    {"type": "pung", "tile": "9p", "v": 0},
    {"type": "win", "v": 7},
    {"type": "win", "v": 7.0},  # a JSON integer may be written with a fraction of zero
    {"type": "win", "v": 2**63 - 1},
    {"type": "declare", "v": 7},
    {"type": "declare", "ticks": [], "v": 7},
    {"type": "dissolve_vote", "agree": False},
    {"type": "hello"},
    {"type": "ready_next"},
    {"type": "contribute", "hand": 2, "value": "0123456789abcdef" * 4},
    {"type": "contribute", "hand": 3, "value": "ab" * 32, "v": 40},
])
def test_what_the_schema_accepts_the_parser_accepts(message: dict[str, Any]) -> None:
    assert not Checker(_doc()).errors("TableClientMessage", message)
    if message["type"] != "hello":
        parse_client_message(message)


@pytest.mark.parametrize("message", [
    {"type": "discard", "v": 3},
    {"type": "discard", "tile": None, "v": 3},
    {"type": "discard", "tile": "0m", "v": 3},
    {"type": "pass", "tile": "5m", "v": 3},
    {"type": "win", "declare": True, "v": 3},
    {"type": "declare", "ticks": ["1s"] * 5, "v": 3},
    {"type": "declare", "ticks": "1s", "v": 3},
    {"type": "pass"},
    {"type": "pass", "v": "3"},
    {"type": "pass", "v": True},
    {"type": "pass", "v": 3.5},
    {"type": "pass", "v": 2**63},
    {"type": "pass", "v": 1e19},
    {"type": "pass", "v": float("inf")},
    {"type": "dissolve_vote"},
    {"type": "contribute", "value": "ab" * 32},
    {"type": "contribute", "hand": "2", "value": "ab" * 32},
    {"type": "contribute", "hand": True, "value": "ab" * 32},
    {"type": "contribute", "hand": 2},
    {"type": "contribute", "hand": 2, "value": "AB" * 32},
    {"type": "contribute", "hand": 2, "value": "ab" * 31},
    {"type": "contribute", "hand": 2, "value": "ab" * 33},
    {"type": "contribute", "hand": 2, "value": "ab" * 31 + "ag"},
    {"type": "fly"},
])
def test_what_the_schema_refuses_the_parser_refuses_as_malformed(
    message: dict[str, Any],
) -> None:
    assert Checker(_doc()).errors("TableClientMessage", message)
    with pytest.raises(MatchError) as refused:
        parse_client_message(message)
    assert refused.value.code == "malformed"


def test_a_taken_computer_seat_fits_the_document() -> None:
    """``seat_taken`` (a member takes a computer seat between hands), as the catch-up of
    each viewer shows it."""
    room, owner, member = _club_room()
    room_sit(room=room, user=owner, seat=0)
    room_computers_fill(room=room, actor=owner)
    room_ready_set(room=room, user=owner, ready=True)
    match = Match.objects.get(room=room)
    for _ in range(2000):
        match.refresh_from_db()
        if match.stage != Match.Stage.HAND:
            break
        move = choose(round_now(match).observation(0))
        if move is not None:
            services.match_act(match_id=match.pk, user_id=owner.pk,
                               payload={**move, "v": view_version(match.views, 0)})
        else:
            _shift_clock(match.pk)
            services.match_timers_fire()
    assert match.stage == Match.Stage.BETWEEN
    computer.match_seat_take(match_id=match.pk, user=member, seat=2)
    match.refresh_from_db()
    checker = Checker(_doc())
    for viewer in (0, 2, None):
        since = view_version(match.views, viewer) - 1
        frame = table_catchup(match_id=match.pk, since=since, viewer=viewer)
        assert [e["type"] for e in frame["events"]] == ["seat_taken"]
        assert not checker.errors("TableFrame", frame)
    assert "SeatTakenEvent" in checker.used


def test_every_reference_in_the_document_resolves() -> None:
    doc = _doc()
    assert doc["asyncapi"].startswith("3.")

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                yield node["$ref"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    refs = set(walk(doc))
    for ref in refs:
        assert ref.startswith("#/"), ref
        target: Any = doc
        for part in ref[2:].split("/"):
            assert isinstance(target, dict) and part in target, f"{ref} does not resolve"
            target = target[part]
    # Every message is on a channel, and every channel message in an operation.
    messages = {r.rsplit("/", 1)[-1] for r in refs if r.startswith("#/components/messages/")}
    assert messages == set(doc["components"]["messages"])
    in_operations = {r for op in doc["operations"].values() for r in walk(op["messages"])}
    on_channels = {f"#/channels/{name}/messages/{key}"
                   for name, channel in doc["channels"].items() for key in channel["messages"]}
    assert in_operations == on_channels
