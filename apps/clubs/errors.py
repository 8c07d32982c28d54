"""Typed errors raised by the clubs service layer, with messages in Chinese.

Pages and the API translate them: :class:`ClubNotFound` → 404, :class:`ActionForbidden`
→ 403 and :class:`InvalidInputError` → 400 with a message per field. A service that raises
one of them has changed nothing (it runs inside ``transaction.atomic``).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404


class ClubNotFound(Http404):
    """The club or room does not exist, or the user is not a member and may not see it."""


class ActionForbidden(PermissionDenied):
    """The user is a member but their role does not allow the action."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInputError(ValidationError):
    """The input breaks a rule. ``errors`` maps each field to a list of messages.

    ``settings`` errors are nested one level: ``{"settings": {"players": ["..."]}}``.
    """

    def __init__(self, errors: dict[str, Any]) -> None:
        self.errors = {key: _as_list(value) for key, value in errors.items()}
        super().__init__({key: _flatten(key, value) for key, value in self.errors.items()})


def _as_list(value: Any) -> Any:
    """Wrap a single message in a list; nested dicts keep their shape."""
    if isinstance(value, dict):
        return {key: _as_list(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [str(item) for item in value]
    return [str(value)]


def _flatten(key: str, value: Any) -> list[str]:
    """Messages of one field as plain strings, e.g. ``"players: 可选值: 2, 3, 4"``."""
    if isinstance(value, dict):
        return [f"{name}: {msg}" for name, msgs in value.items() for msg in msgs]
    return list(value)
