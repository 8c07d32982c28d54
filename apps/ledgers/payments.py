"""Who pays whom at 结账: a short list of payments that settles every member's balance.

Greedy: the member who owes the most pays the member who is owed the most, as much as
settles one of the two; repeat until everyone is at zero. Each payment brings at least one
member to zero, so ``n`` members with a balance need at most ``n - 1`` payments. This is
not always the fewest possible (that problem is NP-hard in general), but it is what a club
settles by hand, and every member pays or is paid by few people.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Payment", "settle_payments"]

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Payment(Generic[K]):
    """``payer`` pays ``payee`` ``amount`` (> 0)."""

    payer: K
    payee: K
    amount: int


def settle_payments(balances: Mapping[K, int], order: Mapping[K, str] | None = None) -> list[
    Payment[K]
]:
    """Payments that bring every balance to zero (positive = is owed, negative = owes).

    Ties are broken by ``order`` (e.g. members' names), so the same balances always give
    the same payments. The balances must sum to zero, else :class:`ValueError`.
    """
    if sum(balances.values()) != 0:
        raise ValueError("balances do not sum to zero")
    left = {key: amount for key, amount in balances.items() if amount}
    label = order or {}

    def pick(sign: int) -> K:
        side = [k for k, v in left.items() if v * sign > 0]
        return min(side, key=lambda k: (-abs(left[k]), label.get(k, ""), str(k)))

    payments: list[Payment[K]] = []
    while left:
        debtor, creditor = pick(-1), pick(1)
        amount = min(-left[debtor], left[creditor])
        payments.append(Payment(debtor, creditor, amount))
        for key, change in ((debtor, amount), (creditor, -amount)):
            left[key] += change
            if not left[key]:
                del left[key]
    return payments
