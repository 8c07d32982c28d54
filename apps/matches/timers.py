"""A match's next due moment as a Celery task that runs then.

Every change stores when something next falls due at its match (``Match.timer_due``: a
deadline, the end of a pause, a seat in 托管 or a computer about to act, a dissolve vote's
end). :func:`timer_set` sends :data:`TIMER_TASK` for the match with that moment as its ETA,
so a worker acts within milliseconds of it instead of at the next sweep. A near moment
(within :func:`apps.matches.pacing.timer_lead`: a claim pause, a computer's delay) is sent
after the commit of the change that set it; a far one (a turn's deadline, which the next
move usually replaces) by the sweep once it comes that near, so an ordinary move sends
nothing to Redis and gives the worker nothing to hold. A timer needs no cancelling: when
it runs, the match row decides (``services.match_timer_fire`` acts only if the row's due
moment has passed), so a stale one does nothing. The once-a-second sweep
(``tasks.matches_sweep``) is also the net for a timer lost with a worker or while Redis
was away.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from config.celery import app

TIMER_TASK = "matches.timer"
TIMER_EXPIRY = timedelta(minutes=1)
"""A timer not run this long after its moment is dropped: the sweep has acted by then."""


def timer_set(match_id: int, due: datetime) -> None:
    """Have a worker act on the match at ``due``. Not retried when the broker is away (a
    move must not wait for Redis): the sweep then acts on it."""
    app.send_task(TIMER_TASK, args=[match_id, due.isoformat()], eta=due,
                  expires=due + TIMER_EXPIRY, retry=False, ignore_result=True)
