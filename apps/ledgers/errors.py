"""Typed errors of the ledgers app.

Permission and input errors reuse the clubs app's types, so pages and the API map them the
same way: :class:`~apps.clubs.errors.ClubNotFound` → 404, :class:`ActionForbidden` → 403,
:class:`InvalidInputError` → 400.
"""

from __future__ import annotations

from apps.clubs.errors import ActionForbidden, ClubNotFound, InvalidInputError

__all__ = [
    "ActionForbidden", "ClubNotFound", "InvalidInputError", "LedgerMismatchError",
    "RequestKeyReusedError",
]


class RequestKeyReusedError(InvalidInputError):
    """A once-only key (the 调账 form's, or the API's ``Idempotency-Key``) that already
    wrote an entry comes with another request. The page shows it as a form error; the API
    answers 409."""

    MESSAGE = "这个请求编号已用于另一笔调账，请重新提交"

    def __init__(self) -> None:
        super().__init__({"non_field_errors": self.MESSAGE})


class LedgerMismatchError(Exception):
    """What is about to be written disagrees with what the rules package recomputes, or
    with rows already written. Raised inside the match's transaction, it aborts the change."""
