"""The wall: a deterministic, seeded shuffle, or an explicit tile order.

The shuffle is a Fisher–Yates pass driven by SHA-256 in counter mode, so that anyone can
recompute a wall from its seed without this package (see ``docs/record-format.md``): for
``i`` from ``n - 1`` down to 1, take the next 8 bytes of the stream
``SHA-256(seed || counter_be32)`` as a big-endian integer ``x`` and swap positions ``i`` and
``x mod (i + 1)``. The modulo bias (under 2^-56) is irrelevant for a 108-tile wall.

At a table the wall's seed mixes the server's committed seed with the players' random
contributions (:func:`wall_seed`), so that no one party chooses the wall.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from majiang.tiles import Tile

__all__ = ["Wall", "full_set", "set_difference", "shuffled", "wall_seed"]


def full_set(kinds: Iterable[Tile]) -> list[Tile]:
    """Four copies of each tile kind, in kind order."""
    return [tile for tile in kinds for _ in range(4)]


def set_difference(tiles: Sequence[Tile], kinds: Sequence[Tile]) -> str | None:
    """How ``tiles`` differ from four of each of ``kinds``, in Chinese, or ``None`` if not.

    For example ``应为72张, 实为73张; 缺少 3s×1; 多出 5s×1, 1m×1 (本玩法没有这种牌)``.
    """
    want = Counter(full_set(kinds))
    have = Counter(tiles)
    if have == want:
        return None
    missing = sorted((want - have).items())
    extra = sorted((have - want).items())
    parts = [f"应为{sum(want.values())}张, 实为{len(tiles)}张"]
    if missing:
        parts.append("缺少 " + ", ".join(f"{t.code}×{n}" for t, n in missing))
    if extra:
        alien = " (本玩法没有这种牌)"
        parts.append(
            "多出 "
            + ", ".join(f"{t.code}×{n}{alien if t not in want else ''}" for t, n in extra)
        )
    return "; ".join(parts)


def _stream(seed: str) -> Iterator[int]:
    """Successive 64-bit integers from SHA-256(seed || counter) blocks."""
    counter = 0
    base = seed.encode()
    while True:
        block = hashlib.sha256(base + counter.to_bytes(4, "big")).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(block[offset : offset + 8], "big")
        counter += 1


def shuffled(tiles: Sequence[Tile], seed: str) -> list[Tile]:
    """The tiles in the order the seed's shuffle gives (see the module docstring)."""
    out = list(tiles)
    stream = _stream(seed)
    for i in range(len(out) - 1, 0, -1):
        j = next(stream) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def wall_seed(seed: str, contributions: Iterable[tuple[int, str]]) -> str:
    """The seed a hand's wall is shuffled with: the server's ``seed`` mixed with each
    seat's contribution, ``(seat, value)``.

    SHA-256 in hex of ``seed`` followed by ``|seat:value`` for each contribution in seat
    order (UTF-8). Tagging each value with its seat and hashing, rather than XOR, means no
    one who sees the others' values can cancel them out. With no contributions the seed is
    the server's own, as before contributions existed.
    """
    mixed = "".join(f"|{seat}:{value}" for seat, value in sorted(contributions))
    if not mixed:
        return seed
    return hashlib.sha256((seed + mixed).encode()).hexdigest()


class Wall:
    """The undrawn tiles. Draws come from the front, kong replacements from the back.

    The full order is never part of any observation; only :attr:`remaining` is public.
    """

    __slots__ = ("_back", "_front", "tiles")

    def __init__(self, tiles: Sequence[Tile]) -> None:
        self.tiles: tuple[Tile, ...] = tuple(tiles)
        self._front = 0
        self._back = len(self.tiles)

    @property
    def remaining(self) -> int:
        """How many tiles are left to draw."""
        return self._back - self._front

    @property
    def drawn_from_front(self) -> int:
        """How many tiles have been taken from the front (deal included)."""
        return self._front

    @property
    def drawn_from_back(self) -> int:
        """How many tiles have been taken from the back."""
        return len(self.tiles) - self._back

    def draw(self) -> Tile:
        """Take the front tile."""
        if self._front >= self._back:
            raise IndexError("wall is empty")
        tile = self.tiles[self._front]
        self._front += 1
        return tile

    def draw_back(self) -> Tile:
        """Take the back tile (a kong replacement, or a tile set aside at the start)."""
        if self._front >= self._back:
            raise IndexError("wall is empty")
        self._back -= 1
        return self.tiles[self._back]

    def peek(self) -> Tile | None:
        """The next front tile without taking it (for 翻鸡 at the end), or ``None``."""
        return self.tiles[self._front] if self._front < self._back else None

    def undrawn(self) -> tuple[Tile, ...]:
        """The tiles still in the wall, front first."""
        return self.tiles[self._front : self._back]
