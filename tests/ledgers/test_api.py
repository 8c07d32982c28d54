"""The ledger API's lists and writes: cursor pages instead of silent cuts, strict query
parameters, ``Location`` on 201, and the ``Idempotency-Key`` of adjustments."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.core.pagination import NewestFirstPagination
from apps.ledgers.models import LedgerEntry
from apps.ledgers.services import ledger_adjustment_create
from apps.matches.models import Hand, Match, MatchPlayer
from tests.support.api import client_error, error_fields
from tests.support.factories import Table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def pages(client: Client, url: str) -> list[list[dict[str, Any]]]:
    """Every page of a cursor-paginated list, following ``next``."""
    out = []
    next_url: str | None = url
    while next_url:
        response = client.get(next_url)
        assert response.status_code == 200, response.content
        body = response.json()
        assert set(body) == {"next", "previous", "results"}
        out.append(body["results"])
        next_url = body["next"]
    return out


def test_ledger_entries_come_in_cursor_pages_newest_first_with_none_left_out(
    finished_table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = finished_table
    for points in range(1, 6):  # rows besides the hands' (however the random play went)
        ledger_adjustment_create(
            club=table.club, actor=table.players[0], match_id=table.match.pk,
            payer_id=table.players[1].pk, payee_id=table.players[2].pk, points=points,
            reason="补记",
        )
    total = LedgerEntry.objects.filter(club=table.club).count()
    assert total > 6
    monkeypatch.setattr(NewestFirstPagination, "page_size", 3)
    got = pages(client_for(table.players[0]), f"/api/ledgers/clubs/{table.club.pk}/entries/")
    assert len(got) == -(-total // 3)
    assert all(len(page) == 3 for page in got[:-1])
    ids = [row["id"] for page in got for row in page]
    assert ids == sorted(ids, reverse=True)
    assert set(ids) == set(
        LedgerEntry.objects.filter(club=finished_table.club).values_list("pk", flat=True)
    )


def test_my_matches_come_in_cursor_pages(
    finished_table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More matches than a page (the old API cut them at 30 without saying so)."""
    player = finished_table.players[0]
    match = finished_table.match
    for _ in range(4):  # copies of the played match: the rows 我的战绩 lists
        seats = list(MatchPlayer.objects.filter(match=match))
        copy = Match.objects.get(pk=match.pk)
        copy.pk = None
        copy.save()
        for seat in seats:
            seat.pk = None
            seat.match = copy
            seat.save()
    monkeypatch.setattr(NewestFirstPagination, "page_size", 2)
    got = pages(client_for(player), "/api/ledgers/mine/")
    assert [len(page) for page in got] == [2, 2, 1]
    ids = [row["match"] for page in got for row in page]
    assert ids == sorted(set(ids), reverse=True)
    assert set(ids) == set(MatchPlayer.objects.filter(user=player).values_list("match", flat=True))


@pytest.mark.parametrize("query", [
    "?start=2026-13-01", "?start=昨天", "?member=abc", "?variant=riichi",
    "?start=2026-02-01&end=2026-01-01", "?colour=red", "?cursor=garbage",
])
def test_bad_or_unknown_query_parameters_are_a_400(one_hand_table: Table, query: str) -> None:
    client = client_for(one_hand_table.players[0])
    club = one_hand_table.club.pk
    for url in (f"/api/ledgers/clubs/{club}/entries/", f"/api/ledgers/clubs/{club}/summary/",
                "/api/ledgers/mine/"):
        response = client.get(url + query)
        assert response.status_code == 400, (url, query, response.content)
        body = response.json()
        assert body["type"] == "validation_error"
        assert all(e["detail"] for e in body["errors"])
        if "cursor" in query:  # a bad cursor; on the summary (no pages) an unknown parameter
            message = "未知的查询参数" if url.endswith("/summary/") else "分页游标无效"
            assert error_fields(body) == {"cursor": [message]}


def test_unknown_parameter_is_named(one_hand_table: Table) -> None:
    response = client_for(one_hand_table.players[0]).get("/api/ledgers/mine/?colour=red")
    assert error_fields(response.json()) == {"colour": ["未知的查询参数"]}
    hand = Hand.objects.get(match=one_hand_table.match, number=1)
    share = client_for(one_hand_table.players[0]).get(f"/api/ledgers/hands/{hand.pk}/?shar=x")
    assert error_fields(share.json()) == {"shar": ["未知的查询参数"]}


