"""The web process: daphne, with WebSocket failures closed with their code.

Autobahn, under daphne, *fails* a connection that breaks a protocol limit (a message over
``--websocket-max-message-size``, 1 MiB by default) by dropping the TCP connection
(``failByDrop``, on by default), so the browser sees a reset and no close code. Daphne
has no option for it; this launcher turns it off on daphne's WebSocket factory, so such a
connection gets a close frame with 1009 (message too big) and the closing handshake.
Everything else is daphne's command line, unchanged: ``python -m apps.core.web …`` takes
daphne's arguments (``Procfile.prod``, ``manage.py serve``).
"""

from __future__ import annotations

from typing import Any

import daphne.server
from daphne.cli import CommandLineInterface
from daphne.ws_protocol import WebSocketFactory


class ClosingWebSocketFactory(WebSocketFactory):  # type: ignore[misc]  # daphne ships no types
    """Daphne's factory, with failures answered by a close frame instead of a reset."""

    def setProtocolOptions(self, **options: Any) -> None:  # noqa: N802  (autobahn's name)
        super().setProtocolOptions(**options, failByDrop=False)


def main() -> None:
    """Run daphne's command line with :class:`ClosingWebSocketFactory`."""
    daphne.server.WebSocketFactory = ClosingWebSocketFactory
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
