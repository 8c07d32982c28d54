"""Template filters of the club pages."""

from django import template

from apps.clubs.selectors import variant_name as variant_name_of
from majiang.rulings import ruling

register = template.Library()


@register.filter
def variant_name(variant_id: str) -> str:
    """The Chinese name of a variant id, e.g. ``duyun`` → 都匀独山捉鸡."""
    return variant_name_of(variant_id)


@register.inclusion_tag("clubs/_ruling_source.html")
def ruling_source(*ids: str) -> dict[str, object]:
    """The 规则出处 detail of a passage: each ruling's title and summary, its ID small."""
    return {"rulings": [ruling(i) for i in ids]}
