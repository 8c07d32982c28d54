"""Who pays whom at 结账: the fewest payments that settle every member's balance.

Members whose balances sum to zero can settle among themselves with one payment fewer than
their number, and no fewer: ``n`` members with a balance need ``n - g`` payments, where
``g`` is the largest number of disjoint groups, each summing to zero, they split into.
Up to :data:`EXACT_LIMIT` members with a balance, ``g`` is found exactly by a search over
the subsets (``2**n`` of them; 16 members take about 0.3 s). Beyond that the whole club is
one group, settled greedily; that is at most ``n - 1`` payments, perhaps a few more than
the fewest (the problem is NP-hard in general).

Within a group, greedy: the member who owes the most pays the member who is owed the most,
as much as settles one of the two; each payment brings at least one member to zero, the
last brings two.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["EXACT_LIMIT", "Payment", "settle_payments"]

K = TypeVar("K", bound=Hashable)

EXACT_LIMIT = 16


@dataclass(frozen=True, slots=True)
class Payment(Generic[K]):
    """``payer`` pays ``payee`` ``amount`` (> 0)."""

    payer: K
    payee: K
    amount: int


def settle_payments(balances: Mapping[K, int], order: Mapping[K, str] | None = None) -> list[
    Payment[K]
]:
    """The fewest payments that bring every balance to zero (positive = is owed, negative =
    owes), when at most :data:`EXACT_LIMIT` balances are not zero; else greedy payments.

    Ties are broken by ``order`` (e.g. members' names), so the same balances always give
    the same payments. The balances must sum to zero, else :class:`ValueError`.
    """
    if sum(balances.values()) != 0:
        raise ValueError("balances do not sum to zero")
    label = order or {}
    keys = sorted(
        (k for k, v in balances.items() if v), key=lambda k: (label.get(k, ""), str(k))
    )
    groups = _zero_sum_groups([balances[k] for k in keys]) if len(keys) <= EXACT_LIMIT else [
        list(range(len(keys)))
    ]
    payments: list[Payment[K]] = []
    for group in groups:
        payments += _greedy({keys[i]: balances[keys[i]] for i in group}, label)
    return sorted(
        payments, key=lambda p: (-p.amount, label.get(p.payer, ""), label.get(p.payee, ""))
    )


def _zero_sum_groups(values: list[int]) -> list[list[int]]:
    """The indices of ``values`` (summing to zero) split into as many disjoint groups
    summing to zero as possible.

    ``best[mask]`` is the most zero-sum groups a chain of subsets, growing one member at a
    time up to ``mask``, passes through; for the whole set that is the most groups of a
    partition (each group is the difference of two zero-sum subsets on the chain).
    """
    n = len(values)
    full = (1 << n) - 1
    total = [0] * (full + 1)
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + values[low.bit_length() - 1]
        most = 0
        rest = mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            most = max(most, best[mask ^ bit])
        best[mask] = most + (total[mask] == 0)
    groups: list[list[int]] = []
    mask, group = full, []
    while mask:
        # Step down to the member whose removal keeps the most groups (the first such).
        for i in range(n):
            bit = 1 << i
            if mask & bit and best[mask ^ bit] + (total[mask] == 0) == best[mask]:
                break
        group.append(i)
        mask ^= bit
        if total[mask] == 0:
            groups.append(sorted(group))
            group = []
    return groups


def _greedy(left: dict[K, int], label: Mapping[K, str]) -> list[Payment[K]]:
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
