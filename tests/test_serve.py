"""``manage.py serve``: the single-machine launcher (embedded Redis, daphne, Celery)."""

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from apps.core.management.commands import serve as serve_module
from tests.support.processes import healthy, start_serve

# Each test runs serve on a SQLite file and an embedded Redis of its own.
pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.own_backends]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``manage.py serve`` (embedded Redis, a SQLite file of its own), once healthy."""
    server = start_serve({**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"},
                         tmp_path / "redis")
    assert server.proc is not None and server.port is not None
    process = server.proc
    tree = psutil.Process(process.pid)
    yield process, server.port
    # serve's children run in sessions of their own: stop serve the way a user does (it
    # stops them), and only then kill whatever is left, so no test leaves servers behind.
    leftovers = tree.children(recursive=True) if process.poll() is None else []
    server.stop(30)
    for child in leftovers:
        if child.is_running():
            child.kill()


def test_sigterm_stops_everything_cleanly(serve: tuple[subprocess.Popen[str], int]) -> None:
    process, _ = serve
    children = psutil.Process(process.pid).children(recursive=True)
    assert len(children) >= 2
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive


def _child(process: subprocess.Popen[str], marker: str, timeout: float = 30) -> psutil.Process:
    """The direct child of ``serve`` whose command line contains ``marker`` (waits for one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in psutil.Process(process.pid).children():
            try:
                if marker in child.cmdline():
                    return child
            except psutil.NoSuchProcess:
                pass
        time.sleep(0.2)
    raise AssertionError(f"no {marker} child after {timeout} s")


def test_dead_child_is_restarted(serve: tuple[subprocess.Popen[str], int]) -> None:
    process, port = serve
    web = _child(process, "apps.core.web")  # daphne (apps/core/web.py)
    web.kill()
    web.wait(10)
    deadline = time.monotonic() + 40
    while not healthy(port):
        assert process.poll() is None, "serve exited instead of restarting daphne"
        assert time.monotonic() < deadline, "daphne was not back within 40 s"
        time.sleep(0.5)
    assert _child(process, "apps.core.web").pid != web.pid


def test_crash_looping_child_stops_the_rest_and_fails(
    serve: tuple[subprocess.Popen[str], int],
) -> None:
    process, _ = serve
    children = psutil.Process(process.pid).children(recursive=True)
    killed: set[int] = set()
    deadline = time.monotonic() + 60
    while len(killed) < serve_module.RESTART_LIMIT and time.monotonic() < deadline:
        worker = _child(process, "celery")
        if worker.pid not in killed:
            killed.add(worker.pid)
            worker.kill()
        time.sleep(0.1)
    assert process.wait(timeout=30) != 0
    assert len(killed) == serve_module.RESTART_LIMIT
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive
