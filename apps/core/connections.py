"""Closing an HTTP request's database connections when the request ends.

Under ASGI, Django runs each HTTP request's synchronous code (middleware, view) in a thread
of its own that ends with the request. With persistent connections (``CONN_MAX_AGE`` > 0,
which the table's move threads rely on), such a thread's connection used to stay open
after the request, until the garbage collector freed the dead thread's ``DatabaseWrapper``
(it holds reference cycles, so only the cyclic collector does). A burst of logins could
thus hold hundreds of idle PostgreSQL connections and run the server out of them ("too
many clients already"). The threads that live as long as the process (move threads,
Channels' database thread, the worker threads of table reads) never see this signal.
"""

from __future__ import annotations

from typing import Any

from django.db import connections


def request_connections_close(**kwargs: Any) -> None:
    """Close this thread's open database connections, unless inside a transaction (a
    test's, in Django's test client, which runs requests in the test's own thread)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()
