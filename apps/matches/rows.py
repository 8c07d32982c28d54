"""The statements of every change to a match, built once per database connection.

Lock and read the match row, update it, insert the change's log rows: every change on the
locked path runs these (the last two as one statement on PostgreSQL, :func:`change_write`).
A player's move made from the cache runs only the last two, as one statement that writes
nothing unless the row is still the cached one (:func:`change_write_if`). Building them through
the ORM (a new ``Query``, compiled anew each time) cost about as much CPU as the rest of the
move. Here each statement's SQL, and the conversions of each column to and from the
database, are taken from the models' own metadata the first time a connection needs them,
so they follow the models, on SQLite and PostgreSQL alike. Values still pass through each
field's ``get_db_prep_save`` and the backend's converters, exactly as the ORM would;
``tests/matches/test_rows.py`` checks both against the ORM.

A writer whose cached state is some versions behind (the match's last change was made by
another process) asks the lock for the log *tail* since its version as well: the same
statement then also returns those entries' actions and the seats' 托管 columns, so that the
writer catches its round up without another round trip (:mod:`apps.matches.state`).
"""

from __future__ import annotations

import copy
import json
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, OperationalError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from .models import Match, MatchEvent, MatchPlayer

FROZEN_MATCH_FIELDS = frozenset({"id", "room", "club", "variant", "settings", "hands_total",
                                 "created_at"})
"""Set when a match is created and never changed: a change does not write them again."""
MUTABLE_MATCH_FIELDS = [
    f.name for f in Match._meta.concrete_fields if f.name not in FROZEN_MATCH_FIELDS
]
"""The columns a change writes back."""

Converter = Callable[[Any, Any, Any], Any]
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


@dataclass(frozen=True, slots=True)
class LockedMatch:
    """The locked match row, with the log tail when one was asked for."""

    match: Match
    tail: LogTail | None


@dataclass(frozen=True, slots=True)
class _Statements:
    lock_sql: str
    lock_tail_sql: str
    """``lock_sql`` that also reads the log tail and the seats (parameters: since, since +
    :data:`TAIL_LIMIT`, id)."""
    tail_sql: str
    """The log tail and the seats alone (parameters as ``lock_tail_sql``)."""
    lock_names: list[str]
    converters: list[tuple[int, list[Converter]]]
    """Per column of the lock's result that needs it: (index, converters in order)."""
    update_sql: str
    update_fields: list[Field[Any, Any]]
    insert_sql: str
    """Up to ``VALUES``; each row adds ``row_sql``."""
    row_sql: str
    insert_fields: list[Field[Any, Any]]
    update_if_sql: str
    """``update_sql`` that changes the row only if every mutable column still holds what a
    cached entry holds (extra parameters: those values, in ``update_fields`` order)."""
    update_if_nowait_sql: str
    """``update_if_sql`` that fails at once if another transaction holds the row (one more
    parameter: the id)."""
    typed_row_sql: str
    """``row_sql`` with each value cast to its column's type (rows not written straight
    into a table by ``VALUES`` get no types from it)."""
    insert_select_sql: str
    """The insert of rows selected from ``VALUES``: up to the first ``typed_row_sql``."""


_statements: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Statements] = (
    weakref.WeakKeyDictionary()
)
LOCK_NOT_AVAILABLE = "55P03"
"""PostgreSQL's SQLSTATE for a ``NOWAIT`` lock that another transaction holds."""
_without_waiting: ContextVar[bool] = ContextVar("match_lock_without_waiting", default=False)


class MatchBusyError(Exception):
    """The match's row is locked by another process's change, and the lock was asked for
    without waiting (:func:`lock_without_waiting`). Nothing was changed."""


