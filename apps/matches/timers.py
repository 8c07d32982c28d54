"""The live-timer rule: whether a match's live timer will do for the next due moment.

A match has at most one live timer, identified by the moment it is due (``Match.timer_due``,
to the millisecond). A change keeps it when it fires after the change and no later than the
next due moment (fired early, it finds nothing due and re-arms itself); otherwise the change
arms a new timer for that moment. So a quick table costs one timer per turn length, not one
per action.

The locked path applies the rule to the locked row (:meth:`TimerRule.live_after`). A move
made from the cache applies it to the cached timer, and its write checks that the row's is
still that one; when a timer fired and re-armed since the cache, a second statement applies
the rule to the row's own timer (:func:`apps.matches.rows.change_write_if`), so the
re-armed timer neither stops the write nor is written over.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class TimerRule:
    """The timer a change made at ``now`` needs: one that fires by ``due`` (the next due
    moment, to the millisecond), or none when ``due`` is ``None``."""

    now: datetime
    due: datetime | None

    def keeps(self, live: datetime | None) -> bool:
        """Whether the live timer ``live`` will do: nothing is due, or it fires after now
        and no later than ``due``."""
        return self.due is None or (live is not None and self.now < live <= self.due)

    def live_after(self, live: datetime | None) -> datetime | None:
        """The live timer once the change is written: ``live`` if it will do, else a new
        one due at ``due``."""
        return live if self.keeps(live) else self.due
