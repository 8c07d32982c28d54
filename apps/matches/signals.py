"""Signals of live play, for the ledger app to write in the same transaction.

Both are sent inside the match's locked transaction, after every row of the change is
written: a receiver that raises aborts the whole change (nothing is logged or broadcast).
"""

from django.dispatch import Signal

hand_settled = Signal()
"""Sent with ``hand`` (a settled :class:`~apps.matches.models.Hand`: ``settlement`` holds
the rules package's itemised lines and per-seat totals, ``record`` the replayable record),
its locked ``match`` and ``seat_users`` (seat → user ID)."""

match_finished = Signal()
"""Sent with ``match`` when a :class:`~apps.matches.models.Match` ends: all hands played
(status ``finished``) or dissolved by vote (``dissolved``); ``match.totals`` are final."""