@contextmanager
def lock_without_waiting() -> Iterator[None]:
    """Within this block, :func:`match_lock` raises :class:`MatchBusyError` instead of waiting
    for a match row that another transaction holds (PostgreSQL's ``NOWAIT``; SQLite has no
    row locks). A move process uses it: waiting there would hold up the calls of every
    other match it serves."""
    token = _without_waiting.set(True)
    try:
        yield
    finally:
        _without_waiting.reset(token)


def _built() -> tuple[BaseDatabaseWrapper, _Statements]:
    """This thread's connection and its statements (built on first use)."""
    connection = connections[DEFAULT_DB_ALIAS]
    statements = _statements.get(connection)
    if statements is None:
        statements = _statements[connection] = _build(connection)
    return connection, statements


def _build(connection: BaseDatabaseWrapper) -> _Statements:
    quote = connection.ops.quote_name
    match_table = quote(Match._meta.db_table)
    columns = Match._meta.concrete_fields
    selected = ", ".join(f"{match_table}.{quote(f.column)}" for f in columns)
    match_pk = f"{match_table}.{quote(Match._meta.pk.column)}"
    where = f" FROM {match_table} WHERE {match_pk} = %s"
    lock_sql = f"SELECT {selected}{where}"
    tail = _tail_columns(connection, match_pk)
    lock_tail_sql = f"SELECT {selected}, {tail}{where}"
    tail_sql = f"SELECT {tail}{where}"
    if connection.features.has_select_for_update:
        lock_sql += " FOR UPDATE"
        lock_tail_sql += f" FOR UPDATE OF {match_table}"
    converters: list[tuple[int, list[Converter]]] = []
    for index, f in enumerate(columns):
        col = f.get_col(Match._meta.db_table)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            converters.append((index, found))
    update_fields = [_match_field(name) for name in MUTABLE_MATCH_FIELDS]
    update_sql = (
        f"UPDATE {match_table} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in update_fields)
        + f" WHERE {quote(Match._meta.pk.column)} = %s"
    )
    insert_fields = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    insert_into = (f"INSERT INTO {quote(MatchEvent._meta.db_table)} "
                   f"({', '.join(quote(f.column) for f in insert_fields)})")
    insert_sql = f"{insert_into} VALUES "
    row_sql = "(" + ", ".join(["%s"] * len(insert_fields)) + ")"
    typed_row_sql = "(" + ", ".join(f"%s::{f.cast_db_type(connection)}"
                                    for f in insert_fields) + ")"
    if connection.vendor == "postgresql":
        # One row comparison; the casts type the parameters as the columns.
        update_if_sql = (
            f"{update_sql} AND ({', '.join(quote(_column(f)) for f in update_fields)}) "
            f"IS NOT DISTINCT FROM "
            f"({', '.join(f'%s::{f.cast_db_type(connection)}' for f in update_fields)})"
        )
    else:
        update_if_sql = update_sql + "".join(f" AND {quote(_column(f))} IS %s"
                                             for f in update_fields)
    # Without waiting: lock the row first (an init plan, run before the update looks for
    # it), failing at once if another transaction holds it. As strong as the update's own
    # lock and no stronger: a foreign-key check's KEY SHARE does not make it busy.
    update_if_nowait_sql = (
        f"{update_if_sql} AND EXISTS (SELECT FROM {match_table} AS held "
        f"WHERE held.{quote(_column(_match_field('id')))} = %s FOR NO KEY UPDATE NOWAIT)"
        if connection.features.has_select_for_update_nowait else update_if_sql
    )
    return _Statements(lock_sql, lock_tail_sql, tail_sql, [f.attname for f in columns],
                       converters, update_sql, update_fields, insert_sql, row_sql,
                       insert_fields, update_if_sql, update_if_nowait_sql, typed_row_sql,
                       f"{insert_into} SELECT * FROM (VALUES ")


def _match_field(name: str) -> Field[Any, Any]:
    found = Match._meta.get_field(name)
    assert isinstance(found, Field)
    return found


def _column(found: Field[Any, Any]) -> str:
    assert found.column is not None
    return found.column


