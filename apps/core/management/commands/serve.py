"""``manage.py serve``: run the whole platform on one machine.

Starts an embedded Redis when ``REDIS_URL`` is unset, applies migrations (and, with
``--seed-demo``, seeds the demo players: after Redis is up, which seeding needs), then runs
daphne (HTTP + WebSockets) and a Celery worker as child processes. Ctrl-C / SIGTERM
stops everything. A child that exits is restarted; one that keeps exiting (a crash loop)
stops the others and ``serve`` fails.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.embedded_redis import EMBEDDED_REDIS_PORT, embedded_redis, port_is_free

STOP_TIMEOUT_SECONDS = 15
RESTART_LIMIT = 5
"""A child that exits this many times within :data:`RESTART_WINDOW_SECONDS` is crash-looping:
``serve`` then stops everything and fails instead of restarting it again."""
RESTART_WINDOW_SECONDS = 60.0
RESTART_DELAY_SECONDS = 1.0


def _pump(name: str, stream: IO[str]) -> None:
    """Copy a child's output to our stdout, each line prefixed with the child's name."""
    for line in stream:
        sys.stdout.write(f"{name:<6} | {line}")
        sys.stdout.flush()


def _spawn(name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    threading.Thread(target=_pump, args=(name, child.stdout), daemon=True).start()
    return child


def _signal_group(child: subprocess.Popen[str], sig: signal.Signals) -> None:
    """Signal the child's whole session: a child killed outright leaves its own children
    (Celery's pool processes) behind, and they must not outlive it."""
    with suppress(ProcessLookupError):
        os.killpg(child.pid, sig)


def supervise(commands: dict[str, list[str]], env: dict[str, str]) -> int:
    """Run ``commands`` side by side until SIGINT/SIGTERM, restarting any that exits.

    Like a process manager in production, a child that dies is started again (play resumes:
    the match state is in the database, and clients reconnect by version). One that exits
    :data:`RESTART_LIMIT` times within :data:`RESTART_WINDOW_SECONDS` stops the rest.
    Returns 0 after a requested shutdown, otherwise the crash-looping child's exit code (or 1).
    """
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    children: dict[str, subprocess.Popen[str]] = {}
    exits: dict[str, list[float]] = {name: [] for name in commands}
    failed: str | None = None
    try:
        for name, command in commands.items():
            children[name] = _spawn(name, command, env)
        while failed is None and not stop.wait(0.5):
            for name, child in children.items():
                if child.poll() is None:
                    continue
                now = time.monotonic()
                recent = [t for t in exits[name] if now - t < RESTART_WINDOW_SECONDS] + [now]
                exits[name] = recent
                _signal_group(child, signal.SIGKILL)
                if len(recent) >= RESTART_LIMIT:
                    failed = name
                    break
                sys.stdout.write(f"serve  | {name} exited (status {child.returncode}); "
                                 f"restarting it ({len(recent)}/{RESTART_LIMIT - 1})\n")
                sys.stdout.flush()
                if stop.wait(RESTART_DELAY_SECONDS):
                    break
                children[name] = _spawn(name, commands[name], env)
    finally:
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        for child in children.values():
            try:
                child.wait(STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            _signal_group(child, signal.SIGKILL)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failed is None:
        return 0
    return children[failed].returncode or 1


class Command(BaseCommand):
    """Run daphne + a Celery worker (+ embedded Redis when ``REDIS_URL`` is unset)."""

    help = "Run the platform on one machine: migrate, then daphne and a Celery worker."

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare ``--port`` and ``--redis-dir``."""
        parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
        parser.add_argument(
            "--redis-dir",
            type=Path,
            default=settings.BASE_DIR / "var" / "redis",
            help="data directory of the embedded Redis (default var/redis)",
        )
        parser.add_argument(
            "--seed-demo", action="store_true",
            help="run seed_demo once Redis is up and the database migrated (./dev run)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Start the services and block until they stop."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with ExitStack() as stack:
            if "REDIS_URL" not in env:
                redis_port = EMBEDDED_REDIS_PORT if port_is_free(EMBEDDED_REDIS_PORT) else None
                redis_dir = options["redis_dir"]
                env["REDIS_URL"] = stack.enter_context(embedded_redis(redis_dir, redis_port))
                self.stdout.write(f"Embedded Redis at {env['REDIS_URL']} (data in {redis_dir})")
            call_command("migrate", interactive=False, verbosity=1)
            python = sys.executable
            if options["seed_demo"]:
                # A child, so that it reaches the Redis just chosen (the demo club's lobby
                # broadcasts go through it); run in this process it would use the default.
                subprocess.run(
                    [python, str(settings.BASE_DIR / "manage.py"), "seed_demo"], env=env, check=True
                )
            commands = {
                "web": [python, "-m", "apps.core.web", "-b", "127.0.0.1",
                        "-p", str(options["port"]), "config.asgi:application"],
                "worker": [python, "-m", "celery", "-A", "config", "worker", "--beat",
                           "-l", "info", "--concurrency", "2"],
            }
            self.stdout.write(f"Serving on http://127.0.0.1:{options['port']}/ (Ctrl-C to stop)")
            status = supervise(commands, env)
        if status:
            raise CommandError(
                f"a child process kept exiting (last status {status}); stopped the rest"
            )
