"""Move processes: the match writer runs beside the socket process, not inside it.

A daphne process relays every frame of its connections on one interpreter lock. A move's
own work (lock the row, apply the rules, write the log, build each seat's frame) took about
half of that process's CPU, so moves and relays queued behind each other on one core while
the machine's other core idled. With ``MOVE_PROCESSES`` = N > 0 each daphne process starts
N child processes of its own (spawned, each a fresh Django process) and hands every call on
match ``m`` to child ``m % N``:

- one match's calls always reach the same child, so that child's writer cache
  (:mod:`apps.matches.state`) stays warm, and they run there one at a time;
- different matches on different children run in parallel, on other cores.

The child publishes the updates of the changes it commits itself, right after each commit
(:func:`apps.core.group_publish.group_publish`), and returns the call's result (or its
refusal) to the socket process (:func:`apps.matches.broadcast.call_in_order`). With
``MOVE_PROCESSES = 0`` calls run in the socket process's move threads instead; in-process
tests do that, since a child cannot see a test's uncommitted database.

Calls and results travel on two pipes per child, written and read by the event loop itself
(:class:`_Child`): a call is one ``write`` and its result one ``read`` on the loop, in the
order the calls were sent. A ``ProcessPoolExecutor`` did this before, through two helper
threads in the socket process (a manager and a queue feeder) that fought the event loop for
the interpreter lock at every call: about a sixth of daphne's CPU at full speed.

A child that dies (killed, out of memory) fails the calls it held with
:class:`MoveProcessError`, which the table endpoint reports as ``unavailable``: a call that
was cut off may or may not have committed, and the client's resync shows which. Later
calls on that slot go to a new child. A child whose parent dies sees its call pipe end and
exits.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import multiprocessing
import os
import pickle
import signal
import struct
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from django.conf import settings
from django.db import OperationalError
from django.utils.module_loading import import_string

from apps.core.collector import collector_tune

T = TypeVar("T")
STOP_SECONDS = 10.0
"""How long :func:`stop` lets a child finish the calls it holds before killing it."""
_HEADER = struct.Struct("!i")
"""The length prefix of a message, as ``multiprocessing.connection`` frames them."""
_READ_SIZE = 1 << 16

_children: dict[int, _Child] = {}
_children_lock = threading.Lock()


class MoveProcessError(OperationalError):
    """A move process died while it held the call, or could not be started.

    An :class:`~django.db.OperationalError`: like a lost database link, the change may or
    may not have been saved, and callers already answer that with ``unavailable``.
    """


class _NotSentError(Exception):
    """The child was found dead before the call reached it: nothing of the call ran."""


def enabled() -> bool:
    """Whether calls on matches run in move processes (``MOVE_PROCESSES`` > 0)."""
    return int(settings.MOVE_PROCESSES) > 0


def start() -> None:
    """Start every move process that is not running, in the background (each takes about
    a second to set Django up; calls sent meanwhile wait in its pipe). Called on the event
    loop as players connect, so that the first moves after a restart do not wait for it."""
    for slot in range(int(settings.MOVE_PROCESSES)):
        _child(slot)


async def run(match_id: int, function: Callable[..., T], *args: Any) -> T:
    """Call ``function(*args)`` in the move process of match ``match_id`` and return its
    result (or raise its exception).

    ``function`` and ``args`` cross a process boundary: ``function`` must be importable by
    name, and everything must pickle. A child found dead before the call was sent is
    replaced and the call goes to the new one; raises :class:`MoveProcessError` when the
    child died holding the call.
    """
    slot = match_id % int(settings.MOVE_PROCESSES)
    try:
        future = _child(slot).submit(function, args)
    except _NotSentError:
        future = _child(slot).submit(function, args)
    result: T = await future
    return result


async def run_everywhere(function: Callable[[], T]) -> list[T]:
    """Call ``function()`` once in every move process (to read per-process counters)."""
    futures = [_child(slot).submit(function, ())
               for slot in range(int(settings.MOVE_PROCESSES))]
    return list(await asyncio.gather(*futures))


def stop() -> None:
    """Stop every move process after the calls it holds (tests; a stopping daphne).

    Closing its call pipe tells a child to exit once it has answered what it read."""
    with _children_lock:
        children = list(_children.values())
        _children.clear()
    for child in children:
        child.close()


# Before multiprocessing's own exit hook (registered earlier, so run later), which would
# terminate the children mid-call.
atexit.register(stop)


def children() -> list[int]:
    """The process IDs of this process's live move processes."""
    with _children_lock:
        return [c.process.pid for c in _children.values()
                if c.process.pid is not None and c.process.is_alive()]


def _child(slot: int) -> _Child:
    """The live child of ``slot``, attached to the running event loop; started if there
    is none or it died."""
    loop = asyncio.get_running_loop()
    with _children_lock:
        child = _children.get(slot)
        if child is None or not child.alive or not child.process.is_alive():
            if child is not None:
                child.fail("stopped")
            child = _children[slot] = _Child(slot, loop)
        elif child.loop is not loop:
            child.attach(loop)
        return child


