"""Cursor pagination of the API's long lists (ledger rows, my matches).

A page is ``{"next": url | null, "previous": url | null, "results": [...]}``; follow
``next`` until it is null. The cursor is opaque and stays right while rows are added (the
ledger only grows), unlike page numbers. A cursor that is not one of ours is a 400 under
``cursor``, like any other bad query parameter.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request

INVALID_CURSOR = "分页游标无效"


class NewestFirstPagination(CursorPagination):
    """Newest first, 100 a page."""

    page_size = 100
    ordering = "-pk"

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound as invalid:
            raise exceptions.ValidationError({self.cursor_query_param: INVALID_CURSOR}) from invalid
