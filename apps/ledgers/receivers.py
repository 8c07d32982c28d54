"""Receivers of live play's signals: post to the ledger inside the match's transaction.

Practice matches (练习房) are booked nowhere. A receiver that raises aborts the whole
change (the hand is not recorded as settled), so a ledger that cannot be written
consistently stops play rather than losing points.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from apps.matches.models import Hand, Match
from apps.matches.signals import hand_settled, match_finished

from .services import ledger_hand_post, ledger_match_post


@receiver(hand_settled, dispatch_uid="ledgers.post_hand")
def post_settled_hand(sender: type[Hand], hand: Hand, **kwargs: Any) -> None:
    """Write the hand's settlement lines and per-seat results (a 练习房 books nothing)."""
    match = kwargs.get("match")
    if match is not None and match.practice:
        return
    ledger_hand_post(hand=hand, match=kwargs.get("match"), seat_users=kwargs.get("seat_users"))


@receiver(match_finished, dispatch_uid="ledgers.post_match")
def post_finished_match(sender: type[Match], match: Match, **kwargs: Any) -> None:
    """Write the match's per-seat results (checked against its hands; a 练习房 books
    nothing)."""
    if match.practice:
        return
    ledger_match_post(match=match)
