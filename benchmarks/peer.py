"""The peer server open_mahjong_unity at full speed: game actions per second and server CPU
per action at 1, 10 and 100 tables, for comparison with the load benchmark's game figures.

    .venv/bin/python -m benchmarks.peer --peer-dir var/peer/src [--tables 1 10 100]
        [--warmup 3] [--duration 10] [--repeats 3]

The peer (GitHub ``xelnagamiao/open_mahjong_unity``) is used unmodified from its checkout
in ``--peer-dir``: this only writes its config file (``server/local_config.py``: the local
PostgreSQL's database ``bench_peer``, no chat server, no console log) and, if missing,
makes its venv (``--venv``) from its pinned ``requirements.txt``. Nothing of it is copied
here: its bot code is imported from the checkout.

Each measurement gets a fresh ``bench_peer`` database and a fresh server (uvicorn serving
``server.server:app``, as its ``main.py`` does, on a free port), pinned to CPU 0 with
``taskset``, so that its bot-executor workers are too. A bot process pinned to CPU 1 plays
the tables over the peer's WebSocket protocol, as its Unity client: four tourists a table,
the first creating a 国标 room (four winds, the longest timers, so that no seat ever times
out; 鸣牌保护 off, as it delays what players see on purpose), the others joining and
readying, the host starting it again whenever a match ends. Every seat plays as the peer's
摸切 bot (``auto_cut_ai``: a flower when offered, else the discard its
``_pick_auto_cut_tile`` picks, pass on every claim), except that it takes a win when
offered and readies at once after one, as the load benchmark's bots do. The peer's own
bots are not seated: they run inside the server, wait 0.5 s before each discard and would
count their thinking as server CPU.

An action is one the server accepted: those it received (each game message is logged on
receipt, ``收到消息``, in its own log, ``logs/app.log*``) less those its checks refused (each
logs why), counted between the window's two timestamps; the refused must be 0. (Only
discards are logged once accepted, ``放入队列``: passes, flowers and wins are not.)
The window opens ``--warmup`` seconds after every table's first deal and lasts
``--duration`` seconds. Server CPU is that of the server, its child processes and the
PostgreSQL backends connected to ``bench_peer``, from psutil at the window's two ends.

With ``--beside-project`` each peer measurement is followed, in the same run, by the load
benchmark's game at the same table count (:func:`benchmarks.load.scenario.game`: full
speed, rooms of 16 hands played on) on a fresh database and a fresh daphne pinned to
CPU 0, its bots (in this process) pinned to CPU 1; its server CPU is that of daphne, the
Celery worker, the database's PostgreSQL backends and Redis. Celery, PostgreSQL and Redis
float, as the peer's PostgreSQL does. The ratios project ÷ peer are printed with the
medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.synchronize import Event
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psutil  # type: ignore[import-untyped]
import psycopg
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.load.processes import (
    START_TIMEOUT,
    Child,
    Servers,
    free_port,
    port_open,
    wait_ready,
)
from benchmarks.load.run import fresh_database, prepare

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
SERVER_CPU, BOT_CPU = 0, 1
DATABASE = "bench_peer"
ADMIN_DSN = f"postgresql://postgres@{HOST}:5432/postgres"
DATABASE_URL = f"postgres://postgres@{HOST}:5432/{DATABASE}"
CONFIG = f'''class Config:
    host = "{HOST}"
    user = "postgres"
    password = ""
    database = "{DATABASE}"
    port = 5432
    auto_create_chatserver = False
    logging_do_stream_handler = False
    release_version = 20
    player_jwt_secret = "benchmark-only"
    player_jwt_audience = "player"
'''
"""The peer's ``server/local_config.py`` (its ``test_config.py`` with this machine's
database, and neither the Go chat server, absent from the checkout, nor a copy of the log
on the console)."""
ROOM = {
    "type": "room/create_GB_room", "roomname": "bench", "gameround": 4, "password": "",
    "roundTimerValue": 1000, "stepTimerValue": 100, "tips": False, "open_cuohe": False,
    "claim_protection": False,
}
STARTED = "统计维护完成"
"""The last line the server logs at startup, when its statistics maintenance is done."""
ACTION = "收到消息: {'type': 'gamestate/GB/"
"""How the server logs each game action it receives: a discard (``cut_tile``) or any other
(``send_action``: flower, win, pass, ready), before it checks it."""
REFUSERS = (" - server.gamestate.public.ai.get_action - ",
            " - server.gamestate.gamestate_router - ")
REFUSAL = (" - WARNING - ", " - ERROR - ", "丢弃过期操作", "拒绝改选")
"""A refusal is a warning or error of the action checks (``get_action``) or of the router,
or one of the two refusals they log as information (a stale tick, a changed claim)."""
CONNECT_SPACING = 0.01
BEGIN, END = "<!-- peer:begin -->", "<!-- peer:end -->"


def ensure_venv(venv: Path, requirements: Path) -> Path:
    """The peer venv's interpreter, made from its pinned requirements if missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)],
                       check=True)
    return python


