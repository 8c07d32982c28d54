"""Template filters of the ledger pages: tiles by their Chinese names."""

from __future__ import annotations

from django import template

from apps.ledgers.words import tile_name

register = template.Library()


@register.filter(name="tile")
def tile(code: str) -> str:
    """``5m`` → ``五万`` (``1s`` → ``幺鸡``)."""
    return tile_name(code)
