"""Celery tasks of live play: the sweep of matches whose next due moment has passed.

Celery beat runs :func:`matches_sweep` every :data:`SWEEP_SECONDS` (``config/celery.py``).
There is no timer per match to lose: a worker that was killed, or a Redis that was away,
only delays the next sweep, which then finds every overdue match.
"""

from __future__ import annotations

from celery import shared_task

from . import services

SWEEP_TASK = "matches.sweep"
SWEEP_SECONDS = 1.0


@shared_task(name=SWEEP_TASK, ignore_result=True, expires=SWEEP_SECONDS * 5)  # type: ignore[untyped-decorator]  # celery ships no type information
def matches_sweep() -> None:
    """Apply what is due at every match whose due moment has passed."""
    services.match_timers_fire()
