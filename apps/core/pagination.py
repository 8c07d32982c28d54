"""Cursor pagination of the API's long lists (ledger rows, my matches).

A page is ``{"next": url | null, "previous": url | null, "results": [...]}``; follow
``next`` until it is null. The cursor is opaque and stays right while rows are added (the
ledger only grows), unlike page numbers.
"""

from __future__ import annotations

from rest_framework.pagination import CursorPagination


class NewestFirstPagination(CursorPagination):
    """Newest first, 100 a page."""

    page_size = 100
    ordering = "-pk"
    invalid_cursor_message = "分页游标无效"
