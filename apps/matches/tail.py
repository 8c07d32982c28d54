"""The log tail: the entries a writer whose cached state is behind needs to catch up.

A writer whose cached state is some versions behind (the match's last change was made by
another process) asks the lock for the log tail since its version as well
(:func:`apps.matches.rows.match_lock`): the same statement then also returns those
entries' actions and the seats' 托管 columns, as two JSON columns built here, so that the
writer catches its round up without another round trip (:mod:`apps.matches.state`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from .models import MatchEvent, MatchPlayer

TAIL_LIMIT = 64
"""Log entries a tail holds at most: an entry further behind is loaded again instead (its
tail would span hands, which needs that anyway)."""


@dataclass(frozen=True, slots=True)
class TailEntry:
    """A log entry after the writer's cached version: what catching up needs of it."""

    seq: int
    kind: str
    hand_id: int | None
    action: dict[str, Any] | None
    """The entry's action (``Action.to_json``), for an ``action`` entry."""


@dataclass(frozen=True, slots=True)
class LogTail:
    """The log entries with seq above ``since``, in order, and every seat's
    ``(consecutive_timeouts, auto_play)``, read in one snapshot.

    Under PostgreSQL's read committed, a lock that had to wait returns the row as the
    transaction it waited for left it, but reads the tail in the snapshot from before the
    wait: check :meth:`reaches` before trusting it.
    """

    since: int
    entries: list[TailEntry]
    seats: dict[int, tuple[int, bool]]

    def reaches(self, version: int) -> bool:
        """Whether the entries are exactly ``since + 1 … version`` (and there is at least
        one: an entry tagged with a later version than the row's is never caught up)."""
        return self.since < version and (
            [e.seq for e in self.entries] == list(range(self.since + 1, version + 1))
        )

    def stays_in(self, hand_id: int) -> bool:
        """Whether a writer's state of hand ``hand_id`` can follow every entry: actions of
        that hand, table events, and that hand's end (true of an empty tail). A deal or the
        match's end cannot be followed."""
        return all(
            (e.kind == MatchEvent.Kind.ACTION and e.hand_id == hand_id and e.action is not None)
            or e.kind == MatchEvent.Kind.TABLE
            or (e.kind == MatchEvent.Kind.HAND_END and e.hand_id == hand_id)
            for e in self.entries
        )

    def ends_hand(self) -> bool:
        """Whether a hand's end is among the entries (its ``Hand`` row changed)."""
        return any(e.kind == MatchEvent.Kind.HAND_END for e in self.entries)


def tail_columns(connection: BaseDatabaseWrapper, match_pk: str) -> str:
    """Two JSON columns: the log entries with seq above the first parameter and up to the
    second, as ``[seq, kind, hand_id, action]``, and the seats as
    ``[seat, timeouts, auto_play]``."""
    quote = connection.ops.quote_name

    def column(model: type[Model], name: str) -> str:
        found = model._meta.get_field(name)
        assert isinstance(found, Field) and found.column is not None
        return quote(found.column)

    payload = column(MatchEvent, "payload")
    if connection.vendor == "postgresql":
        agg, array, action = "json_agg", "json_build_array", f"{payload} -> 'action'"
    else:
        assert connection.vendor == "sqlite", connection.vendor  # its JSON1 functions
        agg, array = "json_group_array", "json_array"
        action = f"json_extract({payload}, '$.action')"
    entries = ", ".join(column(MatchEvent, n) for n in ("seq", "kind", "hand"))
    seats = ", ".join(column(MatchPlayer, n) for n in ("seat", "consecutive_timeouts",
                                                      "auto_play"))
    return (
        f"(SELECT {agg}({array}({entries}, {action})) "
        f"FROM {quote(MatchEvent._meta.db_table)} WHERE {column(MatchEvent, 'match')} = "
        f"{match_pk} AND {column(MatchEvent, 'seq')} > %s "
        f"AND {column(MatchEvent, 'seq')} <= %s), "
        f"(SELECT {agg}({array}({seats})) "
        f"FROM {quote(MatchPlayer._meta.db_table)} WHERE {column(MatchPlayer, 'match')} = "
        f"{match_pk})"
    )


def tail_of(since: int, entries: Any, seats: Any) -> LogTail:
    """Decode the two JSON columns (text on SQLite, already parsed on PostgreSQL)."""
    entries = json.loads(entries) if isinstance(entries, str) else entries or []
    seats = json.loads(seats) if isinstance(seats, str) else seats or []
    return LogTail(
        since,
        sorted((TailEntry(int(seq), kind, hand, action) for seq, kind, hand, action in entries),
               key=lambda e: e.seq),
        {int(seat): (int(timeouts), bool(auto)) for seat, timeouts, auto in seats},
    )
