"""Typed errors of the ledgers app.

Permission and input errors reuse the clubs app's types, so pages and the API map them the
same way: :class:`~apps.clubs.errors.ClubNotFound` → 404, :class:`ActionForbidden` → 403,
:class:`InvalidInputError` → 400.
"""

from __future__ import annotations

from apps.clubs.errors import ActionForbidden, ClubNotFound, InvalidInputError

__all__ = ["ActionForbidden", "ClubNotFound", "InvalidInputError", "LedgerMismatchError"]


class LedgerMismatchError(Exception):
    """What is about to be written disagrees with what the rules package recomputes, or
    with rows already written. Raised inside the match's transaction, it aborts the change."""
