"""The statements of every change to a match, built once per database connection.

Lock and read the match row, update it, insert the change's log rows: every change on the
locked path runs these (the last two as one statement on PostgreSQL, :func:`change_write`).
A player's move made from the cache runs only the last two, as one statement that writes
nothing unless the row is still the cached one; a row whose live timer alone moved on is
written by a second statement that applies the timer rule to it (:func:`change_write_if`).
Building them through the ORM (a new ``Query``, compiled anew each time) cost about as
much CPU as the rest of the move. Here each statement's SQL, and the conversions of each
column to and from the database, are taken from the models' own metadata the first time
a connection needs them, so they follow the models, on SQLite and PostgreSQL alike.
Values still pass through each field's ``get_db_prep_save`` and the backend's converters,
exactly as the ORM would; ``tests/matches/test_rows.py`` checks both against the ORM.

A writer whose cached state is some versions behind asks the lock for the log tail since
its version as well (:mod:`apps.matches.tail`).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, OperationalError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field

from .models import Match, MatchEvent
from .tail import TAIL_LIMIT, LogTail, tail_columns, tail_of
from .timers import TimerRule

FROZEN_MATCH_FIELDS = frozenset({"id", "room", "club", "variant", "settings", "hands_total",
                                 "created_at"})
"""Set when a match is created and never changed: a change does not write them again."""
MUTABLE_MATCH_FIELDS = [
    f.name for f in Match._meta.concrete_fields if f.name not in FROZEN_MATCH_FIELDS
]
"""The columns a change writes back."""

Converter = Callable[[Any, Any, Any], Any]
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
    update_same_sql: str
    """PostgreSQL: ``update_sql`` that changes the row only if every mutable column, the
    live timer included, still holds what the cached entry holds (extra parameters: those
    values, in ``update_fields`` order)."""
    update_same_nowait_sql: str
    """``update_same_sql`` that fails at once if another transaction holds the row (one
    more parameter: the id)."""
    update_rule_sql: str
    """The update of a change made from the cache that applies the timer rule to the row's
    own live timer: it changes the row only if every mutable column but ``timer_due``
    still holds what the cached entry holds (parameters: see :func:`_write_by_rule`). On
    PostgreSQL the start of a ``WITH``: the row's live timer, read with the row's lock
    (``was``), then the update (``updated``), which returns ``due`` and ``was``."""
    update_rule_nowait_sql: str
    """``update_rule_sql`` that fails at once if another transaction holds the row."""
    timer_sql: str
    """SQLite: read the row's live timer (parameter: the id)."""
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
    selected = ", ".join(f"{match_table}.{quote(_column(f))}" for f in columns)
    match_pk = f"{match_table}.{quote(_column(Match._meta.pk))}"
    where = f" FROM {match_table} WHERE {match_pk} = %s"
    lock_sql = f"SELECT {selected}{where}"
    tail = tail_columns(connection, match_pk)
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
        + ", ".join(f"{quote(_column(f))} = %s" for f in update_fields)
        + f" WHERE {quote(_column(Match._meta.pk))} = %s"
    )
    insert_fields = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    insert_into = (f"INSERT INTO {quote(MatchEvent._meta.db_table)} "
                   f"({', '.join(quote(_column(f)) for f in insert_fields)})")
    insert_sql = f"{insert_into} VALUES "
    row_sql = "(" + ", ".join(["%s"] * len(insert_fields)) + ")"
    typed_row_sql = "(" + ", ".join(f"%s::{f.cast_db_type(connection)}"
                                    for f in insert_fields) + ")"
    compared = [f for f in update_fields if f.name != "timer_due"]
    timer = quote(_column(_match_field("timer_due")))
    timer_sql = f"SELECT {timer}{where}"
    if connection.vendor == "postgresql":
        # One row comparison; the casts type the parameters as the columns.
        def same(fields: list[Field[Any, Any]]) -> str:
            return (f"({', '.join(quote(_column(f)) for f in fields)}) IS NOT DISTINCT FROM "
                    f"({', '.join(f'%s::{f.cast_db_type(connection)}' for f in fields)})")

        update_same_sql = f"{update_sql} AND {same(update_fields)}"
        # Without waiting: lock the row first (an init plan, run before the update looks
        # for it), failing at once if another transaction holds it. As strong as the
        # update's own lock and no stronger: a foreign-key check's KEY SHARE does not make
        # it busy.
        update_same_nowait_sql = (
            f"{update_same_sql} AND EXISTS (SELECT FROM {match_table} AS held "
            f"WHERE held.{quote(_column(_match_field('id')))} = %s "
            f"FOR NO KEY UPDATE NOWAIT)"
        )
        # Read the live timer with the update's own lock, which returns the row as any
        # transaction it waited for left it; the update then writes that row.
        moment = f"%s::{_match_field('timer_due').cast_db_type(connection)}"
        sets = ", ".join(
            f"{timer} = CASE WHEN was.due > {moment} AND was.due <= {moment} "
            f"THEN was.due ELSE COALESCE({moment}, was.due) END" if f.name == "timer_due"
            else f"{quote(_column(f))} = %s" for f in update_fields
        )
        lock = f"SELECT {timer} AS due{where} FOR NO KEY UPDATE OF {match_table}"
        update = (
            f"updated AS (UPDATE {match_table} SET {sets} FROM was "
            f"WHERE {match_pk} = %s AND {same(compared)} "
            f"RETURNING {match_table}.{timer} AS due, was.due AS was)"
        )
        update_rule_sql = f"WITH was AS ({lock}), {update}"
        update_rule_nowait_sql = f"WITH was AS ({lock} NOWAIT), {update}"
    else:
        update_same_sql = update_same_nowait_sql = ""  # SQLite writes by the rule alone
        update_rule_sql = update_rule_nowait_sql = update_sql + "".join(
            f" AND {quote(_column(f))} IS %s" for f in compared
        )
    return _Statements(lock_sql, lock_tail_sql, tail_sql, [f.attname for f in columns],
                       converters, update_sql, update_fields, insert_sql, row_sql,
                       insert_fields, update_same_sql, update_same_nowait_sql,
                       update_rule_sql, update_rule_nowait_sql, timer_sql, typed_row_sql,
                       f"{insert_into} SELECT * FROM (VALUES ")