def database_backends() -> list[int]:
    """Process IDs of the PostgreSQL backends connected to ``bench_peer``."""
    with psycopg.connect(ADMIN_DSN) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s",
                            (DATABASE,)).fetchall()
    return [int(row[0]) for row in rows]


@dataclass
class Peer:
    """A started peer server (pinned to CPU 0) and its log directory."""

    server: Child
    logs: Path

    @property
    def proc(self) -> subprocess.Popen[bytes]:
        """The server's process."""
        return self.server.proc

    @classmethod
    def start(cls, python: Path, server_dir: Path) -> Peer:
        """Start a server on a fresh database and empty log directory; return when it
        accepts connections and its startup maintenance is done."""
        fresh_database(DATABASE_URL)
        logs = server_dir / "logs"
        for old in logs.glob("app.log*"):
            old.unlink()
        port = free_port()
        output = server_dir / "uvicorn.out"
        with output.open("wb") as out:
            proc = subprocess.Popen(
                ["taskset", "-c", str(SERVER_CPU), str(python), "-m", "uvicorn",
                 "server.server:app", "--host", HOST, "--port", str(port)],
                cwd=server_dir, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        peer = cls(Child("peer", proc, output, port), logs)
        try:
            wait_ready(peer.server, lambda: port_open(port) and STARTED in peer.log_text())
        except RuntimeError:
            peer.stop()  # its children too
            raise
        return peer

    def processes(self) -> list[psutil.Process]:
        """The server and its child processes."""
        server = psutil.Process(self.proc.pid)
        return [server, *server.children(recursive=True)]

    def waited(self) -> float:
        """Seconds the server's and its children's threads have spent runnable but waiting
        for a CPU (``/proc/<pid>/task/<tid>/schedstat``): how much it was held back by
        whatever else ran on CPU 0."""
        total = 0
        for process in self.processes():
            for stat in Path(f"/proc/{process.pid}/task").glob("*/schedstat"):
                with contextlib.suppress(OSError):
                    total += int(stat.read_text().split()[1])
        return total / 1e9

    def log_text(self) -> str:
        """The current log file's text."""
        path = self.logs / "app.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def cpu(self) -> dict[int, float]:
        """CPU seconds so far of the server, its children and its database backends."""
        pids = [p.pid for p in self.processes()] + database_backends()
        seconds = {}
        for pid in pids:
            with contextlib.suppress(psutil.NoSuchProcess):
                times = psutil.Process(pid).cpu_times()
                seconds[pid] = times.user + times.system
        return seconds

    def count(self, start: float, end: float) -> tuple[int, int]:
        """Actions accepted and refused between the moments ``start`` and ``end``, from the
        server's log (every rotated file of it, which must reach back to ``start``)."""
        first, last = _log_time(start), _log_time(end)
        received = refused = 0
        oldest = last
        for path in self.logs.glob("app.log*"):
            for line in path.read_text(errors="replace").splitlines():
                stamp = line[:23]
                if not stamp[:4].isdigit():
                    continue
                oldest = min(oldest, stamp)
                if first <= stamp < last:
                    received += ACTION in line
                    refused += any(name in line for name in REFUSERS) and any(
                        text in line for text in REFUSAL)
        if oldest > first:
            raise RuntimeError("the server's log rotated past the window's start")
        return received - refused, refused

    def stop(self) -> None:
        """Terminate the server (kill it after 10 s) and whatever children it left."""
        try:
            children = self.processes()[1:]
        except psutil.NoSuchProcess:
            children = []
        self.server.stop()
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()


def _log_time(moment: float) -> str:
    """``moment`` (``time.time()``) as the server's log stamps it."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(moment))
    return f"{stamp},{int(moment % 1 * 1000):03d}"


@dataclass
class Table:
    """A table's shared state in the bot process."""

    room_id: str | None = None
    created: asyncio.Event = field(default_factory=asyncio.Event)
    dealt: asyncio.Event = field(default_factory=asyncio.Event)
    start_sent: bool = False


@dataclass
class Seat:
    """One tourist at a table, playing as the peer's 摸切 bot (but winning when it can)."""

    ws: ClientConnection
    table: Table
    host: bool
    pick: Any
    """The peer's ``auto_cut_ai._pick_auto_cut_tile``."""
    user_id: int = 0
    index: int = -1
    gamestate_id: str = ""
    hand: list[int] = field(default_factory=list)
    draw_slot: bool = False
    ready_sent: bool = False

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message."""
        await self.ws.send(json.dumps(message))

    async def answer(self, action: str, tick: int) -> None:
        """Send a non-discard action (win, flower, pass, ready)."""
        await self.send({"type": "gamestate/GB/send_action", "gamestate_id": self.gamestate_id,
                         "action": action, "targetTile": 0, "action_tick": tick})

    async def on_room(self, room: dict[str, Any]) -> None:
        """Ready (guests) or start the match (host) once the room is full and all ready."""
        players, ready = room["player_list"], room["ready_list"]
        if room["is_game_running"] or len(players) < 4:
            return
        if not self.host:
            if self.user_id not in ready and not self.ready_sent:
                self.ready_sent = True
                await self.send({"type": "room/set_ready", "room_id": self.table.room_id,
                                 "ready": True})
        elif all(p in ready for p in players[1:]) and not self.table.start_sent:
            self.table.start_sent = True
            await self.send({"type": "room/start_game", "room_id": self.table.room_id})

    def on_deal(self, info: dict[str, Any]) -> None:
        """Start a hand from the match's ``game_start``: this seat's index and tiles."""
        self.gamestate_id = info["gamestate_id"]
        me = next(p for p in info["players_info"] if p.get("hand_tiles") is not None)
        self.index, self.hand = me["player_index"], list(me["hand_tiles"])
        self.draw_slot = bool(me.get("has_draw_slot"))
        self.table.start_sent = self.ready_sent = False
        self.table.dealt.set()

    def on_action(self, info: dict[str, Any]) -> None:
        """Keep this seat's hand: its discards, flowers and draws."""
        if info["action_player"] != self.index:
            return
        if "cut" in info["action_list"]:
            self.hand.remove(info["cut_tile"])
            self.draw_slot = False
        if "buhua" in info["action_list"] and info.get("buhua_tile") is not None:
            self.hand.remove(info["buhua_tile"])
        if info.get("deal_tile") is not None:
            self.hand.append(info["deal_tile"])
            self.draw_slot = True

    async def on_hand_ask(self, actions: list[str], tick: int) -> None:
        """Own turn: win, else flower, else the 摸切 bot's discard."""
        for action in ("hu_self", "buhua"):
            if action in actions:
                await self.answer(action, tick)
                return
        if "cut" in actions:
            player = SimpleNamespace(hand_tiles=self.hand, dingque_suit=0,
                                     has_draw_slot=self.draw_slot)
            tile, index, moqie = self.pick(player)
            await self.send({"type": "gamestate/GB/cut_tile", "gamestate_id": self.gamestate_id,
                             "cutClass": moqie, "TileId": tile, "cutIndex": index,
                             "action_tick": tick})
        elif "pass" in actions:
            await self.answer("pass", tick)

    async def run(self) -> None:
        """Handle every message until the connection closes."""
        with contextlib.suppress(ConnectionClosed):
            await self.handle()

    async def handle(self) -> None:
        """Handle every message."""
        async for raw in self.ws:
            message = json.loads(raw)
            kind = message["type"]
            if kind == "room/create_room_done":
                self.table.room_id = str(message["room_info"]["room_id"])
                self.table.created.set()
            elif kind == "room/refresh_room_info":
                await self.on_room(message["room_info"])
            elif kind == "gamestate/guobiao/game_start":
                self.on_deal(message["game_info"])
            elif kind == "gamestate/guobiao/do_action":
                self.on_action(message["do_action_info"])
            elif kind == "gamestate/guobiao/broadcast_hand_action":
                info = message["ask_hand_action_info"]
                if info["action_list"]:
                    await self.on_hand_ask(info["action_list"], info["action_tick"])
            elif kind == "gamestate/guobiao/ask_other_action":
                info = message["ask_other_action_info"]
                wins = [a for a in info["action_list"] if a.startswith("hu_")]
                await self.answer(wins[0] if wins else "pass", info["action_tick"])
            elif kind == "gamestate/guobiao/ready_status" and message["ready_status_info"][
                    "player_to_ready"].get(str(self.index)) is False:
                await self.answer("ready", 0)


async def _seat(port: int, table: Table, host: bool, pick: Any) -> Seat:
    """Connect and log in a tourist."""
    ws = await connect(f"ws://{HOST}:{port}/game/{os.urandom(8).hex()}", max_size=None)
    await ws.send(json.dumps({"type": "login", "is_tourist": True}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "login":
            return Seat(ws, table, host, pick, user_id=message["login_info"]["user_id"])


async def _play(port: int, tables: int, server_dir: Path, dealt: Event) -> None:
    sys.path.insert(0, str(server_dir))
    pick = importlib.import_module("server.gamestate.public.ai.auto_cut_ai")._pick_auto_cut_tile
    boards = [Table() for _ in range(tables)]
    tasks = []
    for table in boards:
        host = await _seat(port, table, True, pick)
        tasks.append(asyncio.create_task(host.run()))
        await host.send(ROOM)
        await asyncio.wait_for(table.created.wait(), START_TIMEOUT)
        for _ in range(3):
            guest = await _seat(port, table, False, pick)
            tasks.append(asyncio.create_task(guest.run()))
            await guest.send({"type": "room/join_room", "room_id": table.room_id,
                              "password": ""})
            await asyncio.sleep(CONNECT_SPACING)
    for table in boards:
        await asyncio.wait_for(table.dealt.wait(), START_TIMEOUT)
    dealt.set()
    await asyncio.gather(*tasks)


def play(port: int, tables: int, server_dir: Path, dealt: Event) -> None:
    """The bot process: pinned to CPU 1, play ``tables`` tables until terminated; set
    ``dealt`` once every table's first hand is dealt."""
    os.sched_setaffinity(0, {BOT_CPU})
    asyncio.run(_play(port, tables, server_dir, dealt))


@dataclass
class Measurement:
    """The figures of one window."""

    tables: int
    seconds: float
    accepted: int
    refused: int
    cpu_seconds: float
    waited: float
    """Seconds the server was runnable but waiting for CPU 0."""

    @property
    def per_second(self) -> float:
        """Accepted actions per second."""
        return self.accepted / self.seconds

    @property
    def cpu_ms_per_action(self) -> float:
        """Server CPU milliseconds per accepted action."""
        return 1000 * self.cpu_seconds / self.accepted if self.accepted else float("nan")


def measure(python: Path, server_dir: Path, tables: int, warmup: float,
            duration: float) -> Measurement:
    """One measurement on a fresh server and a fresh bot process."""
    peer = Peer.start(python, server_dir)
    context = multiprocessing.get_context("spawn")
    dealt = context.Event()
    bots = context.Process(target=play, args=(peer.server.port, tables, server_dir, dealt),
                           daemon=True)
    try:
        bots.start()
        if not dealt.wait(START_TIMEOUT + 3 * tables):
            raise RuntimeError(f"the {tables} tables did not all start")
        time.sleep(warmup)
        start, cpu_start, waited = time.time(), peer.cpu(), peer.waited()
        time.sleep(duration)
        end, cpu_end, waited = time.time(), peer.cpu(), peer.waited() - waited
        if peer.proc.poll() is not None or not bots.is_alive():
            raise RuntimeError("the peer server or the bots stopped during the window")
    finally:
        bots.terminate()
        bots.join()
        peer.stop()
    accepted, refused = peer.count(start, end)
    cpu = sum(seconds - cpu_start.get(pid, 0.0) for pid, seconds in cpu_end.items())
    return Measurement(tables, end - start, accepted, refused, cpu, waited)


def measure_project(database: str, redis: str, tables: int, warmup: float,
                    duration: float) -> Measurement:
    """The load benchmark's game at ``tables`` tables on a fresh database and a fresh,
    pinned daphne (as each peer measurement gets a fresh database and server)."""
    env = prepare(database, redis)  # sets up Django the first time
    from django.db import connections  # noqa: PLC0415  (needs Django set up)

    from benchmarks.load import scenario  # noqa: PLC0415
    from benchmarks.load import tables as bench_tables  # noqa: PLC0415

    servers = Servers.start(1, env, ROOT / "var" / "peer" / "project")
    everywhere = os.sched_getaffinity(0)
    try:
        psutil.Process(servers.daphnes[0].proc.pid).cpu_affinity([SERVER_CPU])
        os.sched_setaffinity(0, {BOT_CPU})
        result, bench, _ = scenario.game(servers, tables, think=0.0, warmup=warmup,
                                         duration=duration, routing="whole", play_on=True,
                                         hands_per_match=16)
        bench_tables.tables_abandon(bench)
    finally:
        os.sched_setaffinity(0, everywhere)
        servers.stop()
        connections.close_all()  # the next measurement drops the database
    cpu = (result.app_cpu_ms + result.store_cpu_ms) / 1000
    return Measurement(tables, result.seconds, result.actions, 0, cpu, float("nan"))


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run every measurement, print one line each and the medians."""
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--peer-dir", type=Path, default=Path("var/peer/src"),
                        help="the peer's checkout (default: %(default)s)")
    parser.add_argument("--venv", type=Path, default=Path("var/peer/venv"),
                        help="the peer's venv, made if missing (default: %(default)s)")
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds after every table's first deal before the window")
    parser.add_argument("--duration", type=float, default=10.0, help="measured seconds")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each table count (the medians are reported)")
    parser.add_argument("--beside-project", action="store_true",
                        help="after each peer measurement, the load benchmark's game at the "
                             "same table count, pinned alike (its database: --database-url)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_load",
                        help="with --beside-project: the project's PostgreSQL database, dropped "
                             "and re-created, so its name must start with 'bench' "
                             "(default: %(default)s)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13",
                        help="with --beside-project: the project's Redis database, flushed "
                             "(default: %(default)s)")
    parser.add_argument("--write-docs", action="store_true",
                        help="with --beside-project: write the medians and ratios into "
                             "docs/benchmarks.md")
    args = parser.parse_args(argv)
    if args.write_docs and not args.beside_project:
        parser.error("--write-docs needs --beside-project (the ratios are the section)")
    started = time.monotonic()
    # A SIGTERM unwinds like Ctrl-C, so the processes started below are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    server_dir = (ROOT / args.peer_dir / "open_mahjong_server").resolve()
    python = ensure_venv((ROOT / args.venv).resolve(), server_dir / "requirements.txt")
    (server_dir / "server" / "local_config.py").write_text(CONFIG)
    runs: dict[str, dict[int, list[Measurement]]] = {
        side: {n: [] for n in args.tables}
        for side in ("peer", *(["project"] if args.beside_project else []))}
    for repeat in range(1, args.repeats + 1):
        for tables in args.tables:
            m = measure(python, server_dir, tables, args.warmup, args.duration)
            runs["peer"][tables].append(m)
            print(f"peer, {tables} tables, run {repeat}: {m.accepted} actions in "
                  f"{m.seconds:.1f} s = {m.per_second:.1f}/s, server CPU "
                  f"{1000 * m.cpu_seconds:.0f} ms = {m.cpu_ms_per_action:.3f} ms/action, "
                  f"waited for CPU {m.waited:.1f} s, refused {m.refused}", flush=True)
            if args.beside_project:
                m = measure_project(args.database_url, args.redis_url, tables,
                                    args.warmup, args.duration)
                runs["project"][tables].append(m)
                print(f"project, {tables} tables, run {repeat}: {m.per_second:.1f}/s, server "
                      f"CPU {m.cpu_ms_per_action:.3f} ms/action", flush=True)
    medians = {side: {str(n): {
        "actions_per_second": statistics.median(m.per_second for m in ms),
        "server_cpu_ms_per_action": statistics.median(m.cpu_ms_per_action for m in ms),
    } for n, ms in by_tables.items()} for side, by_tables in runs.items()}
    if args.beside_project:
        medians["project / peer"] = {n: {
            key: medians["project"][n][key] / medians["peer"][n][key] for key in figures
        } for n, figures in medians["peer"].items()}
    print(json.dumps(medians))
    if args.write_docs:
        from benchmarks.load import report  # noqa: PLC0415  (Django is set up by now)

        text = markdown(runs, medians["project / peer"], args, time.monotonic() - started)
        report.write(ROOT / "docs" / "benchmarks.md", text, begin=BEGIN, end=END)
        print("wrote docs/benchmarks.md", file=sys.stderr)


def markdown(runs: dict[str, dict[int, list[Measurement]]],
             ratios: dict[str, dict[str, float]], args: argparse.Namespace,
             seconds: float) -> str:
    """The section: per table count, each side's median actions/s and server CPU per
    action (range over the runs), and ``ratios``, project ÷ peer of the medians."""
    from benchmarks.load.report import cpu_model  # noqa: PLC0415

    def cell(ms: list[Measurement], key: str, digits: int) -> str:
        values = [getattr(m, key) for m in ms]
        return (f"{statistics.median(values):,.{digits}f} "
                f"({min(values):,.{digits}f}–{max(values):,.{digits}f})")

    rows = []
    for tables in args.tables:
        peer, project = runs["peer"][tables], runs["project"][tables]
        ratio = ratios[str(tables)]
        rows.append(
            f"| {tables} | {cell(peer, 'per_second', 1)} | {cell(project, 'per_second', 1)} | "
            f"{ratio['actions_per_second']:.2f} | {cell(peer, 'cpu_ms_per_action', 2)} | "
            f"{cell(project, 'cpu_ms_per_action', 2)} | "
            f"{ratio['server_cpu_ms_per_action']:.2f} |")
    return "\n".join([
        BEGIN,
        "# Beside the peer server",
        "",
        f"Generated by `.venv/bin/python -m benchmarks.peer --beside-project --repeats "
        f"{args.repeats} --tables {' '.join(map(str, args.tables))} --write-docs` on "
        f"{datetime.now(UTC).date().isoformat()} in {seconds / 60:.0f} minutes: {cpu_model()}, "
        f"{os.cpu_count()} cores. The peer is open_mahjong_unity (GitHub "
        "`xelnagamiao/open_mahjong_unity`), unmodified from a checkout, played by a bot process "
        "of its own 摸切 policy; the project is the load benchmark's game (random legal "
        "moves, a win when offered, 16-hand rooms played on). Each measurement starts a fresh "
        "server on a fresh database, the server pinned to CPU 0 and its bots to CPU 1, peer "
        f"and project in turn; {args.warmup:g} s warm-up after every table's first deal, a "
        f"{args.duration:g} s window. Server CPU: the peer's server and its PostgreSQL "
        "backends; the project's daphne, Celery worker, PostgreSQL backends and Redis. "
        f"Medians of {args.repeats} runs (range); the ratios are of the medians. The method "
        "in full is the docstring of `benchmarks/peer.py`.",
        "",
        "| tables | peer actions/s | project actions/s | project ÷ peer | peer CPU ms/action "
        "| project CPU ms/action | project ÷ peer |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        END,
    ])


if __name__ == "__main__":
    main()
