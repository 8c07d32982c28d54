"""Typed errors raised by the rules package."""

from __future__ import annotations

from majiang.refusals import Refusal, RefusalValue, words

__all__ = ["IllegalActionError", "RecordError", "SettingsError", "UnknownRulingError"]


class IllegalActionError(ValueError):
    """An action is not legal in the current state. The state is unchanged.

    Raised as ``IllegalActionError(code, reason=..., **data)``: ``refusal`` holds them as a
    :class:`~majiang.refusals.Refusal` (plain values, never words). ``code`` is a stable
    machine-readable reason; ``message`` is for players, in Chinese, worded by
    :func:`majiang.refusals.words`.
    """

    def __init__(self, code: str, /, reason: str | None = None, **data: RefusalValue) -> None:
        super().__init__(code)
        self.code = code
        self.refusal = Refusal(code, reason, data)

    @property
    def message(self) -> str:
        """The refusal in the Chinese a player reads (no tile codes, no Latin letters)."""
        return words(self.refusal)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        return (_illegal_action_error, (self.refusal,))


def _illegal_action_error(refusal: Refusal) -> IllegalActionError:
    """An :class:`IllegalActionError` rebuilt from its refusal (unpickling)."""
    return IllegalActionError(refusal.code, refusal.reason, **refusal.data)


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