def _match_field(name: str) -> Field[Any, Any]:
    found = Match._meta.get_field(name)
    assert isinstance(found, Field)
    return found


def _column(found: Field[Any, Any]) -> str:
    assert found.column is not None
    return found.column


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
    tail = None if since is None else tail_of(since, row[count], row[count + 1])
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
    return tail_of(since, row[0], row[1])


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
    back over. A write that finds only ``timer_due`` moved on is not refused: it applies
    the timer rule to the row's own (:func:`change_write_if`, :mod:`apps.matches.timers`).
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

    @property
    def timer_due(self) -> datetime | None:
        """The cached row's live timer."""
        value: datetime | None = self.values[MUTABLE_MATCH_FIELDS.index("timer_due")]
        return value

    def differs(self, row: Match, *, but: frozenset[str] = frozenset()) -> list[str]:
        """The names of the mutable columns where ``row`` holds something else, except
        those in ``but``."""
        _, statements = _built()
        return [f.name for f, value in zip(statements.update_fields, self.values, strict=True)
                if f.name not in but and getattr(row, f.attname) != value]


@dataclass(frozen=True, slots=True)
class Written:
    """What a conditional write (:func:`change_write_if`) did to the live timer."""

    was: datetime | None
    """The row's live timer before the write."""
    due: datetime | None
    """The live timer the write left (``Match.timer_due``)."""

    @property
    def armed(self) -> bool:
        """Whether the write armed a new timer, which must now be published."""
        return self.due is not None and self.due != self.was


