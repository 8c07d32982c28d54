"""Moving live play's clock (:func:`apps.matches.pacing.now`) in tests, with time-machine,
and running the sweep as Celery beat would: no test sleeps for a timer."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from apps.clubs.services.rematch import rematch_timers_fire
from apps.matches import pacing, services
from apps.matches.models import Match


def later(clock: Any, seconds: float) -> int:
    """Move the clock ``seconds`` on and sweep as Celery beat would (the matches, then the
    再来一场 prompts); how many matches acted and prompts closed."""
    clock.shift(timedelta(seconds=seconds))
    return services.match_timers_fire() + rematch_timers_fire()


def when_due(clock: Any, match: Match) -> int:
    """Move the clock just past the match's next due moment and sweep."""
    due = Match.objects.get(pk=match.pk).timer_due
    assert due is not None, "nothing is due"
    return later(clock, max(0.0, (due - pacing.now()).total_seconds()) + 0.001)
