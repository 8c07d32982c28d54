"""Template filters of the ledger pages: tiles by their Chinese names."""

from __future__ import annotations

from django import template

from apps.ledgers.words import category_in_words, tile_name

register = template.Library()


@register.filter(name="tile")
def tile(code: str) -> str:
    """``5m`` → ``五万`` (``1s`` → ``幺鸡``)."""
    return tile_name(code)


@register.filter(name="item")
def item(category: str) -> str:
    """A line's item as players say it: ``牌型:清七对`` → ``清七对``."""
    return category_in_words(category)