def _tail_columns(connection: BaseDatabaseWrapper, match_pk: str) -> str:
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


def match_lock(match_id: int, *, since: int | None = None) -> LockedMatch:
    """Lock the match row for this transaction (``SELECT … FOR UPDATE``) and read it; with
    ``since``, also read the log tail after that version (:class:`LogTail`, at most
    :data:`TAIL_LIMIT` entries).

    Raises :class:`Match.DoesNotExist` when there is no such match, and
    :class:`MatchBusyError` when the row is locked and this is inside
    :func:`lock_without_waiting`.
    """
    connection, statements = _built()
    nowait = _without_waiting.get() and connection.features.has_select_for_update_nowait
    if since is None:
        sql, params = statements.lock_sql, [match_id]
    else:
        sql, params = statements.lock_tail_sql, [since, since + TAIL_LIMIT, match_id]
    with connection.cursor() as cursor:
        try:
            cursor.execute(sql + " NOWAIT" if nowait else sql, params)
        except OperationalError as error:
            if nowait and getattr(error.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
                raise MatchBusyError(f"match {match_id} is locked by another change") from None
            raise
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"no match {match_id}")
    count = len(statements.lock_names)
    values = list(row[:count])
    for index, found in statements.converters:
        col = Match._meta.concrete_fields[index]
        for convert in found:
            values[index] = convert(values[index], col, connection)
    match = Match.from_db(connection.alias, statements.lock_names, values)
    tail = None if since is None else _tail_of(since, row[count], row[count + 1])
    return LockedMatch(match, tail)