def change_write_if(match: Match, entries: Sequence[MatchEvent], expected: Expected,
                    timer: TimerRule) -> Written | None:
    """Write the match and insert the change's log rows only if every column but
    ``timer_due`` is still as ``expected``; the row's live timer is kept or replaced by the
    timer rule, whatever the cache holds. Return what the write did to the timer, or
    ``None`` when the row moved on (nothing is written then).

    Called outside a transaction. On PostgreSQL each try is one statement, which commits
    by itself (the insert follows the update only if that changed the row), so an
    ordinary move costs one round trip and no ``BEGIN`` or ``COMMIT``. The first try
    applies the rule to the cached timer and writes only if the whole row is still the
    cached one, the cheaper statement. If it is not, and the cached timer was due by now
    (only a timer that fired re-arms), a second try applies the rule to the row's own
    timer (:func:`_write_by_rule`). Inside :func:`lock_without_waiting`, raises
    :class:`MatchBusyError` (nothing written) if another transaction holds the row.
    SQLite reads the timer, then runs the update and the insert, in a transaction of its
    own (``BEGIN IMMEDIATE``: no other writer in between).
    """
    connection, statements = _built()
    if connection.vendor != "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statements.timer_sql, [match.pk])
            row = cursor.fetchone()
            if row is None:
                return None
            was, live = _converted(connection, "timer_due", row[0]), expected.timer_due
            if was != live and live is not None and live > timer.now:
                return None  # as on PostgreSQL: a timer that has not fired never re-arms
            match.timer_due = timer.live_after(was)
            cursor.execute(statements.update_rule_sql,
                           [*_update_params(connection, statements, match),
                            *_compared_params(connection, statements, expected)])
            if cursor.rowcount != 1:
                return None
            events_insert(entries)
            return Written(was, match.timer_due)
    nowait = _without_waiting.get() and connection.features.has_select_for_update_nowait
    inserts = [value for entry in entries
               for value in _insert_values(connection, statements, entry)]
    live = expected.timer_due
    match.timer_due = timer.live_after(live)
    params = [*_update_params(connection, statements, match),
              *(f.get_db_prep_save(value, connection)
                for f, value in zip(statements.update_fields, expected.values, strict=True))]
    if nowait:
        params.append(match.pk)
    update = statements.update_same_nowait_sql if nowait else statements.update_same_sql
    sql = (f"WITH updated AS ({update} RETURNING 1) {_logged_select(statements, entries)} "
           f"AS entries WHERE EXISTS (SELECT FROM updated)")
    written, _ = _execute(sql, [*params, *inserts], match, fetch=False)
    if written == len(entries):
        return Written(live, match.timer_due)
    if live is not None and live > timer.now:
        return None  # the cached timer has not fired, so it cannot have re-armed: moved on
    return _write_by_rule(match, entries, expected, timer, inserts, nowait=nowait)


def _write_by_rule(match: Match, entries: Sequence[MatchEvent], expected: Expected,
                   timer: TimerRule, inserts: list[Any], *, nowait: bool) -> Written | None:
    """PostgreSQL: the write of :func:`change_write_if` that applies the timer rule to the
    row's own live timer, read under the row's lock, in one statement."""
    connection, statements = _built()
    params: list[Any] = [match.pk]
    for f in statements.update_fields:
        if f.name == "timer_due":
            params.extend(f.get_db_prep_save(moment, connection)
                          for moment in (timer.now, timer.due, timer.due))
        else:
            params.append(f.get_db_prep_save(f.pre_save(match, False), connection))
    params.extend([match.pk, *_compared_params(connection, statements, expected), *inserts])
    sql = (
        f"{statements.update_rule_nowait_sql if nowait else statements.update_rule_sql}, "
        f"logged AS ({_logged_select(statements, entries)} "
        f"AS entries WHERE EXISTS (SELECT FROM updated) RETURNING 1) "
        f"SELECT due, was, (SELECT count(*) FROM logged) FROM updated"
    )
    _, row = _execute(sql, params, match, fetch=True)
    if row is None:
        return None
    assert row[2] == len(entries), f"match {match.pk}: {row[2]} of {len(entries)} logged"
    return Written(_converted(connection, "timer_due", row[1]),
                   _converted(connection, "timer_due", row[0]))


def _execute(sql: str, params: list[Any], match: Match, *, fetch: bool) -> tuple[int, Any]:
    """Run a conditional write; return its row count and (with ``fetch``) its first row.
    A row lock asked for without waiting and found held raises :class:`MatchBusyError`."""
    connection, _ = _built()
    with connection.cursor() as cursor:
        try:
            cursor.execute(sql, params)
        except OperationalError as error:
            if getattr(error.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
                raise MatchBusyError(f"match {match.pk} is locked by another change") from None
            raise
        return cursor.rowcount, cursor.fetchone() if fetch else None


def _compared_params(connection: BaseDatabaseWrapper, statements: _Statements,
                     expected: Expected) -> list[Any]:
    """The expected values of every mutable column but ``timer_due``, for the database."""
    return [f.get_db_prep_save(value, connection) for f, value
            in zip(statements.update_fields, expected.values, strict=True)
            if f.name != "timer_due"]


def _logged_select(statements: _Statements, entries: Sequence[MatchEvent]) -> str:
    """The insert of the change's log rows, up to the alias of the rows it selects."""
    return (f"{statements.insert_select_sql}"
            f"{', '.join([statements.typed_row_sql] * len(entries))})")


def _converted(connection: BaseDatabaseWrapper, name: str, value: Any) -> Any:
    """A raw value of a match column as the ORM would return it."""
    col = _match_field(name).get_col(Match._meta.db_table)
    for convert in connection.ops.get_db_converters(col) + col.get_db_converters(connection):
        value = convert(value, col, connection)
    return value


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
