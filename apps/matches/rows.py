"""The three statements of every change to a match, built once per database connection.

Lock and read the match row, update it, insert the change's log rows: every move runs these
three, and building them through the ORM (a new ``Query``, compiled anew each time) cost
about as much CPU as the rest of the move. Here each statement's SQL, and the conversions
of each column to and from the database, are taken from the models' own metadata the first
time a connection needs them, so they follow the models, on SQLite and PostgreSQL alike.
Values still pass through each field's ``get_db_prep_save`` and the backend's converters,
exactly as the ORM would; ``tests/matches/test_rows.py`` checks both against the ORM.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field

from .models import Match, MatchEvent

FROZEN_MATCH_FIELDS = frozenset({"id", "room", "club", "variant", "settings", "hands_total",
                                 "created_at"})
"""Set when a match is created and never changed: a change does not write them again."""
MUTABLE_MATCH_FIELDS = [
    f.name for f in Match._meta.concrete_fields if f.name not in FROZEN_MATCH_FIELDS
]
"""The columns a change writes back."""

Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True, slots=True)
class _Statements:
    lock_sql: str
    lock_names: list[str]
    converters: list[tuple[int, list[Converter]]]
    """Per column of the lock's result that needs it: (index, converters in order)."""
    update_sql: str
    update_fields: list[Field[Any, Any]]
    insert_sql: str
    """Up to ``VALUES``; each row adds ``row_sql``."""
    row_sql: str
    insert_fields: list[Field[Any, Any]]


_statements: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Statements] = (
    weakref.WeakKeyDictionary()
)


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
    lock_sql = (
        f"SELECT {', '.join(quote(f.column) for f in columns)} FROM {match_table} "
        f"WHERE {quote(Match._meta.pk.column)} = %s"
    )
    if connection.features.has_select_for_update:
        lock_sql += " FOR UPDATE"
    converters: list[tuple[int, list[Converter]]] = []
    for index, f in enumerate(columns):
        col = f.get_col(Match._meta.db_table)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            converters.append((index, found))
    update_fields = [Match._meta.get_field(name) for name in MUTABLE_MATCH_FIELDS]
    update_sql = (
        f"UPDATE {match_table} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in update_fields)
        + f" WHERE {quote(Match._meta.pk.column)} = %s"
    )
    insert_fields = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    insert_sql = (
        f"INSERT INTO {quote(MatchEvent._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in insert_fields)}) VALUES "
    )
    row_sql = "(" + ", ".join(["%s"] * len(insert_fields)) + ")"
    return _Statements(lock_sql, [f.attname for f in columns], converters, update_sql,
                       update_fields, insert_sql, row_sql, insert_fields)


def match_lock(match_id: int) -> Match:
    """Lock the match row for this transaction (``SELECT … FOR UPDATE``) and read it.

    Raises :class:`Match.DoesNotExist` when there is no such match.
    """
    connection, statements = _built()
    with connection.cursor() as cursor:
        cursor.execute(statements.lock_sql, [match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"no match {match_id}")
    values = list(row)
    for index, found in statements.converters:
        col = Match._meta.concrete_fields[index]
        for convert in found:
            values[index] = convert(values[index], col, connection)
    return Match.from_db(connection.alias, statements.lock_names, values)


def match_write(match: Match) -> None:
    """Write the match's mutable columns (:data:`MUTABLE_MATCH_FIELDS`)."""
    connection, statements = _built()
    params = [
        f.get_db_prep_save(f.pre_save(match, False), connection)
        for f in statements.update_fields
    ]
    params.append(match.pk)
    with connection.cursor() as cursor:
        cursor.execute(statements.update_sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(f"match {match.pk}: the update changed no row")


def events_insert(entries: Sequence[MatchEvent]) -> None:
    """Insert new log rows in one statement (their ``id`` is left unset)."""
    if not entries:
        return
    connection, statements = _built()
    params: list[Any] = []
    for entry in entries:
        params.extend(
            f.get_db_prep_save(f.pre_save(entry, True), connection)
            for f in statements.insert_fields
        )
    sql = statements.insert_sql + ", ".join([statements.row_sql] * len(entries))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