def log_tail(match_id: int, since: int) -> LogTail:
    """The log tail after ``since`` and the seats, read now (for a writer that holds the
    row lock: it found the tail read with the lock incomplete, or locked without one)."""
    connection, statements = _built()
    with connection.cursor() as cursor:
        cursor.execute(statements.tail_sql, [since, since + TAIL_LIMIT, match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"no match {match_id}")
    return _tail_of(since, row[0], row[1])


def _tail_of(since: int, entries: Any, seats: Any) -> LogTail:
    """Decode the two JSON columns (text on SQLite, already parsed on PostgreSQL)."""
    entries = json.loads(entries) if isinstance(entries, str) else entries or []
    seats = json.loads(seats) if isinstance(seats, str) else seats or []
    return LogTail(
        since,
        sorted((TailEntry(int(seq), kind, hand, action) for seq, kind, hand, action in entries),
               key=lambda e: e.seq),
        {int(seat): (int(timeouts), bool(auto)) for seat, timeouts, auto in seats},
    )


def change_write(match: Match, entries: Sequence[MatchEvent]) -> None:
    """Write the match's mutable columns and insert a change's new log rows.

    On PostgreSQL one statement: the insert rides on the update as a data-modifying
    ``WITH``, which saves every move a round trip. SQLite has no such statements, so there
    it is :func:`match_write`, then :func:`events_insert`.
    """
    connection, statements = _built()
    if not entries or connection.vendor != "postgresql":
        match_write(match)
        events_insert(entries)
        return
    insert_sql, insert_params = _insert(connection, statements, entries)
    _update(connection, match, f"WITH logged AS ({insert_sql}) {statements.update_sql}",
            [*insert_params, *_update_params(connection, statements, match)])


@dataclass(frozen=True, slots=True)
class Expected:
    """What a change made from a cached entry, without the row lock, takes the match row to
    be: every mutable column of the cached match (:data:`MUTABLE_MATCH_FIELDS`), as it was
    when the change began.

    Every change bumps the version, and only two writes leave it alone: a timer that
    re-arms (``timer_due``), and a match marked dissolved by a plain update (``status``).
    Comparing every column also catches a row changed by hand, which must not be written
    back over.
    """

    values: tuple[Any, ...]

    @classmethod
    def of(cls, match: Match) -> Expected:
        """What ``match`` (a cached row) holds now (JSON values copied: the change replaces
        them, but nothing may alter what it is compared with)."""
        _, statements = _built()
        return cls(tuple(copy.deepcopy(getattr(match, f.attname)) if f.get_internal_type()
                         == "JSONField" else getattr(match, f.attname)
                         for f in statements.update_fields))

    def differs(self, row: Match, *, but: frozenset[str] = frozenset()) -> list[str]:
        """The names of the mutable columns where ``row`` holds something else, except
        those in ``but``."""
        _, statements = _built()
        return [f.name for f, value in zip(statements.update_fields, self.values, strict=True)
                if f.name not in but and getattr(row, f.attname) != value]


def change_write_if(match: Match, entries: Sequence[MatchEvent], expected: Expected) -> bool:
    """Write the match and insert the change's log rows only if the row is still as
    ``expected``; return whether it was (else nothing is written).

    Called outside a transaction: on PostgreSQL it is one statement, which commits by
    itself (the insert follows the update only if that changed the row), so an ordinary
    move costs one round trip and no ``BEGIN`` or ``COMMIT``. SQLite runs the update, then
    the insert, in a transaction of its own. Inside :func:`lock_without_waiting`, raises
    :class:`MatchBusyError` (nothing written) if another transaction holds the row.
    """
    connection, statements = _built()
    params = [*_update_params(connection, statements, match),
              *(f.get_db_prep_save(value, connection)
                for f, value in zip(statements.update_fields, expected.values, strict=True))]
    if connection.vendor != "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statements.update_if_sql, params)
            if cursor.rowcount != 1:
                return False
            events_insert(entries)
            return True
    update = statements.update_if_sql
    if _without_waiting.get() and connection.features.has_select_for_update_nowait:
        update = statements.update_if_nowait_sql
        params.append(match.pk)
    for entry in entries:
        params.extend(_insert_values(connection, statements, entry))
    sql = (
        f"WITH updated AS ({update} RETURNING 1) {statements.insert_select_sql}"
        f"{', '.join([statements.typed_row_sql] * len(entries))}) "
        f"AS logged WHERE EXISTS (SELECT FROM updated)"
    )
    with connection.cursor() as cursor:
        try:
            cursor.execute(sql, params)
        except OperationalError as error:
            if getattr(error.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
                raise MatchBusyError(f"match {match.pk} is locked by another change") from None
            raise
        return bool(cursor.rowcount == len(entries))


def match_write(match: Match) -> None:
    """Write the match's mutable columns (:data:`MUTABLE_MATCH_FIELDS`)."""
    connection, statements = _built()
    _update(connection, match, statements.update_sql,
            _update_params(connection, statements, match))


def events_insert(entries: Sequence[MatchEvent]) -> None:
    """Insert new log rows in one statement (their ``id`` is left unset)."""
    if not entries:
        return
    connection, statements = _built()
    sql, params = _insert(connection, statements, entries)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _update_params(connection: BaseDatabaseWrapper, statements: _Statements,
                   match: Match) -> list[Any]:
    params = [
        f.get_db_prep_save(f.pre_save(match, False), connection)
        for f in statements.update_fields
    ]
    params.append(match.pk)
    return params


def _update(connection: BaseDatabaseWrapper, match: Match, sql: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(f"match {match.pk}: the update changed no row")


def _insert(connection: BaseDatabaseWrapper, statements: _Statements,
            entries: Sequence[MatchEvent]) -> tuple[str, list[Any]]:
    params: list[Any] = []
    for entry in entries:
        params.extend(_insert_values(connection, statements, entry))
    return statements.insert_sql + ", ".join([statements.row_sql] * len(entries)), params


def _insert_values(connection: BaseDatabaseWrapper, statements: _Statements,
                   entry: MatchEvent) -> list[Any]:
    return [f.get_db_prep_save(f.pre_save(entry, True), connection)
            for f in statements.insert_fields]
