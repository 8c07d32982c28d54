"""Keep the club lobby's 对局中 第n/m局 current: after a hand settles or a match ends, the
club's page gets its tables again (read-only use of the live-play app's signals)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from apps.matches.signals import hand_settled, match_finished

from .broadcast import club_broadcast_on_commit


@receiver(hand_settled, dispatch_uid="clubs.club_lobby_on_hand_settled")
def club_lobby_after_hand(sender: Any, hand: Any = None, match: Any = None, **kwargs: Any) -> None:
    """A hand ended: the table's 第n局 moved on. (``match`` comes with the signal; a sender
    that leaves it out still names the hand.)"""
    club_broadcast_on_commit(match.club_id if match is not None else hand.match.club_id)


@receiver(match_finished, dispatch_uid="clubs.club_lobby_on_match_finished")
def club_lobby_after_match(sender: Any, match: Any, **kwargs: Any) -> None:
    """A match ended: its room closed and leaves the club's open tables."""
    club_broadcast_on_commit(match.club_id)
