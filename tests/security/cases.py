"""A session-wide tally of generated cases, shown at the end of the pytest run.

Property and fuzz tests call :func:`record`; the ``pytest_terminal_summary`` hook in
``tests/security/conftest.py`` and ``tests/fault/conftest.py`` prints one line per test
("N cases"), so the count is visible without ``-s``.
"""

from __future__ import annotations

import sys

# One tally per process even if this module is imported under two names.
COUNTS: dict[str, int] = sys.modules[__name__.split(".")[0]].__dict__.setdefault(
    "_generated_case_counts", {}
)


def record(name: str, n: int = 1) -> None:
    """Add ``n`` generated cases to the tally of ``name``; echo the running total."""
    COUNTS[name] = COUNTS.get(name, 0) + n


def summary_lines() -> list[str]:
    """One "name: N cases" line per recorded test."""
    return [f"{name}: {n} cases" for name, n in sorted(COUNTS.items())]


def write_summary(terminalreporter: object) -> None:
    """Print the tally once per session (both conftests share this module)."""
    config = terminalreporter.config  # type: ignore[attr-defined]
    if not COUNTS or getattr(config, "_generated_cases_shown", False):
        return
    config._generated_cases_shown = True
    terminalreporter.section("generated cases (security / fault)")  # type: ignore[attr-defined]
    for line in summary_lines():
        terminalreporter.write_line(line)  # type: ignore[attr-defined]
