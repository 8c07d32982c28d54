"""CSV export of the club ledger (UTF-8 with BOM, so spreadsheet programs read Chinese).

Cells are what players read: names, the game's Chinese name, tiles in Chinese. A text
cell that a spreadsheet would run as a formula (one starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) is prefixed with ``'``; numbers are written as numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from django.utils import timezone

from .models import LedgerEntry
from .words import category_in_words, tiles_in_words, variant_name

HEADER = (
    "编号", "时间", "类型", "房间", "对局开始", "局序", "行号", "玩法", "付方", "收方", "项目",
    "分数", "底注", "金额", "说明", "调账原因", "更正记录", "操作人", "规则出处",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell as written: text that could start a formula gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def ledger_csv(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    """The rows as CSV text chunks, header first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    buffer.write("\ufeff")
    writer.writerow(HEADER)
    for e in entries:
        writer.writerow([csv_cell(v) for v in (
            e.pk, timezone.localtime(e.occurred_at).isoformat(timespec="seconds"),
            e.get_kind_display(), e.room.code,
            timezone.localtime(e.match.created_at).strftime("%Y-%m-%d %H:%M"),
            e.hand.number if e.hand is not None else "", e.line_no or "",
            variant_name(e.variant), str(e.payer), str(e.payee), category_in_words(e.category),
            e.points, e.base_stake, e.amount, tiles_in_words(e.note), e.reason,
            e.corrects_id or "", str(e.created_by) if e.created_by else "", e.ruling,
        )])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()
