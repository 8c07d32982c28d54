"""A match as a table: its hands as rows, its players as columns, and the totals."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.models import HandResult
from tests.support.factories import Table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def cells(row: str) -> list[str]:
    found = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in found]


def test_the_owner_reads_a_match_as_hands_by_players_with_totals(finished_table: Table) -> None:
    match = finished_table.match
    url = f"/ledgers/clubs/{finished_table.club.pk}/matches/{match.pk}/"
    page = client_for(finished_table.players[0]).get(url).content.decode()
    head = re.search(r"<thead>(.*?)</thead>", page, re.S)
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S)
    foot = re.search(r"<tfoot>(.*?)</tfoot>", page, re.S)
    assert head and body and foot
    assert cells(head.group(1)) == ["局", "张三", "李四", "王五", "赵六"]
    rows = [cells(r) for r in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)]
    results = HandResult.objects.filter(match=match).select_related("hand")
    expected: dict[int, list[str]] = {}
    for r in results.order_by("hand__number", "seat"):
        expected.setdefault(r.hand.number, [f"第{r.hand.number}局"]).append(
            f"{r.points}" + (" 胡" if r.won else "")
        )
    assert rows == list(expected.values()) and len(rows) == match.hands_played
    total = cells(re.findall(r"<tr[^>]*>(.*?)</tr>", foot.group(1), re.S)[0])
    assert [t.split("分")[0] for t in total[1:]] == [str(p) for p in match.totals]
    assert "duyun" not in page and "都匀独山捉鸡" in page


def test_a_plain_member_sees_only_matches_they_played(finished_table: Table) -> None:
    url = f"/ledgers/clubs/{finished_table.club.pk}/matches/{finished_table.match.pk}/"
    assert client_for(finished_table.member).get(url).status_code == 404
    assert client_for(finished_table.players[2]).get(url).status_code == 200
    assert client_for(finished_table.outsider).get(url).status_code == 404
    listing = client_for(finished_table.players[0]).get(
        f"/ledgers/clubs/{finished_table.club.pk}/matches/"
    ).content.decode()
    assert url in listing


def test_a_bad_filter_on_the_club_ledger_says_why_instead_of_listing(
    finished_table: Table,
) -> None:
    client = client_for(finished_table.players[0])
    base = f"/ledgers/clubs/{finished_table.club.pk}/"
    for url in (base, base + "matches/"):
        for query in ({"start": "昨天"}, {"variant": "mahjong"}, {"member": "x"},
                      {"colour": "red"}):
            response = client.get(url, query)
            page = response.content.decode()
            assert response.status_code == 400 and "筛选条件有误" in page, (url, query)
            assert 'class="ledger entries"' not in page and "match-list" not in page
    response = client.get(base + "export.csv", {"start": "昨天"})
    assert response.status_code == 400 and "起始日期" in response.content.decode()
    response = client.get(base + "export.csv", {"colour": "red"})
    assert response.status_code == 400 and "colour" in response.content.decode()
    # A page number is not a filter.
    assert client.get(base, {"page": "2", "variant": "duyun"}).status_code == 200
