"""Celery tasks of live play: decision timers.

A timer carries the match ID and its due moment (its token). When it fires it goes through
:func:`apps.matches.services.match_timeout_fire`, which does nothing unless it is still the
match's live timer.
"""

from __future__ import annotations

from celery import shared_task

from . import services
from .change import TIMEOUT_TASK


@shared_task(name=TIMEOUT_TASK, ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no type information
def match_timeout(match_id: int, token: int) -> None:
    """Apply whatever is due at this match, if this is still its live timer."""
    services.match_timeout_fire(match_id=match_id, token=token)
