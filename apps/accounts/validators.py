"""Checks of what users type: shown names, and password validators with Chinese messages
where Django's own catalogue has none.

Django 5.2 reworded the too-short message ("…at least %d character."), and its zh_Hans
translation still carries only the old wording, so the stock validator reports in English
beside the other validators' Chinese. This one says it in Chinese; it checks the same.
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import confusables
from django.contrib.auth import password_validation

from apps.clubs.services.computers import COMPUTER_NAME

from .models import NAME_SCRIPTS, name_key

# Format and control characters (zero-width space and joiners, direction marks …), private
# use and unassigned code points: nothing a reader sees.
INVISIBLE = frozenset({"Cf", "Cc", "Co", "Cn", "Cs"})


class MinimumLengthValidator(password_validation.MinimumLengthValidator):
    """Django's minimum-length check, with its error in Chinese."""

    def get_error_message(self) -> str:
        """The error shown under the password field."""
        return f"密码太短，至少需要 {self.min_length} 个字符。"


def shown_name_problem(name: str) -> str:
    """Why ``name`` may not be shown to other players ("" if it may): it hides characters,
    mixes look-alike letters of different scripts (Cyrillic а among Latin letters; Unicode's
    confusables, via ``confusable_homoglyphs``), or passes for a computer seat."""
    if any(unicodedata.category(ch) in INVISIBLE for ch in name):
        return "名字里有看不见的字符（如零宽空格），请删掉后再试"
    if confusables.is_dangerous(name, preferred_aliases=list(NAME_SCRIPTS)):
        return "名字混用了外形相近的不同文字（如把俄文字母 а 当作英文字母 a），请只用一种写法"
    key = name_key(name)
    # 电脑·小梅（标准） and the others all start with 电脑 (traditional: 電腦).
    if any(name_key(word) in key for word in (COMPUTER_NAME, "電腦")) or key.startswith(
        "computer"
    ):
        return f"“{COMPUTER_NAME}”是电脑玩家的名字，真人玩家的名字里不能有它，请换一个"
    return ""
