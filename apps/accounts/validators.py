"""Password validators with Chinese messages where Django's own catalogue has none.

Django 5.2 reworded the too-short message ("…at least %d character."), and its zh_Hans
translation still carries only the old wording, so the stock validator reports in English
beside the other validators' Chinese. This one says it in Chinese; it checks the same.
"""

from __future__ import annotations

from django.contrib.auth import password_validation


class MinimumLengthValidator(password_validation.MinimumLengthValidator):
    """Django's minimum-length check, with its error in Chinese."""

    def get_error_message(self) -> str:
        """The error shown under the password field."""
        return f"密码太短，至少需要 {self.min_length} 个字符。"
