"""The table's pauses (``shared/rules/README.md`` H3, H4) and the decision clock they run on.

A paced round (:attr:`majiang.Round.paced`) holds the window it opens after a discard or a
补杠 (room setting ``claim_pause_ms``) and the 报叫 phase at a 自贡 deal (``declare_pause_ms``)
for at least the pause, whether or not any seat can act in it. The pause starts with the
window's decision clock, which :meth:`~apps.matches.change.MatchChange.start_decision`
starts with a deadline ``turn_seconds`` away, so it ends ``turn_seconds - pause`` before
that deadline: the pause never shortens a seat's time to decide.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from majiang import Round

from .models import Match

DEFAULT_TURN_SECONDS = 15


def turn_seconds(match: Match) -> int:
    """Seconds per decision (room setting ``turn_seconds``)."""
    return int(match.settings.get("turn_seconds", DEFAULT_TURN_SECONDS))


def hold_until(match: Match, rnd: Round | None) -> datetime | None:
    """When the pause of the round's held window ends, or ``None`` when none is held."""
    if rnd is None or not rnd.held or match.deadline is None:
        return None
    opened = match.deadline - timedelta(seconds=turn_seconds(match))
    return opened + timedelta(milliseconds=rnd.pause_ms)