def adjust(client: Client, table: Table, key: str | None = None, **extra: Any) -> Any:
    data = {
        "match": table.match.pk, "payer": table.players[1].pk, "payee": table.players[2].pk,
        "points": 5, "reason": "漏记一个杠", **extra,
    }
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post(f"/api/ledgers/clubs/{table.club.pk}/adjustments/", data,
                       content_type="application/json", **headers)


def test_an_adjustment_has_a_location(finished_table: Table) -> None:
    owner = client_for(finished_table.players[0])
    response = adjust(owner, finished_table)
    assert response.status_code == 201
    location = response["Location"]
    assert location.startswith("http://testserver/api/ledgers/clubs/")
    shown = owner.get(location)
    assert shown.status_code == 200
    assert shown.json() == response.json()
    # The payer sees the row too (it involves them).
    assert client_for(finished_table.players[1]).get(location).status_code == 200


def test_the_same_idempotency_key_and_body_write_once(finished_table: Table) -> None:
    owner = client_for(finished_table.players[0])
    before = LedgerEntry.objects.count()
    first = adjust(owner, finished_table, key="b0a2c1d4-0000-4000-8000-000000000001")
    again = adjust(owner, finished_table, key="b0a2c1d4-0000-4000-8000-000000000001",
                   reason="  漏记一个杠 ")  # the same reason once trimmed
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Location"] == first["Location"]
    assert LedgerEntry.objects.count() == before + 1
    other = adjust(owner, finished_table, key="another-key")
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    unkeyed = adjust(owner, finished_table)
    assert unkeyed.status_code == 201
    assert LedgerEntry.objects.count() == before + 3


def test_the_same_idempotency_key_with_another_body_is_a_409(finished_table: Table) -> None:
    owner = client_for(finished_table.players[0])
    assert adjust(owner, finished_table, key="k1").status_code == 201
    before = LedgerEntry.objects.count()
    for change in ({"points": 6}, {"reason": "别的原因"}, {"payer": finished_table.players[3].pk}):
        response = adjust(owner, finished_table, key="k1", **change)
        assert response.status_code == 409, change
        code, detail = client_error(response.json())
        assert code == "idempotency_key_reused"
        assert "请求编号" in detail
    assert LedgerEntry.objects.count() == before


def test_a_bad_idempotency_key_is_a_400(finished_table: Table) -> None:
    owner = client_for(finished_table.players[0])
    before = LedgerEntry.objects.count()
    for key in ("x" * 41, "带中文", "a b"):
        response = adjust(owner, finished_table, key=key)
        assert response.status_code == 400
        assert list(error_fields(response.json())) == ["Idempotency-Key"]
    assert LedgerEntry.objects.count() == before


def test_timestamps_are_in_the_configured_zone(finished_table: Table, settings: Any) -> None:
    """Every timestamp the API writes carries the same offset (TIME_ZONE, +08:00)."""
    client = client_for(finished_table.players[0])
    entries = client.get(f"/api/ledgers/clubs/{finished_table.club.pk}/entries/").json()
    clubs = client.get("/api/clubs/").json()
    stamps = [row["occurred_at"] for row in entries["results"]] + [c["created_at"] for c in clubs]
    assert stamps
    assert settings.TIME_ZONE == "Asia/Shanghai"
    for stamp in stamps:
        assert datetime.fromisoformat(stamp).utcoffset().total_seconds() == 8 * 3600, stamp


def test_the_earliest_and_latest_dates_filter_without_an_error(one_hand_table: Table) -> None:
    """0001-01-01 starts before the first UTC instant in +08:00 (found by schemathesis)."""
    client = client_for(one_hand_table.players[0])
    club = one_hand_table.club.pk
    for query in ("?start=0001-01-01", "?end=0001-01-01", "?start=9999-12-31",
                  "?start=0001-01-01&end=9999-12-31"):
        for url in (f"/api/ledgers/clubs/{club}/entries/", f"/api/ledgers/clubs/{club}/summary/",
                    "/api/ledgers/mine/", f"/ledgers/clubs/{club}/", "/ledgers/mine/"):
            assert client.get(url + query).status_code == 200, url + query
