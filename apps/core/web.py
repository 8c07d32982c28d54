"""The web process: daphne, with WebSocket failures closed with their code.

Autobahn, under daphne, *fails* a connection that breaks a protocol limit (a message over
``--websocket-max-message-size``, 1 MiB by default) by dropping the TCP connection
(``failByDrop``, on by default), so the browser sees a reset and no close code. Daphne
has no option for it; this launcher turns it off on daphne's WebSocket factory, so such a
connection gets a close frame with 1009 (message too big) and the closing handshake.
It also pings a quiet WebSocket every :data:`PING_SECONDS` and closes one that has not
answered within as long again (daphne's defaults are 20 and 30 s): a phone that lost its
signal is shown 离线 to its table after about 20 s instead of 50.
Everything else is daphne's command line, unchanged: ``python -m apps.core.web …`` takes
daphne's arguments (``Procfile.prod``, ``manage.py serve``); a ``--ping-interval`` or
``--ping-timeout`` given there wins.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import daphne.server
from daphne.cli import CommandLineInterface
from daphne.ws_protocol import WebSocketFactory


class ClosingWebSocketFactory(WebSocketFactory):  # type: ignore[misc]  # daphne ships no types
    """Daphne's factory, with failures answered by a close frame instead of a reset."""

    def setProtocolOptions(self, **options: Any) -> None:  # noqa: N802  (autobahn's name)
        super().setProtocolOptions(**options, failByDrop=False)


PING_SECONDS = int(os.environ.get("WEBSOCKET_PING_SECONDS", "10"))
"""How long a WebSocket may be quiet before daphne pings it, and how long the answer may
take (``WEBSOCKET_PING_SECONDS``; tests shorten it)."""


def main() -> None:
    """Run daphne's command line with :class:`ClosingWebSocketFactory` and the pings."""
    daphne.server.WebSocketFactory = ClosingWebSocketFactory
    for option in ("--ping-interval", "--ping-timeout"):
        if option not in sys.argv:
            sys.argv[1:1] = [option, str(PING_SECONDS)]
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
