"""The worked examples: every record in ``docs/rules/zigong/`` replays to the settlement
shown in ``docs/rules/zigong-examples.md``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from majiang.record import replay

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules"
RECORDS = sorted((DOCS / "zigong").glob("*.json"))
_SECTION = re.compile(r"^## \d+\. .*?\n\nRecord: \[`zigong/(?P<slug>[^`]+)\.json`\]", re.M)


def _tables() -> dict[str, list[tuple[str, ...]]]:
    text = (DOCS / "zigong-examples.md").read_text(encoding="utf-8")
    starts = list(_SECTION.finditer(text))
    tables: dict[str, list[tuple[str, ...]]] = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        rows = [
            tuple(cell.strip() for cell in row.strip().strip("|").split("|"))
            for row in text[match.end() : end].splitlines()
            if row.startswith("| ") and not row.startswith("| payer")
        ]
        tables[match.group("slug")] = rows
    return tables


def test_Z_examples_cover_the_required_hands() -> None:
    """At least 12 records, each with a section, including 3 winners, 呼叫转移, 查叫 with 退税
    and 反查叫."""
    tables = _tables()
    assert len(RECORDS) >= 12
    assert sorted(tables) == [p.stem for p in RECORDS]
    rounds = [replay(json.loads(p.read_text(encoding="utf-8"))) for p in RECORDS]
    assert any(len(r.wins) == 3 for r in rounds)
    categories = [{line.category for line in r.settlement().lines} for r in rounds]
    assert any("呼叫转移" in c for c in categories)
    assert any({"查叫", "退税"} <= c for c in categories)
    assert any("反查叫" in c for c in categories)
    assert all("wall" in json.loads(p.read_text(encoding="utf-8")) for p in RECORDS)


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_Z_example_replays_to_its_table(path: Path) -> None:
    """The record replays, and its settlement lines are exactly the markdown table's rows."""
    rnd = replay(json.loads(path.read_text(encoding="utf-8")))
    assert rnd.ended
    got = [
        (str(x.payer), str(x.payee), x.category, str(x.points), x.ruling, x.note)
        for x in rnd.settlement().lines
    ]
    assert got == _tables()[path.stem]
