"""The club ledger's CSV: names, the game's Chinese name, tiles in Chinese, and no cell a
spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from apps.ledgers import services
from apps.ledgers.exports import csv_cell
from tests.support.factories import Table

pytestmark = pytest.mark.django_db
TILE_CODE = re.compile(r"(?<![0-9A-Za-z])[1-9][msp](?![0-9A-Za-z])")


def test_formula_cells_are_neutralised_and_numbers_stay_numbers() -> None:
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(text) == "'" + text
    assert csv_cell("张三") == "张三" and csv_cell(-13) == -13


def test_the_csv_reads_in_names_chinese_game_names_and_tiles(finished_table: Table) -> None:
    owner = finished_table.players[0]
    services.ledger_adjustment_create(
        club=finished_table.club, actor=owner, match_id=finished_table.match.pk,
        payer_id=finished_table.players[1].pk, payee_id=owner.pk, points=2,
        reason='=HYPERLINK("http://evil","点我")',
    )
    client = Client()
    client.force_login(owner)
    response = client.get(f"/ledgers/clubs/{finished_table.club.pk}/export.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows and {r["玩法"] for r in rows} == {"都匀独山捉鸡"}
    assert {r["付方"] for r in rows} <= {"张三", "李四", "王五", "赵六"}
    assert not any(TILE_CODE.search(r["说明"]) for r in rows)
    assert not any(r["项目"].startswith("牌型:") for r in rows)
    assert rows[-1]["调账原因"] == "'=HYPERLINK(\"http://evil\",\"点我\")"
    assert not any(v.startswith(("=", "+", "@")) for r in rows for v in r.values())
