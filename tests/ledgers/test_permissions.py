"""Who may see and do what, through the selectors, the pages and the API alike."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.models import LedgerEntry
from apps.ledgers.replay import replay_share_token
from apps.matches.models import Hand, Match
from tests.support.factories import Table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def hand_of(table: Table) -> Hand:
    hand = Hand.objects.filter(match=table.match, settlement__isnull=False).first()
    assert hand is not None
    return hand


def entry_ids(client: Client, club_id: int, query: str = "") -> set[int]:
    """Every row the API lists, following the cursor pages to the end."""
    url: str | None = f"/api/ledgers/clubs/{club_id}/entries/{query}"
    ids: list[int] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        ids += [row["id"] for row in response.json()["results"]]
        url = response.json()["next"]
    assert len(ids) == len(set(ids)), "a row was listed twice"
    return set(ids)


def involving(user: User) -> set[int]:
    return set(
        LedgerEntry.objects.filter(payer=user).values_list("pk", flat=True)
    ) | set(LedgerEntry.objects.filter(payee=user).values_list("pk", flat=True))


def test_owner_and_admin_see_the_whole_club_ledger(finished_table: Table) -> None:
    everything = set(LedgerEntry.objects.values_list("pk", flat=True))
    assert everything
    for user in (finished_table.players[0], finished_table.admin):
        client = client_for(user)
        assert entry_ids(client, finished_table.club.pk) == everything
        page = client.get(f"/ledgers/clubs/{finished_table.club.pk}/")
        assert page.status_code == 200
        assert b"<svg" in page.content and b"polyline" in page.content


def test_members_see_only_their_own_rows_unless_the_owner_opens_the_ledger(
    finished_table: Table,
) -> None:
    club, player = finished_table.club, finished_table.players[1]
    client = client_for(player)
    assert entry_ids(client, club.pk) == involving(player)
    other = finished_table.players[2]
    assert entry_ids(client, club.pk, f"?member={other.pk}") == set()
    summary = client.get(f"/api/ledgers/clubs/{club.pk}/summary/").json()
    assert [m["user_id"] for m in summary["members"]] == [player.pk]
    assert entry_ids(client_for(finished_table.member), club.pk) == set()

    club.ledger_visible_to_members = True
    club.save(update_fields=["ledger_visible_to_members"])
    assert entry_ids(client, club.pk) == set(LedgerEntry.objects.values_list("pk", flat=True))
    assert entry_ids(client, club.pk, f"?member={other.pk}") == involving(other)


def test_outsiders_see_nothing_of_the_club(finished_table: Table) -> None:
    client = client_for(finished_table.outsider)
    club_id, hand = finished_table.club.pk, hand_of(finished_table)
    token = replay_share_token(hand)
    for url in (
        f"/api/ledgers/clubs/{club_id}/entries/", f"/api/ledgers/clubs/{club_id}/summary/",
        f"/api/ledgers/clubs/{club_id}/export.csv", f"/ledgers/clubs/{club_id}/",
        f"/ledgers/clubs/{club_id}/export.csv", f"/api/ledgers/hands/{hand.pk}/?share={token}",
        f"/api/ledgers/hands/{hand.pk}/replay/?share={token}",
        f"/ledgers/hands/{hand.pk}/replay/?share={token}",
        f"/api/ledgers/hands/{hand.pk}/record/?share={token}",
    ):
        assert client.get(url).status_code == 404, url
    assert Client().get(f"/api/ledgers/clubs/{club_id}/entries/").status_code == 403
    assert Client().get(f"/ledgers/clubs/{club_id}/").status_code == 302


def test_a_hand_is_open_to_its_players_managers_and_holders_of_its_share_link(
    finished_table: Table,
) -> None:
    hand = hand_of(finished_table)
    for user in (finished_table.players[3], finished_table.admin):
        response = client_for(user).get(f"/api/ledgers/hands/{hand.pk}/")
        assert response.status_code == 200
    member = client_for(finished_table.member)
    assert member.get(f"/api/ledgers/hands/{hand.pk}/").status_code == 404
    assert member.get(f"/ledgers/hands/{hand.pk}/replay/").status_code == 404
    token = replay_share_token(hand)
    assert member.get(f"/ledgers/hands/{hand.pk}/replay/?share={token}").status_code == 200
    assert member.get(f"/api/ledgers/hands/{hand.pk}/replay/?share=wrong").status_code == 404
    other = Hand.objects.filter(match=hand.match).exclude(pk=hand.pk).first()
    assert other is not None
    assert member.get(f"/api/ledgers/hands/{other.pk}/replay/?share={token}").status_code == 404


def test_a_hand_page_words_each_line(finished_table: Table) -> None:
    entry = LedgerEntry.objects.filter(kind="settlement").first()
    assert entry is not None
    page = client_for(finished_table.players[0]).get(f"/ledgers/hands/{entry.hand_id}/")
    item = entry.category.removeprefix("牌型:")
    text = f"{entry.payer} 付 {entry.payee} {item} {entry.points}分"
    assert text in page.content.decode()
    mine = client_for(finished_table.players[0]).get("/ledgers/mine/")
    assert mine.status_code == 200 and f"/ledgers/hands/{entry.hand_id}/" in mine.content.decode()
    api = client_for(finished_table.players[0]).get("/api/ledgers/mine/").json()["results"]
    assert api[0]["match"] == finished_table.match.pk and api[0]["hands"]


def test_no_replay_or_record_of_a_hand_still_in_play(one_hand_table: Table) -> None:
    match = one_hand_table.match
    assert match.status == Match.Status.PLAYING
    running = Hand.objects.create(
        match=match, number=50, dealer=0, seed="s", salt="t", commitment="c"
    )
    for user in (one_hand_table.players[0], one_hand_table.admin):
        client = client_for(user)
        for url in (
            f"/api/ledgers/hands/{running.pk}/replay/", f"/ledgers/hands/{running.pk}/replay/",
            f"/api/ledgers/hands/{running.pk}/record/", f"/ledgers/hands/{running.pk}/",
        ):
            assert client.get(url).status_code == 404, url
    settled = Hand.objects.get(match=match, number=1)
    data = client_for(one_hand_table.players[0]).get(
        f"/api/ledgers/hands/{settled.pk}/replay/"
    ).json()
    assert data["seed"]["commitment_ok"] and data["seed"]["wall_ok"]
    assert len(data["frames"]) == len(settled.record["actions"]) + 1


def test_the_record_download_replays_to_the_stored_settlement(finished_table: Table) -> None:
    import json

    from majiang.record import replay

    hand = hand_of(finished_table)
    response = client_for(finished_table.players[0]).get(f"/ledgers/hands/{hand.pk}/record.json")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record["format"] == "majiang-record/1"
    assert replay(record).settlement().to_json() == hand.settlement


def adjust(client: Client, table: Table, **extra: Any) -> Any:
    data = {
        "match": table.match.pk, "payer": table.players[1].pk, "payee": table.players[2].pk,
        "points": 5, "reason": "漏记一个杠", **extra,
    }
    return client.post(
        f"/api/ledgers/clubs/{table.club.pk}/adjustments/", data, content_type="application/json"
    )


def test_only_the_owner_adjusts_and_a_reason_is_required(finished_table: Table) -> None:
    for user in (finished_table.admin, finished_table.players[1]):
        assert adjust(client_for(user), finished_table).status_code == 403
    assert adjust(client_for(finished_table.outsider), finished_table).status_code == 404
    owner = client_for(finished_table.players[0])
    assert adjust(owner, finished_table, reason="  ").status_code == 400
    assert adjust(owner, finished_table, payee=finished_table.member.pk).status_code == 400
    before = LedgerEntry.objects.count()
    response = adjust(owner, finished_table)
    assert response.status_code == 201, response.content
    assert LedgerEntry.objects.count() == before + 1
    entry = LedgerEntry.objects.get(pk=response.json()["id"])
    assert entry.kind == "adjustment" and entry.created_by == finished_table.players[0]
    assert entry.amount == 5 * entry.base_stake and entry.signature_valid()
    page = owner.get(f"/ledgers/clubs/{finished_table.club.pk}/").content.decode()
    assert "调账" in page and "漏记一个杠" in page


def test_csv_export_follows_the_same_rules(finished_table: Table) -> None:
    player = finished_table.players[1]
    for url in (
        f"/api/ledgers/clubs/{finished_table.club.pk}/export.csv",
        f"/ledgers/clubs/{finished_table.club.pk}/export.csv",
    ):
        response = client_for(player).get(url)
        assert response.status_code == 200
        rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
        assert rows[0][0] == "\ufeff编号"
        assert {int(r[0]) for r in rows[1:]} == involving(player)


def test_the_ledger_endpoints_are_in_the_openapi_schema(finished_table: Table) -> None:
    schema = client_for(finished_table.players[0]).get("/api/schema/?format=json").json()
    for path in (
        "/api/ledgers/mine/", "/api/ledgers/clubs/{club_id}/entries/",
        "/api/ledgers/clubs/{club_id}/summary/", "/api/ledgers/clubs/{club_id}/export.csv",
        "/api/ledgers/clubs/{club_id}/adjustments/", "/api/ledgers/hands/{hand_id}/",
        "/api/ledgers/hands/{hand_id}/replay/", "/api/ledgers/hands/{hand_id}/record/",
    ):
        assert path in schema["paths"], path
