"""The clock of live play and every duration it runs on.

Every deadline, pause, computer delay, dissolve vote, between-hands wait, offline pause,
再来一场 prompt and presence timeout reads the time from :func:`now` and takes its length
from here (or from the room's settings, whose defaults are here). Tests move this clock
with time-machine and call the sweep (:func:`apps.matches.services.match_timers_fire`,
:func:`apps.clubs.services.rematch.rematch_timers_fire`) themselves; nothing in live play
sleeps for a timer.

The table's pauses (``shared/rules/README.md`` H3, H4): a paced round
(:attr:`majiang.Round.paced`) holds the window it opens after a discard or a 补杠 (room
setting ``claim_pause_ms``) and the 报叫 phase at a 自贡 deal (``declare_pause_ms``) for at
least the pause, whether or not any seat can act in it. The pause starts with the window's
decision clock, which :meth:`~apps.matches.change.MatchChange.start_decision` starts with a
deadline ``turn_seconds`` away, so it ends ``turn_seconds - pause`` before that deadline: the
pause never shortens a seat's time to decide.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone

from majiang import Round

if TYPE_CHECKING:
    from .models import Match, MatchPlayer

DEFAULT_TURN_SECONDS = 15
"""Seconds per decision unless the room sets ``turn_seconds``."""
NEXT_HAND_SECONDS = 15
"""How long the settlement stays up before the next hand is dealt anyway."""
FIRST_DEAL_SECONDS = 6
"""How long a new match waits for its seats' contributions to the first hand's wall."""
DISSOLVE_VOTE_SECONDS = 60
"""How long a dissolve vote stays open."""
REMATCH_SECONDS = 60
"""How long the shared 再来一场 prompt waits for the seats' answers
(:mod:`apps.clubs.services.rematch`); then those who have not agreed leave their seats."""
AUTO_PLAY_DELAY = timedelta(seconds=1)
"""How long a seat in 托管 takes to act (after the last public change)."""
COMPUTER_PAUSE_MS = (800, 1500)
"""A computer seat acts after a pause in this range (milliseconds); the setting
``MATCH_COMPUTER_PAUSE_MS`` (the same by default) is what live play reads."""
DEFAULT_OFFLINE_PAUSE_SECONDS = 60
"""A table whose every seat is offline pauses its clock after this long (room setting)."""
DEFAULT_OFFLINE_DISSOLVE_SECONDS = 600
"""… and is dissolved after this long (room setting)."""
SWEEP_SECONDS = 1.0
"""How often Celery beat sweeps the matches whose next due moment has passed (the setting
``MATCH_SWEEP_SECONDS``, the same by default)."""
TIMER_LEAD_SWEEPS = 2
"""A due moment gets its Celery timer (:mod:`apps.matches.timers`) once it is this many
sweeps away or closer: from the change that set it if it is that close already (a claim
pause, a computer's or 托管's delay), else from a sweep as it comes that close (a turn's
deadline: the sweep that finds it between one and two sweeps away sends it). A sweep
that beat runs so late that it skips a moment leaves that moment to the sweep's net."""
PRESENCE_TTL_SECONDS = 30.0
"""A table connection that has not refreshed its presence for this long counts as gone."""
PRESENCE_HEARTBEAT_SECONDS = PRESENCE_TTL_SECONDS / 3
"""How often a live table connection refreshes its presence (and prunes dead ones)."""
VERSION_CHECK_SECONDS = 5.0
"""A table connection that forwarded nothing for this long checks it has missed nothing."""


def now() -> datetime:
    """The current moment, for every timer of live play."""
    return timezone.now()


def sweep_interval() -> timedelta:
    """How long from one sweep to the next (the setting ``MATCH_SWEEP_SECONDS``)."""
    return timedelta(seconds=settings.MATCH_SWEEP_SECONDS)


def timer_lead() -> timedelta:
    """How close a due moment must be for its timer to be sent (:data:`TIMER_LEAD_SWEEPS`)."""
    return TIMER_LEAD_SWEEPS * sweep_interval()


def turn_seconds(match: Match) -> int:
    """Seconds per decision (room setting ``turn_seconds``)."""
    return int(match.settings.get("turn_seconds", DEFAULT_TURN_SECONDS))


def hold_until(match: Match, rnd: Round | None) -> datetime | None:
    """When the pause of the round's held window ends, or ``None`` when none is held."""
    if rnd is None or not rnd.held or match.deadline is None:
        return None
    opened = match.deadline - timedelta(seconds=turn_seconds(match))
    return opened + timedelta(milliseconds=rnd.pause_ms)


def auto_play_delay(match: Match, player: MatchPlayer) -> timedelta:
    """How long after the last public change an automatic seat acts: the 托管 delay, or for
    a computer seat a human-like pause of 0.8–1.5 s, fixed by the match, its public version
    (a private decision of another seat must not move it) and the seat."""
    if not player.computer:
        return AUTO_PLAY_DELAY
    public = match.views[-1] if match.views else 0
    digest = hashlib.blake2b(f"{match.pk}:{public}:{player.seat}".encode(),
                             digest_size=4).digest()
    low, high = settings.MATCH_COMPUTER_PAUSE_MS
    return timedelta(milliseconds=low + int.from_bytes(digest, "big") % (high - low + 1))


def offline_pause_at(match: Match) -> datetime | None:
    """When an offline table's clock pauses (``None`` while someone is online)."""
    return _offline_moment(match, "offline_pause_seconds", DEFAULT_OFFLINE_PAUSE_SECONDS)


def offline_dissolve_at(match: Match) -> datetime | None:
    """When an offline table is dissolved (``None`` while someone is online)."""
    return _offline_moment(match, "offline_dissolve_seconds", DEFAULT_OFFLINE_DISSOLVE_SECONDS)


def _offline_moment(match: Match, setting: str, default: int) -> datetime | None:
    if match.offline_since is None:
        return None
    return match.offline_since + timedelta(seconds=int(match.settings.get(setting, default)))


def offline_due(match: Match) -> list[datetime | None]:
    """The offline moments ahead of a match (``None`` where there is none: while someone
    is online, and the pause once the clock stands still)."""
    return [offline_dissolve_at(match),
            offline_pause_at(match) if match.paused_left_ms is None else None]
