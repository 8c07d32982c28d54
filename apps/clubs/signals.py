"""Signals the clubs app sends to the live-play app."""

from django.dispatch import Signal

room_all_ready = Signal()
"""Sent with ``room`` inside the transaction that makes every seat of a room filled and
ready. The matches app receives it, starts the match (copying ``room.settings``) and sets
``room.status`` to ``playing``. Receivers run in the same transaction: raising aborts it."""