class _Child:
    """One move process, and the two pipes that carry its calls and results.

    The pipes are non-blocking on this side and served by the event loop: a call is
    written at once (what the pipe cannot take yet is buffered and written when it can),
    and results are read as they come. The child answers its calls one at a time, in the
    order it read them, so each result belongs to the oldest call still waiting.
    """

    def __init__(self, slot: int, loop: asyncio.AbstractEventLoop) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: this process has a loop
        calls_in, calls_out = context.Pipe(duplex=False)
        results_in, results_out = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_serve, args=(calls_in, results_out), name=f"move process {slot}",
            daemon=True,  # multiprocessing must not wait for it at exit: see stop()
        )
        self.process.start()
        calls_in.close()
        results_out.close()
        self.calls, self.results = calls_out, results_in
        os.set_blocking(self.calls.fileno(), False)
        os.set_blocking(self.results.fileno(), False)
        self.slot, self.alive = slot, True
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.unsent = bytearray()
        self.received = bytearray()
        self.loop = loop
        loop.add_reader(self.results.fileno(), self._on_readable)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve the pipes from ``loop`` from now on (a test's new event loop)."""
        self._detach()
        self.loop = loop
        loop.add_reader(self.results.fileno(), self._on_readable)
        if self.unsent:
            loop.add_writer(self.calls.fileno(), self._flush)

    def submit(self, function: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any]:
        """Send a call; return the future of its result. Raises :class:`_NotSentError` when the
        child is found dead before anything of the call was written."""
        data = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
        frame = _HEADER.pack(len(data)) + data
        if not self.unsent:
            try:
                written = os.write(self.calls.fileno(), frame)
            except BlockingIOError:
                written = 0
            except OSError as exc:  # the child's end is closed: it died
                self.fail(f"its pipe is closed ({exc})")
                raise _NotSentError from exc
            frame = frame[written:]
        future = self.loop.create_future()
        self.waiting.append(future)
        if frame:
            if not self.unsent:
                self.loop.add_writer(self.calls.fileno(), self._flush)
            self.unsent += frame
        return future

    def _flush(self) -> None:
        try:
            written = os.write(self.calls.fileno(), self.unsent)
        except BlockingIOError:
            return
        except OSError as exc:
            self.fail(f"its pipe is closed ({exc})")
            return
        del self.unsent[:written]
        if not self.unsent:
            self.loop.remove_writer(self.calls.fileno())

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self.results.fileno(), _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.fail("it exited")
            return
        self.received += chunk
        while len(self.received) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.received)
            end = _HEADER.size + size
            if len(self.received) < end:
                return
            try:
                ok, value = pickle.loads(self.received[_HEADER.size:end])
            except Exception as exc:  # e.g. an exception class that cannot be rebuilt here
                ok, value = False, RuntimeError(f"unreadable outcome: {exc!r}")
            del self.received[:end]
            future = self.waiting.popleft()
            if future.done():  # its caller was cancelled: the call ran regardless
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def fail(self, why: str) -> None:
        """The child is gone: fail every call it held, close the pipes, reap it."""
        if not self.alive:
            return
        self.alive = False
        self._detach()
        for pipe in (self.calls, self.results):
            pipe.close()
        error = MoveProcessError(f"move process {self.slot} stopped: {why}")
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        self.process.kill()
        threading.Thread(target=self.process.join, daemon=True).start()

    def close(self) -> None:
        """Let the child finish what it read and exit (end of its call pipe), then reap
        it; kill it after :data:`STOP_SECONDS`."""
        if not self.alive:
            return
        self.alive = False
        self._detach()
        self.calls.close()
        self.process.join(STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.results.close()

    def _detach(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.remove_reader(self.results.fileno())
        self.loop.remove_writer(self.calls.fileno())


def _serve(calls: Connection, results: Connection) -> None:
    """A move process: set up, then answer calls one at a time until the call pipe ends
    (its parent stopped it, or died)."""
    _boot()
    while True:
        try:
            data = calls.recv_bytes()
        except (EOFError, OSError):
            return
        function, args = pickle.loads(data)
        try:
            outcome: tuple[bool, Any] = (True, function(*args))
        except Exception as exc:  # the caller's to raise
            outcome = (False, exc)
        try:
            payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            payload = pickle.dumps((False, RuntimeError(f"unpicklable outcome: {exc!r}")))
        results.send_bytes(payload)


def _boot() -> None:
    """Set a new move process up: Django, the collector tuning of the socket process and
    the configured set-up hooks (``MOVE_PROCESS_SETUP``)."""
    import django  # noqa: PLC0415  (a spawned child starts bare)

    # Ctrl-C in a terminal reaches the whole process group; the parent decides when its
    # children stop (their call pipes end).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    django.setup()
    for path in settings.MOVE_PROCESS_SETUP:
        import_string(path)()
    collector_tune()  # as the daphne process does (config/asgi.py)
