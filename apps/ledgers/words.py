"""Ledger text in the words players read: tile names, variant names, settlement sentences.

Tile codes (``5m``, ``1s``, ``8p``) never reach a page: :func:`tiles_in_words` turns every
code inside a note into its Chinese name, and the zigong fan arithmetic ``2^3=8`` into
``计8分``.
"""

from __future__ import annotations

import re

from apps.clubs.selectors import variant_name

__all__ = ["category_in_words", "line_sentence", "tile_name", "tiles_in_words", "variant_name"]

NUMERALS = "一二三四五六七八九"
SUITS = {"m": "万", "s": "条", "p": "筒"}
TILE_CODE = re.compile(r"(?<![0-9A-Za-z])([1-9])([msp])(?![0-9A-Za-z])")
POWER = re.compile(r",?\s*2\^\d+=(\d+)")
PATTERN_PREFIX = "牌型:"


def tile_name(code: str) -> str:
    """A tile's Chinese name, as the table shows it: ``五万``; 1s is ``幺鸡``."""
    return "幺鸡" if code == "1s" else NUMERALS[int(code[0]) - 1] + SUITS[code[1]]


def tiles_in_words(text: str) -> str:
    """``text`` with each tile code named (``萝卜 2s 8p`` → ``萝卜 二条 八筒``) and each
    ``2^n=m`` written as ``计m分``."""
    text = TILE_CODE.sub(lambda m: tile_name(m.group(0)), text)
    return POWER.sub(lambda m: f"，计{m.group(1)}分", text).lstrip("，")


def category_in_words(category: str) -> str:
    """A line's item as players say it: ``牌型:清七对`` → ``清七对``."""
    return category.removeprefix(PATTERN_PREFIX)


def line_sentence(payer: str, payee: str, category: str, points: int, note: str = "") -> str:
    """One payment in words: ``李四 付 张三 幺鸡 1分（1只）``."""
    text = f"{payer} 付 {payee} {category_in_words(category)} {points}分"
    return text + (f"（{tiles_in_words(note)}）" if note else "")
