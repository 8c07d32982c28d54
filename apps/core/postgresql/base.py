"""Django's PostgreSQL backend, with a health check that looks before it pings.

With ``CONN_HEALTH_CHECKS`` Django checks a reused connection before the first statement of
every request, task and move (:meth:`DatabaseWrapper.is_usable`); its own check is a
``SELECT 1`` round trip. That was one statement in four of every move. An idle PostgreSQL
connection receives nothing unprompted except when it ends: a restarted or stopping
server, a terminated backend or a dropped link sends its farewell (or the end of the
stream), which makes the socket readable. So: a closed or broken connection is unusable; a
quiet socket is usable with no round trip; a readable one gets Django's ``SELECT 1``, which
fails on a dead link and succeeds (reading what arrived) on a live one. A link that died
without a word (no FIN, no RST) passes both checks alike, and the move's own statement then
fails as ``unavailable``.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    """``django.db.backends.postgresql`` with :meth:`is_usable` replaced."""

    def is_usable(self) -> bool:
        """Whether the connection can be reused: not closed or broken, and either nothing
        arrived since the last statement or a ``SELECT 1`` still works."""
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            readable, _, _ = select.select([connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable or bool(super().is_usable())
