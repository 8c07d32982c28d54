"""The money rule of computer seats (issue 45): a match with a computer seat is played and
settled at the table as usual, but the club ledger does not book it. It shows in 战绩, the
match lists, the match table and the hand page as 不记账 with its real points; 结账, every
balance, the owner's ledger page and the CSV concern people only.

The same people also play a booked match in the same club, so the ledger views have rows
to show, and must show only those.
"""

from __future__ import annotations

import csv
import io
import random

import pytest
from django.test import Client

from apps.ledgers.models import HandResult, LedgerEntry, MatchResult
from apps.matches.models import Hand, Match
from tests.support import factories
from tests.support.play import play, winning_policy

pytestmark = pytest.mark.django_db

COMPUTERS = ("电脑·小梅（标准）", "电脑·阿竹（标准）")


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_a_match_with_two_computers_shows_as_unbooked_and_the_ledger_holds_people_only() -> None:
    table = factories.table("duyun", computers=2)
    people, computers = table.users[:2], table.users[2:]
    assert [str(u) for u in computers] == list(COMPUTERS)  # two computers, two names
    unbooked = play(table.match, winning_policy(random.Random(5)))
    assert unbooked.status == Match.Status.FINISHED and unbooked.has_computers
    assert not unbooked.booked and sum(unbooked.totals) == 0
    assert any(unbooked.totals[2:])  # the computers won or lost points at the table
    booked_room = factories.started_room(table.club, [*people, table.admin, table.spectator])
    # The whole match: the deals are the platform's own, and a single hand may be a draw.
    booked = play(Match.objects.get(room=booked_room), winning_policy(random.Random(6)))
    assert booked.booked and LedgerEntry.objects.filter(match=booked).exists()
    # Nothing of the computer match is in the ledger.
    for model in (LedgerEntry, HandResult, MatchResult):
        assert not model.objects.filter(match=unbooked).exists()
    owner = _client(people[0])
    club = table.club.pk

    # 战绩: the match, marked 不记账, with its real points, hand by hand.
    mine = owner.get("/ledgers/mine/")
    item = next(i for i in mine.context["matches"] if i["match"].pk == unbooked.pk)
    assert not item["booked"] and item["points"] == unbooked.totals[0]
    assert [h["points"] for h in item["hands"]] == [
        h.settlement["totals"][0] for h in Hand.objects.filter(match=unbooked).order_by("number")
    ]
    assert item["opponents"] == ["李四", *COMPUTERS]
    assert "不记账" in mine.content.decode()
    other = next(i for i in mine.context["matches"] if i["match"].pk == booked.pk)
    assert other["booked"]
    # Its figures are the booked match's alone, and they say so.
    stats = mine.context["stats"]
    assert (stats.matches, stats.hands, stats.points) == (
        1, Hand.objects.filter(match=booked).count(), booked.totals[0])
    assert "统计只算打完的记账对局" in mine.content.decode()
    api = owner.get("/api/ledgers/mine/").json()["results"]
    shown = {m["match"]: m for m in api}
    assert shown[unbooked.pk]["booked"] is False
    assert shown[unbooked.pk]["points"] == unbooked.totals[0]
    assert shown[booked.pk]["booked"] is True

    # The owner's ledger page: totals, chart and rows of people only.
    ledger = owner.get(f"/ledgers/clubs/{club}/")
    names = {row["name"] for row in ledger.context["totals"]}
    assert names == {"张三", "李四", "管理员", "旁观者"}
    assert {e.match_id for e in ledger.context["entries"]} == {booked.pk}
    assert "电脑" not in str(ledger.context["chart"])
    totals = {row["name"]: row["points"] for row in ledger.context["totals"]}
    assert list(totals.values()) and sum(totals.values()) == 0
    assert totals["张三"] == booked.totals[0]  # only the booked match counts
    # Its match list shows both, the computer match as 不记账 with its real points.
    rows = {r["match"].pk: r for r in ledger.context["matches"]}
    assert not rows[unbooked.pk]["booked"] and rows[booked.pk]["booked"]
    assert [p["points"] for p in rows[unbooked.pk]["players"]] == unbooked.totals
    assert [p["name"] for p in rows[unbooked.pk]["players"]] == ["张三", "李四", *COMPUTERS]

    # 结账 and its payments: people only, and every balance settles.
    checkout = owner.get(f"/ledgers/clubs/{club}/checkout/").context["view"]
    assert {row.name for row in checkout.rows} <= {"张三", "李四", "管理员", "旁观者"}
    assert sum(row.total for row in checkout.rows) == 0
    assert checkout.payments and all(
        "电脑" not in f"{p.payer} {p.payee}" for p in checkout.payments)

    # The CSV: the booked match's rows, none of the computer match's.
    text = b"".join(owner.get(f"/ledgers/clubs/{club}/export.csv").streaming_content)
    lines = list(csv.reader(io.StringIO(text.decode("utf-8-sig"))))
    assert len(lines) - 1 == LedgerEntry.objects.filter(club_id=club).count() > 0
    assert "电脑" not in text.decode("utf-8-sig")

    # The match table and a hand page: real points, 不记账, no 调账 on it.
    page = owner.get(f"/ledgers/clubs/{club}/matches/{unbooked.pk}/")
    assert [p["points"] for p in page.context["players"]] == unbooked.totals
    assert "不记账" in page.content.decode() and "为本场调账" not in page.content.decode()
    hand = Hand.objects.filter(match=unbooked).exclude(settlement__lines=[]).first()
    assert hand is not None
    shown_hand = owner.get(f"/ledgers/hands/{hand.pk}/")
    assert [s.total for s in shown_hand.context["seats"]] == hand.settlement["totals"]
    assert len(shown_hand.context["lines"]) == len(hand.settlement["lines"])
    assert "不记账" in shown_hand.content.decode()
    # 调账 offers only booked matches: nobody can pay a computer, not even by a correction.
    picker = owner.get(f"/ledgers/clubs/{club}/adjust/").context["picker"]
    offered = {int(value) for value, _ in picker.fields["match"].choices if value}
    assert booked.pk in offered and unbooked.pk not in offered
