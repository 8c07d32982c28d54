"""Typed errors raised by the rules package."""

from __future__ import annotations

__all__ = ["IllegalActionError", "RecordError", "SettingsError", "UnknownRulingError"]


class IllegalActionError(ValueError):
    """An action is not legal in the current state. The state is unchanged.

    ``code`` is a stable machine-readable reason; ``message`` is for players, in Chinese.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class SettingsError(ValueError):
    """Room settings do not match a variant's settings schema.

    ``errors`` maps each bad setting name to a message in Chinese.
    """

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


class RecordError(ValueError):
    """A game record cannot be read or replayed.

    ``code`` is a stable machine-readable reason (``bad_action``, ``illegal_action``,
    ``wrong_wall`` …), also written at the end of the message in brackets; the message is
    Chinese and names seats as 座位N. ``index`` is the position of the first bad action,
    when the problem is an action.
    """

    def __init__(self, message: str, *, code: str = "bad_record", index: int | None = None) -> None:
        super().__init__(f"{message} [{code}]")
        self.message = message
        self.code = code
        self.index = index


class UnknownRulingError(KeyError):
    """No ruling has this ID (see :mod:`majiang.rulings`). ``ruling_id`` is the ID asked for."""

    def __init__(self, ruling_id: str) -> None:
        super().__init__(ruling_id)
        self.ruling_id = ruling_id
