"""Recovering timers that were lost: to a killed worker, or to Redis being down.

A Celery worker holds its countdown timers unacknowledged until they are due; if it is
killed, Redis hands them out again only after the broker's visibility timeout (an hour by
default). A timer whose publish failed because Redis was down at commit time is simply gone.
Either way nobody's turn would time out again. So every worker re-arms the timer of every
match in play when it starts, and then, every :data:`SWEEP_SECONDS`, of every match whose
live timer was due more than :data:`SWEEP_GRACE` ago and has not fired. Re-arming is always
safe: the fresh timer supersedes the lost one, which does nothing if it ever fires.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.db import close_old_connections
from django.utils import timezone

from . import selectors, services

logger = logging.getLogger(__name__)

SWEEP_SECONDS = 15.0
"""How often a worker looks for matches whose timer is overdue."""
SWEEP_GRACE = timedelta(seconds=10)
"""How late a deadline must be before its timer counts as lost."""

_stop = threading.Event()


def timers_rearm(*, overdue_at: datetime | None = None) -> int:
    """Re-arm the timer of every match in play (or of those whose timer was overdue at
    ``overdue_at``); return how many were armed."""
    return sum(
        services.match_timer_rearm(match_id=match_id)
        for match_id in selectors.playing_match_ids(timer_overdue_at=overdue_at)
    )


def _sweep() -> None:
    while not _stop.wait(SWEEP_SECONDS):
        try:
            armed = timers_rearm(overdue_at=timezone.now() - SWEEP_GRACE)
            if armed:
                logger.warning("re-armed %d overdue match timers", armed)
        except Exception:
            logger.exception("timer sweep failed; trying again in %s s", SWEEP_SECONDS)
        finally:
            close_old_connections()


@worker_ready.connect  # type: ignore[untyped-decorator]  # celery ships no type information
def _on_worker_ready(**_: Any) -> None:
    try:
        logger.info("re-armed the timers of %d matches in play", timers_rearm())
    except Exception:
        logger.exception("could not re-arm timers at start; the sweep will retry")
    finally:
        close_old_connections()
    _stop.clear()
    threading.Thread(target=_sweep, name="timer-sweep", daemon=True).start()


@worker_shutdown.connect  # type: ignore[untyped-decorator]  # celery ships no type information
def _on_worker_shutdown(**_: Any) -> None:
    _stop.set()
