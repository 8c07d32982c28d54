"""Celery tasks of live play: decision timers.

A timer carries the match ID and the version it was scheduled for. When it fires it goes
through :func:`apps.matches.services.match_timeout_fire`, which does nothing unless the
match is still at that version.
"""

from __future__ import annotations

from celery import shared_task

from . import services
from .change import TIMEOUT_TASK


@shared_task(name=TIMEOUT_TASK, ignore_result=True)
def match_timeout(match_id: int, version: int) -> None:
    """Apply whatever is due at this match's decision point, if it is still current."""
    services.match_timeout_fire(match_id=match_id, version=version)
