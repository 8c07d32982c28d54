"""Clients of the bare-transport reference (:mod:`.bare`): groups of 4 taking turns.

In each group one message is in flight at a time, like a table: client ``n % 4`` sends
message ``n``; everyone receives the broadcast, and client ``(n + 1) % 4`` then sends
``n + 1``. The latency of a message is from its sending to its sender receiving it back.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from websockets.asyncio.client import connect

from .bots import CONNECT_SPACING, HOST, port_of

SEATS = 4


@dataclass
class GroupLog:
    """Messages sent by one group: (sent at, seconds until the sender got it back)."""

    latencies: list[tuple[float, float]] = field(default_factory=list)
    stalls: int = 0


class BareRun:
    """``groups`` groups of 4 clients, routed like tables (:func:`.bots.port_of`)."""

    def __init__(self, ports: list[int], groups: int, tag: str, *, whole: bool) -> None:
        self.ports, self.tag, self.whole = ports, tag, whole
        self.logs = [GroupLog() for _ in range(groups)]
        self.stop_at = time.monotonic() + 3600
        self.ready = asyncio.Barrier(groups * SEATS + 1)

    async def run(self) -> None:
        """Connect everyone, then relay until :attr:`stop_at`."""
        await asyncio.gather(*(
            self._member(g, i) for g in range(len(self.logs)) for i in range(SEATS)
        ))

    async def _member(self, group: int, index: int) -> None:
        port = port_of(self.ports, group, index, whole=self.whole)
        log = self.logs[group]
        sent_at: dict[int, float] = {}
        await asyncio.sleep((group * SEATS + index) * CONNECT_SPACING)
        async with connect(f"ws://{HOST}:{port}/ws/bench/{self.tag}{group}/",
                           origin=f"http://{HOST}:{port}", compression=None,
                           ping_interval=None, open_timeout=60) as ws:
            await self.ready.wait()
            if index == 0:
                sent_at[0] = time.monotonic()
                await ws.send("0")
            while time.monotonic() < self.stop_at:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                number, now = int(raw), time.monotonic()
                if number in sent_at:
                    log.latencies.append((sent_at[number], now - sent_at.pop(number)))
                if (number + 1) % SEATS == index and now < self.stop_at:
                    sent_at[number + 1] = time.monotonic()
                    await ws.send(str(number + 1))
        log.stalls += len(sent_at)
