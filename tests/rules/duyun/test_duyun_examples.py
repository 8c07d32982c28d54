"""The worked examples in ``docs/rules/duyun-examples.md`` replay to exactly their tables.

Every ``docs/rules/duyun/*.json`` record is replayed; its settlement must equal, line for
line and in order, the table that follows its ``Record:`` line in the markdown, and so must
its totals and next dealer. The examples cover D4 (连庄 across hands), D6–D21.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from majiang.record import replay

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules"
MARKDOWN = (DOCS / "duyun-examples.md").read_text(encoding="utf-8")
RECORDS = sorted((DOCS / "duyun").glob("*.json"))
SECTION = re.compile(r"^Record: `docs/rules/duyun/(?P<name>[^`]+)`$", re.M)


def _sections() -> dict[str, str]:
    found = list(SECTION.finditer(MARKDOWN))
    return {
        m.group("name"): MARKDOWN[m.end() : found[i + 1].start() if i + 1 < len(found) else None]
        for i, m in enumerate(found)
    }


SECTIONS = _sections()


def _table(text: str) -> list[tuple[int, int, str, int, str]]:
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].isdigit():
            rows.append((int(cells[1]), int(cells[2]), cells[3], int(cells[4]), cells[5]))
    return rows


def test_every_record_has_a_section_and_there_are_at_least_twelve() -> None:
    assert sorted(SECTIONS) == [p.name for p in RECORDS]
    assert len(RECORDS) >= 12


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_D22_example_replays_to_its_table(path: Path) -> None:
    rnd = replay(json.loads(path.read_text(encoding="utf-8")))
    section = SECTIONS[path.name]
    result = rnd.settlement()
    lines = [(x.payer, x.payee, x.category, x.points, x.ruling) for x in result.lines]
    assert lines == _table(section)
    dealer, streak = rnd.next_dealer()
    assert f"Totals: {list(result.totals)}. Next dealer: seat {dealer}, streak {streak}." in section


def test_D4_streak_carries_from_hand_1_to_hand_2() -> None:
    first = replay(json.loads((DOCS / "duyun" / "14-streak-hand-1.json").read_text("utf-8")))
    second = json.loads((DOCS / "duyun" / "15-streak-hand-2.json").read_text("utf-8"))
    assert first.next_dealer() == (second["dealer"], second["streak"]) == (0, 2)
