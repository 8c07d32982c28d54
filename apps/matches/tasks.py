"""Celery tasks of live play: the sweep of matches whose next due moment has passed.

Celery beat runs :func:`matches_sweep` every ``MATCH_SWEEP_SECONDS`` (``config/settings.py``).
There is no timer per match to lose: a worker that was killed, or a Redis that was away,
only delays the next sweep, which then finds every overdue match.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from apps.clubs.services.rematch import rematch_timers_fire

from . import services

SWEEP_TASK = "matches.sweep"

logger = logging.getLogger(__name__)


@shared_task(name=SWEEP_TASK, ignore_result=True,  # type: ignore[untyped-decorator]  # celery ships no type information
             expires=settings.MATCH_SWEEP_SECONDS * 5)
def matches_sweep() -> None:
    """Apply what is due at every match whose due moment has passed, and close the
    再来一场 prompts whose deadline has passed; log only a sweep that acted (Celery's own
    lines about each run are filtered out in ``LOGGING``)."""
    acted = services.match_timers_fire()
    if acted:
        logger.info("sweep: acted on %d match(es)", acted)
    closed = rematch_timers_fire()
    if closed:
        logger.info("sweep: closed %d 再来一场 prompt(s)", closed)
