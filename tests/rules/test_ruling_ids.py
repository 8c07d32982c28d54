"""Every ruling ID the repository cites is one the registry knows (``majiang/rulings.py``),
and the rulebook (``docs/rules/rulebook.md``) has an entry for every ruling in it.

Code, tests, templates, scripts and docs cite rulings as ``D17``, ``D10a``, ``Z20``, ``H4``,
or a step such as ``D21.3``; a typo or a ruling that was renumbered shows up here.
"""

from __future__ import annotations

import re
from pathlib import Path

from majiang.errors import UnknownRulingError
from majiang.rulings import RULINGS, ruling

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("apps", "majiang", "tests", "docs", "static", "templates", "scripts", "benchmarks",
           "config", "README.md")
SUFFIXES = {".py", ".js", ".md", ".html", ".txt", ".yaml", ".yml", ".css", ".json"}
CITATION = re.compile(r"(?<![A-Za-z0-9_\-/#.])([DZH]\d{1,2}[a-z]?(?:\.\d+)?)(?![A-Za-z0-9_])")
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
DELIBERATE = {("tests/rules/test_settlement_kinds.py", "D24"), (THIS, "D24"), (THIS, "D99")}
"""Unknown IDs cited on purpose: the test that the registry refuses one, and this file's."""
RULEBOOK = ROOT / "docs" / "rules" / "rulebook.md"


def unknown_ids(text: str) -> list[str]:
    """The ruling IDs cited in ``text`` that the registry does not know."""
    out = []
    for cited in CITATION.findall(text):
        try:
            ruling(cited)
        except UnknownRulingError:
            out.append(cited)
    return out


def _files() -> list[Path]:
    found = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            found.append(path)
        else:
            found += [p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    return found


def test_the_scan_finds_an_unknown_id_and_passes_known_ones() -> None:
    assert unknown_ids("D17 英雄鸡, D21.3, D10a, Z20, H4; but D99 and Z3x1") == ["D99"]
    assert unknown_ids("sha256 9c9f4c104b1 and fontD3 and H2O") == []


def test_every_cited_ruling_id_is_in_the_registry() -> None:
    cited = 0
    bad = []
    for path in _files():
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8", errors="ignore")
        cited += len(CITATION.findall(text))
        bad += [(name, i) for i in unknown_ids(text) if (name, i) not in DELIBERATE]
    assert not bad, f"ruling IDs the registry (majiang/rulings.py) does not know: {bad}"
    assert cited > 1000  # the scan reads the repository, not an empty list


def test_the_rulebook_has_an_entry_for_every_ruling_and_no_other() -> None:
    entries = re.findall(r"^- \*\*([A-Za-z0-9]+) ", RULEBOOK.read_text(encoding="utf-8"), re.M)
    assert sorted(entries) == sorted(RULINGS)
    for entry in entries:
        assert RULINGS[entry].title_zh in RULEBOOK.read_text(encoding="utf-8"), entry
