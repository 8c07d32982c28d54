"""Start and stop the server processes of a benchmark run: daphne and Celery workers.

Every process gets the same database, Redis and Celery queue through its environment and
writes its output to a log file in the run directory (read back on failure).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def database_url(settings_dict: dict[str, object]) -> str:
    """A ``postgres://`` URL for a Django PostgreSQL ``DATABASES`` entry."""
    auth = str(settings_dict["USER"]) + (
        f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    )
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{settings_dict['NAME']}"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(*, database: str, redis: str, queue: str, unlimited_rate: bool) -> dict[str, str]:
    """The environment of every server process of a run (and of the driver's Django).

    ``DEBUG`` is off as in production (with it on, Django wraps every cursor to record and
    log each statement); HTTPS redirects and HSTS are off because everything is plain
    HTTP on 127.0.0.1.
    """
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.load.settings",
        "DEBUG": "0",
        "SECRET_KEY": "benchmark-only-secret-key-not-for-production-use-0123456789",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "DATABASE_URL": database,
        "REDIS_URL": redis,
        "CELERY_QUEUE": queue,
        "BENCH_UNLIMITED_RATE": "1" if unlimited_rate else "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


@dataclass
class Child:
    """A started server process with its log file."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    port: int | None = None

    def output(self, lines: int = 40) -> str:
        """The last lines of the process's output."""
        return "".join(self.log.read_text(errors="replace").splitlines(True)[-lines:])

    def stop(self) -> None:
        """Terminate the process (kill it after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _spawn(name: str, command: list[str], env: dict[str, str], logs: Path) -> Child:
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Child(name, proc, log)


def wait_ready(child: Child, ready: Callable[[], bool]) -> None:
    """Wait until ``ready()``; stop ``child`` and raise with its output if it exits or
    takes over :data:`START_TIMEOUT`."""
    end = time.monotonic() + START_TIMEOUT
    while not ready():
        if child.proc.poll() is not None or time.monotonic() > end:
            child.stop()
            raise RuntimeError(f"{child.name} did not start:\n{child.output()}")
        time.sleep(0.1)


def port_open(port: int) -> bool:
    """Whether something accepts connections on ``port`` of 127.0.0.1."""
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def start_daphne(name: str, env: dict[str, str], logs: Path) -> Child:
    """A daphne process serving :mod:`benchmarks.load.asgi` on a free port of 127.0.0.1."""
    port = free_port()
    child = _spawn(
        name,
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "benchmarks.load.asgi:application"],
        env, logs,
    )
    child.port = port
    wait_ready(child, lambda: port_open(port))
    return child


def start_worker(name: str, env: dict[str, str], logs: Path) -> Child:
    """A Celery worker of two processes, as production runs it (``Procfile.prod``), on the
    run's queue, with Celery beat embedded (``--beat``): it sweeps the matches whose timers
    are due every second. (With one process, the solo pool, a sweep that acts on many
    matches holds up every timer behind it.)"""
    child = _spawn(
        name,
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat",
         "--concurrency", "2",
         "-Q", env["CELERY_QUEUE"], "-n", f"{name}@%h", "-l", "info",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        env, logs,
    )
    wait_ready(child, lambda: "ready." in child.log.read_text(errors="replace"))
    return child


@dataclass
class Servers:
    """The daphne processes and Celery workers of a run (one worker per daphne, each with
    beat: the sweeps of several take different matches, ``skip_locked``)."""

    daphnes: list[Child] = field(default_factory=list)
    workers: list[Child] = field(default_factory=list)

    @classmethod
    def start(cls, count: int, env: dict[str, str], logs: Path) -> Servers:
        """Start ``count`` daphne processes and ``count`` workers."""
        servers = cls()
        try:
            for i in range(count):
                servers.daphnes.append(start_daphne(f"daphne{i}", env, logs))
                servers.workers.append(start_worker(f"worker{i}", env, logs))
        except BaseException:
            servers.stop()
            raise
        return servers

    @property
    def ports(self) -> list[int]:
        """The daphne ports, in order."""
        return [d.port for d in self.daphnes if d.port is not None]

    @property
    def pids(self) -> list[int]:
        """Process IDs of every server process, the workers' pool processes and embedded
        beat included."""
        pids = []
        for child in [*self.daphnes, *self.workers]:
            pids.append(child.proc.pid)
            with contextlib.suppress(psutil.NoSuchProcess):
                pids.extend(p.pid for p in psutil.Process(child.proc.pid).children(True))
        return pids

    def stop(self) -> None:
        """Stop every process."""
        for child in [*self.daphnes, *self.workers]:
            child.stop()
