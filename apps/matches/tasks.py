"""Celery tasks of live play: a match's timer, and the sweep of matches whose next due
moment has passed.

A match's next due moment gets its timer (:mod:`apps.matches.timers`) from the change that
set it when it is near, else from the sweep as it comes near. Celery beat runs
:func:`matches_sweep` every ``MATCH_SWEEP_SECONDS`` (``config/settings.py``); it is also the
net: a timer lost with a killed worker, or while Redis was away, only waits for the next
sweep, which finds every overdue match.
"""

from __future__ import annotations

import logging
from datetime import datetime

from celery import shared_task
from django.conf import settings

from apps.clubs.services.rematch import rematch_timers_fire

from . import services
from .timers import TIMER_TASK

SWEEP_TASK = "matches.sweep"

logger = logging.getLogger(__name__)


@shared_task(name=TIMER_TASK, ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no type information
def match_timer(match_id: int, due: str) -> None:
    """A match's timer for the moment ``due`` (ISO 8601; :mod:`apps.matches.timers`)."""
    services.match_timer_fire(match_id=match_id, due=datetime.fromisoformat(due))


@shared_task(name=SWEEP_TASK, ignore_result=True,  # type: ignore[untyped-decorator]  # celery ships no type information
             expires=settings.MATCH_SWEEP_SECONDS * 5)
def matches_sweep() -> None:
    """Apply what is due at every match whose due moment has passed, send the timers of
    those whose moment is near, and close the 再来一场 prompts whose deadline has passed;
    log only a sweep that acted (Celery's own lines about each run are filtered out in
    ``LOGGING``)."""
    acted = services.match_timers_fire()
    services.match_timers_send()
    if acted:
        logger.info("sweep: acted on %d match(es)", acted)
    closed = rematch_timers_fire()
    if closed:
        logger.info("sweep: closed %d 再来一场 prompt(s)", closed)
