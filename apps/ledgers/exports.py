"""CSV export of the club ledger (UTF-8 with BOM, so spreadsheet programs read Chinese)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from django.utils import timezone

from .models import LedgerEntry

HEADER = (
    "编号", "时间", "类型", "房间", "对局", "局序", "行号", "玩法", "付方", "收方", "项目",
    "分数", "底注", "金额", "规则编号", "说明", "调账原因", "更正记录", "操作人",
)


def ledger_csv(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    """The rows as CSV text chunks, header first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    buffer.write("\ufeff")
    writer.writerow(HEADER)
    for e in entries:
        writer.writerow((
            e.pk, timezone.localtime(e.occurred_at).isoformat(timespec="seconds"),
            e.get_kind_display(), e.room.code, e.match_id,
            e.hand.number if e.hand is not None else "", e.line_no or "", e.variant,
            str(e.payer), str(e.payee), e.category, e.points, e.base_stake, e.amount,
            e.ruling, e.note, e.reason, e.corrects_id or "",
            str(e.created_by) if e.created_by else "",
        ))
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()
