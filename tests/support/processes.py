"""Start real server processes (daphne, a Celery worker) against the current test database
and Redis, wait until they are ready, and kill or restart them.

Shared by the live-play, fault-injection and load tests. Everything binds to 127.0.0.1.
Each process runs in its own session (process group), so :meth:`ServerProcess.kill` takes
down anything it spawned as well. Output is kept in memory for failure messages.

Typical use (inside a ``transactional_db`` test, after the ``redis_url`` fixture)::

    env = server_env(redis_url, queue=TEST_QUEUE)
    with start_celery_worker(env, TEST_QUEUE), start_daphne(env) as web:
        ...  # connect to ws://127.0.0.1:{web.port}/...
        web.kill()       # SIGKILL, no clean-up
        web.restart()    # same command, same port; waits until it accepts connections
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

from django.db import connection

from apps.core.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: the working directory of every server process."""
START_TIMEOUT = 30.0


def database_url() -> str:
    """A ``DATABASE_URL`` for the database the tests are using (the test database)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def server_env(redis_url: str, *, queue: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a server process: the test database, this Redis, a Celery queue.

    ``queue`` (``CELERY_QUEUE``) keeps this test run's timers away from other workers that
    share the Redis; pass the same name to :func:`start_celery_worker`.
    """
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "WARNING",
    }
    if queue is not None:
        env["CELERY_QUEUE"] = queue
    env.update(extra)
    return env


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections on ``host:port``."""
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


class ServerProcess:
    """A server subprocess with its output kept, readiness waiting, kill and restart.

    Usable as a context manager: :meth:`stop` on exit.
    """

    def __init__(
        self, name: str, command: list[str], env: dict[str, str],
        ready: Callable[[ServerProcess], bool], *, port: int | None = None,
    ) -> None:
        self.name, self.command, self.env, self.port = name, command, env, port
        self._ready = ready
        self.lines: list[str] = []
        self._first_line = 0
        self.proc: subprocess.Popen[str] | None = None

    def start(self, timeout: float = START_TIMEOUT) -> Self:
        """Launch the command and block until it is ready (fail if it exits first)."""
        self.lines.append(f"--- {self.name} start ---\n")
        self._first_line = len(self.lines)
        self.proc = subprocess.Popen(
            self.command, env=self.env, cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        threading.Thread(target=self._pump, args=(self.proc,), daemon=True).start()
        end = time.monotonic() + timeout
        while not self._ready(self):
            if self.proc.poll() is not None or time.monotonic() > end:
                self.stop()
                raise AssertionError(f"{self.name} did not start:\n{self.output()}")
            time.sleep(0.05)
        return self

    def _pump(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line)

    def seen(self, text: str) -> bool:
        """Whether the current run (since the last start) has printed ``text``."""
        return any(text in line for line in self.lines[self._first_line:])

    @property
    def pid(self) -> int:
        """The process ID of the running command."""
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        """Whether the process is running."""
        return self.proc is not None and self.proc.poll() is None

    def output(self, last: int = 60) -> str:
        """The last ``last`` lines of output (across restarts)."""
        return "".join(self.lines[-last:])

    def wait_for(self, text: str, timeout: float = START_TIMEOUT) -> None:
        """Block until the current run prints ``text`` (fail if the process dies first)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.seen(text):
                return
            if not self.alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not seen in {self.name}:\n{self.output()}")

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the process's whole group."""
        if self.alive():
            os.killpg(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL the process group (a crash: nothing gets to clean up) and reap it."""
        if self.alive():
            assert self.proc is not None
            os.killpg(self.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds."""
        if not self.alive():
            return
        assert self.proc is not None
        self.signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def restart(self, timeout: float = START_TIMEOUT) -> Self:
        """Stop the process if it runs, then start the same command again (same port)."""
        self.stop()
        return self.start(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if kind is not None:
            sys.stdout.write(f"{self.name} output:\n{self.output()}")


def start_daphne(
    env: dict[str, str], port: int | None = None, *, timeout: float = START_TIMEOUT
) -> ServerProcess:
    """Run daphne with ``config.asgi`` on 127.0.0.1 (a free port unless given); ready once
    the port accepts connections. ``.port`` is the port."""
    port = port or free_port()
    process = ServerProcess(
        f"daphne:{port}",
        [sys.executable, "-m", "apps.core.web", "-b", "127.0.0.1", "-p", str(port),
         "config.asgi:application"],
        env, lambda p: port_open(port), port=port,
    )
    return process.start(timeout)


def start_celery_worker(
    env: dict[str, str], queue: str, *, timeout: float = START_TIMEOUT
) -> ServerProcess:
    """Run a Celery worker (solo pool) with its beat, consuming ``queue``; ready once it
    logs ``ready.``."""
    process = ServerProcess(
        f"celery:{queue}",
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat", "--pool=solo",
         "-Q", queue, "-l", "info", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        {**env, "CELERY_QUEUE": queue},
        lambda p: p.seen("ready."),
    )
    return process.start(timeout)


QUICK_PACE = {"MATCH_SWEEP_SECONDS": "0.2", "MATCH_COMPUTER_PAUSE_MS": "50,150"}
"""Servers that tests start sweep five times a second and play computer seats after 50–150 ms
(players get one sweep a second and 0.8–1.5 s): a practice hand then takes seconds, not a
minute and a half. Turn deadlines and every other duration are the players' own."""


def healthy(port: int) -> bool:
    """Whether the platform on ``port`` answers ``/healthz`` with ``{"ok": true}``."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return bool(json.load(response) == {"ok": True})
    except OSError:
        return False


def start_serve(
    env: dict[str, str], redis_dir: Path, *, timeout: float = 120
) -> ServerProcess:
    """``manage.py serve`` (daphne, a Celery worker with its beat, an embedded Redis kept in
    ``redis_dir``) with ``env`` (its ``DATABASE_URL`` included; ``REDIS_URL`` is dropped) on
    a free port, at :data:`QUICK_PACE`; ready once ``/healthz`` answers. Its children run in
    sessions of their own: stop it as a user does (:meth:`ServerProcess.stop`, SIGTERM)."""
    port = free_port()
    env = {k: v for k, v in env.items() if k != "REDIS_URL"} | QUICK_PACE
    env.setdefault("PYTHONUNBUFFERED", "1")
    process = ServerProcess(
        f"serve:{port}",
        [sys.executable, "manage.py", "serve", "--port", str(port), "--redis-dir",
         str(redis_dir)],
        env, lambda p: healthy(port), port=port,
    )
    return process.start(timeout)
