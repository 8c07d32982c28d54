"""Template filters of the club pages."""

from django import template

from apps.clubs.selectors import variant_name as variant_name_of

register = template.Library()


@register.filter
def variant_name(variant_id: str) -> str:
    """The Chinese name of a variant id, e.g. ``duyun`` → 都匀独山捉鸡."""
    return variant_name_of(variant_id)
