"""The PostgreSQL backend's health check (``apps/core/postgresql/base.py``): a quiet
connection is reused without a ``SELECT 1``; one that the server ended is found unusable,
closed, and replaced before the next statement, so that statement does not fail."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.db.backends.postgresql import base as django_postgresql

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs PostgreSQL (DATABASE_URL): SQLite has no health check"),
]


@pytest.fixture
def pings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Keep connections across requests, as the servers do (``conn_max_age``); count
    Django's own ``SELECT 1`` pings."""
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    count: list[int] = []
    ping = django_postgresql.DatabaseWrapper.is_usable

    def counted(self: Any) -> bool:
        count.append(1)
        return bool(ping(self))

    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", counted)
    yield count
    connection.close()  # opened with the test's CONN_MAX_AGE


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _terminate(pid: int) -> None:
    """End backend ``pid`` from another connection, as a server restart would."""
    params = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in params.items()
                            if k not in ("cursor_factory", "context", "prepare_threshold")},
                         autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        # It signals the backend and returns: wait until the backend has gone.
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
            assert time.monotonic() < deadline, f"backend {pid} did not end"
            time.sleep(0.01)


def test_the_settings_select_this_backend() -> None:
    assert connection.settings_dict["ENGINE"] == "apps.core.postgresql"
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True


def test_a_quiet_connection_is_reused_without_a_ping(pings: list[int]) -> None:
    pid = _backend_pid()
    for _ in range(3):
        close_old_connections()  # a new request, task or move: the check runs again
        assert _backend_pid() == pid
    assert pings == []


def test_a_connection_the_server_ended_is_replaced_before_the_next_statement(
    pings: list[int],
) -> None:
    pid = _backend_pid()
    _terminate(pid)
    close_old_connections()
    # The first statement after the server ended the old backend runs on a new one.
    assert _backend_pid() != pid
    assert pings == [1], "the readable socket is confirmed with one SELECT 1"
