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
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait()


def test_sigterm_stops_everything_cleanly(serve: tuple[subprocess.Popen[bytes], int]) -> None:
    process, _ = serve
    children = psutil.Process(process.pid).children(recursive=True)
    assert len(children) >= 2
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive


def test_dead_child_stops_the_rest_and_fails(serve: tuple[subprocess.Popen[bytes], int]) -> None:
    process, _ = serve
    children = psutil.Process(process.pid).children()
    web = next(c for c in children if "daphne" in c.cmdline())
    web.kill()
    assert process.wait(timeout=30) != 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive
