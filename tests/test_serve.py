"""``manage.py serve``: the single-machine launcher (embedded Redis, daphne, Celery)."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from apps.core.embedded_redis import free_port
from apps.core.management.commands import serve as serve_module

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.services]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """Start ``manage.py serve`` (embedded Redis, private SQLite); yield it once healthy."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port),
         "--redis-dir", str(tmp_path / "redis")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                assert json.load(response) == {"ok": True}
                break
        except OSError:
            assert process.poll() is None, "serve exited during start-up"
            assert time.monotonic() < deadline, "serve did not become healthy in 60s"
            time.sleep(0.5)
    tree = psutil.Process(process.pid)
    yield process, port
    # serve's children run in sessions of their own: stop serve the way a user does (it
    # stops them), and only then kill whatever is left, so no test leaves servers behind.
    leftovers = tree.children(recursive=True) if process.poll() is None else []
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for child in leftovers:
        if child.is_running():
            child.kill()


def test_sigterm_stops_everything_cleanly(serve: tuple[subprocess.Popen[bytes], int]) -> None:
    process, _ = serve
    children = psutil.Process(process.pid).children(recursive=True)
    assert len(children) >= 2
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return bool(json.load(response) == {"ok": True})
    except OSError:
        return False


def _child(process: subprocess.Popen[bytes], marker: str, timeout: float = 30) -> psutil.Process:
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


def test_dead_child_is_restarted(serve: tuple[subprocess.Popen[bytes], int]) -> None:
    process, port = serve
    web = _child(process, "apps.core.web")  # daphne (apps/core/web.py)
    web.kill()
    web.wait(10)
    deadline = time.monotonic() + 40
    while not _healthy(port):
        assert process.poll() is None, "serve exited instead of restarting daphne"
        assert time.monotonic() < deadline, "daphne was not back within 40 s"
        time.sleep(0.5)
    assert _child(process, "apps.core.web").pid != web.pid


def test_crash_looping_child_stops_the_rest_and_fails(
    serve: tuple[subprocess.Popen[bytes], int],
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
