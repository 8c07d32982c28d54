"""Each HTTP request's database connections are closed when it ends
(``apps.core.connections``), so a burst of requests served by ASGI leaves no idle
connections behind for the garbage collector."""

from __future__ import annotations

import gc

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.core.asgi import get_asgi_application
from django.core.signals import request_finished
from django.db import connection

from apps.core.connections import request_connections_close


@pytest.fixture
def persistent(monkeypatch: pytest.MonkeyPatch) -> None:
    """This thread's connection reopened as a persistent one (``CONN_MAX_AGE`` 600), which
    Django's own end-of-request check would keep open."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    connection.close()
    connection.ensure_connection()


@pytest.mark.django_db(transaction=True)
def test_the_end_of_a_request_closes_the_threads_connection(persistent: None) -> None:
    request_finished.send(sender=None)
    assert connection.connection is None


@pytest.mark.django_db
def test_a_connection_inside_a_transaction_stays_open() -> None:
    # Django's test client runs requests in the test's thread, inside the test's transaction
    # (and it holds Django's own end-of-request check back; the receiver is called alone).
    connection.ensure_connection()
    request_connections_close()
    assert not connection.closed_in_transaction
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone()[0] == 1


def _open_connections() -> int:
    """Connections to the test database, this one included (closed again afterwards)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            )
            return int(cursor.fetchone()[0])
    finally:
        connection.close()


def _session_key() -> str:
    session = SessionStore()
    session.create()
    return str(session.session_key)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_asgi_requests_leave_no_connection_open(persistent: None) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL's connections (pg_stat_activity)")
    key = await sync_to_async(_session_key)()
    app = get_asgi_application()
    # With the cyclic collector off, a request thread's connection that is not closed
    # explicitly stays open for the rest of the test: each request would add one.
    gc.disable()
    try:
        before = await sync_to_async(_open_connections)()
        for _ in range(5):
            # The session middleware reads the session row in the request's own thread.
            communicator = HttpCommunicator(
                app, "GET", "/", headers=[(b"host", b"localhost"),
                                          (b"cookie", f"sessionid={key}".encode())]
            )
            response = await communicator.get_response()
            assert response["status"] == 200
            await communicator.wait()  # the handler closes the response (request_finished)
        after = await sync_to_async(_open_connections)()
    finally:
        gc.enable()
    assert after <= before
