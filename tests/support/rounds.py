"""The current round of a match, for tests that choose what to play next."""

from __future__ import annotations

from apps.matches import state
from apps.matches.models import Match
from majiang import Round


def round_now(match: Match) -> Round:
    """The round of ``match`` at ``match.version`` (from this process's cache when it is
    current, else rebuilt from the log). Read it only: the next move may change it."""
    table = state.state_checkout(match)
    state.state_checkin(table)
    assert table.rnd is not None, "the match has no hand yet"
    return table.rnd
