"""Query-string input of the API: a filter the view does not know is a 400, not ignored.

:class:`QueryInput` is a serializer of query parameters that refuses any parameter it does
not declare (besides ``cursor`` on a paginated list and DRF's ``format``), and an empty
value (``?start=``), each with a Chinese message under its name, as a wrong value is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

UNKNOWN = "未知的查询参数"
EMPTY = "不能为空（不筛选就不要带这个参数）"


class QueryInput(serializers.Serializer[None]):
    """Query parameters; unknown ones are refused (400)."""

    also_allowed: ClassVar[frozenset[str]] = frozenset({"format"})

    def to_internal_value(self, data: Any) -> Any:
        known = set(self.fields) | self.also_allowed
        unknown = sorted(key for key in getattr(data, "keys", dict)() if key not in known)
        if unknown:
            raise serializers.ValidationError({key: [UNKNOWN] for key in unknown}, code="unknown")
        # DRF reads an empty query value of an optional field as absent; here it is a bad
        # value (leave the parameter out instead), unless the field takes a blank.
        blank = sorted(
            key for key, field in self.fields.items()
            if key in data and data.get(key) == "" and not getattr(field, "allow_blank", False)
        )
        if blank:
            raise serializers.ValidationError({key: [EMPTY] for key in blank}, code="blank")
        return super().to_internal_value(data)


class PagedQueryInput(QueryInput):
    """Query parameters of a cursor-paginated list (``cursor`` is the paginator's)."""

    also_allowed: ClassVar[frozenset[str]] = frozenset({"format", "cursor"})
