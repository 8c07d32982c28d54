"""The club ledger and 我的战绩 are paginated: every row is reachable in the browser.

The club ledger shows 100 rows a page (newest first), 我的战绩 20 matches a page; page links
keep the filters, a bad page number still gives a page, and the totals, chart and daily
summary cover every filtered row, not just the page shown.
"""

from __future__ import annotations

import dataclasses
import html
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs.models import Club, Room
from apps.ledgers import selectors
from apps.ledgers.models import HandResult, LedgerEntry, MatchResult
from apps.ledgers.services import ledger_adjustment_create
from apps.matches.models import Hand, Match, MatchPlayer
from tests.support import factories
from tests.support.factories import Table, table_settings
from tests.support.kept import Keeper, fresh_table, keep, kept_value

pytestmark = pytest.mark.django_db

STAKE = 2


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def section(page: str, start: str) -> str:
    """The HTML from ``start`` to the end of the table it opens."""
    begin = page.index(start)
    return page[begin:page.index("</table>", begin)]


def row_ids(page: str) -> list[int]:
    """The ledger row numbers (编号) of the club ledger's rows table, top to bottom."""
    rows = section(page, '<table class="ledger entries">')
    return [int(pk) for pk in re.findall(r'<tr class="[^"]*">\s*<td>(\d+)</td>', rows)]


def member_totals(page: str) -> dict[str, tuple[int, int]]:
    """成员统计 as shown: name -> (输赢, 分数)."""
    rows = section(page, '<table class="ledger member-totals">')
    found = re.findall(
        r'<tr><td>([^<]+)</td>\s*<td class="[^"]*">(-?\d+)</td>\s*<td>(-?\d+)</td>', rows
    )
    return {name: (int(amount), int(points)) for name, amount, points in found}


def daily_rows_and_moved(page: str) -> tuple[int, int, int]:
    """每日汇总, summed over its days: (记录, 流水, 调账)."""
    rows = section(page, '<table class="ledger daily">')
    found = re.findall(
        r"<tr><td>\d{4}-\d\d-\d\d</td><td>\d+</td><td>\d+</td>"
        r"<td>(\d+)</td><td>(-?\d+)</td><td>(\d+)</td></tr>",
        rows,
    )
    assert found, rows
    return (
        sum(int(r[0]) for r in found), sum(int(r[1]) for r in found),
        sum(int(r[2]) for r in found),
    )


def links(page: str) -> dict[str, str]:
    """The page links shown (首页/上一页/下一页/末页) -> their href, unescaped."""
    found = re.findall(r'<a class="button small secondary" href="([^"]*)"[^>]*>([^<]+)</a>', page)
    return {label: html.unescape(href) for href, label in found}


def query_of(link: str) -> dict[str, list[str]]:
    assert link.startswith("?"), link
    return parse_qs(link[1:])


@dataclass
class BusyLedger:
    table: Table
    owed_by_li: list[int]  # 李四 pays 张三: 150 rows, oldest first
    owed_by_wang: list[int]  # 王五 pays 赵六: 30 rows, oldest first
    points_li: int  # the points of 李四's rows, all together


def _busy_ledger() -> BusyLedger:
    table = factories.table("duyun", base_stake=STAKE)
    assert not LedgerEntry.objects.filter(club=table.club).exists()
    owner, (zhang, li, wang, zhao) = table.players[0], table.players
    match_id = table.match.pk

    def adjust(payer: User, payee: User, points: int, reason: str) -> int:
        return ledger_adjustment_create(
            club=table.club, actor=owner, match_id=match_id, payer_id=payer.pk,
            payee_id=payee.pk, points=points, reason=reason,
        ).pk

    owed_by_li = [adjust(li, zhang, 1 + i % 3, f"补记{i}") for i in range(150)]
    owed_by_wang = [adjust(wang, zhao, 1, f"补差{i}") for i in range(30)]
    points_li = sum(1 + i % 3 for i in range(150))
    return BusyLedger(table, owed_by_li, owed_by_wang, points_li)


@pytest.fixture(scope="module")
def _kept_busy_ledger(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Keeper]:
    yield from keep(request, django_db_blocker, _busy_ledger)


@pytest.fixture
def busy_ledger(_kept_busy_ledger: Keeper, db: None) -> BusyLedger:
    """A club with 180 ledger rows: the owner's corrections, written by the real service
    (once for the module: :mod:`tests.support.kept`)."""
    return kept_value(_kept_busy_ledger, _busy_ledger,
                      lambda busy: dataclasses.replace(busy, table=fresh_table(busy.table)))


def test_rows_beyond_the_first_page_are_on_page_2_and_the_links_keep_the_filters(
    busy_ledger: BusyLedger,
) -> None:
    table = busy_ledger.table
    li = table.players[1]
    url = f"/ledgers/clubs/{table.club.pk}/"
    client = client_for(table.players[0])

    first = client.get(url, {"member": li.pk, "variant": "duyun"})
    assert first.status_code == 200
    page = first.content.decode()
    assert "共 150 条" in page and "第 1 / 2 页" in page
    newest_first = busy_ledger.owed_by_li[::-1]
    assert row_ids(page) == newest_first[:100]
    shown = links(page)
    assert "上一页" not in shown and "首页" not in shown
    filters = {"member": [str(li.pk)], "variant": ["duyun"]}
    assert query_of(shown["下一页"]) == {**filters, "page": ["2"]}
    assert query_of(shown["末页"]) == {**filters, "page": ["2"]}

    second = client.get(url + shown["下一页"])
    assert second.status_code == 200
    page = second.content.decode()
    assert "共 150 条" in page and "第 2 / 2 页" in page
    assert row_ids(page) == newest_first[100:]
    shown = links(page)
    assert "下一页" not in shown and "末页" not in shown
    # The page number is replaced, never repeated; the filters stay.
    assert query_of(shown["上一页"]) == {**filters, "page": ["1"]}
    assert query_of(shown["首页"]) == {**filters, "page": ["1"]}
    # The CSV export takes the filters, not the page.
    csv_link = re.search(r'href="([^"]*export\.csv[^"]*)"', page)
    assert csv_link is not None
    assert html.unescape(csv_link.group(1)).endswith(f"?member={li.pk}&variant=duyun")
    # Both pages together are every row of the filter, and only those.
    assert not set(row_ids(page)) & set(busy_ledger.owed_by_wang)


def test_a_bad_page_number_still_gives_a_page(busy_ledger: BusyLedger) -> None:
    table = busy_ledger.table
    client = client_for(table.players[0])
    every = (busy_ledger.owed_by_li + busy_ledger.owed_by_wang)[::-1]
    first_page, last_page = every[:100], every[100:]
    # Paginator.get_page: not a number -> the first page; out of range -> the last page.
    for value, number, rows in (
        ("abc", 1, first_page), ("", 1, first_page), ("1.5", 1, first_page),
        ("0", 2, last_page), ("-3", 2, last_page), ("999", 2, last_page),
    ):
        response = client.get(f"/ledgers/clubs/{table.club.pk}/", {"page": value})
        assert response.status_code == 200, value
        page = response.content.decode()
        assert f"第 {number} / 2 页" in page, value
        assert row_ids(page) == rows, value


def test_totals_chart_and_daily_summary_cover_every_row_not_the_page(
    busy_ledger: BusyLedger,
) -> None:
    table = busy_ledger.table
    client = client_for(table.players[0])
    points_li = busy_ledger.points_li
    expected = {
        "张三": (points_li * STAKE, points_li), "李四": (-points_li * STAKE, -points_li),
        "王五": (-30 * STAKE, -30), "赵六": (30 * STAKE, 30),
    }
    moved = (points_li + 30) * STAKE
    for number, shown in ((1, 100), (2, 80)):
        page = client.get(f"/ledgers/clubs/{table.club.pk}/?page={number}").content.decode()
        assert len(row_ids(page)) == shown
        assert "共 180 条" in page
        assert member_totals(page) == expected
        assert daily_rows_and_moved(page) == (180, moved, 180)
        assert page.count("<polyline") == 4

    # With a filter, the totals are those of every filtered row (150, over two pages).
    li = table.players[1]
    page = client.get(
        f"/ledgers/clubs/{table.club.pk}/", {"member": li.pk, "page": 2}
    ).content.decode()
    assert len(row_ids(page)) == 50
    assert member_totals(page)["张三"] == expected["张三"]
    assert member_totals(page)["李四"] == expected["李四"]
    assert daily_rows_and_moved(page) == (150, points_li * STAKE, 150)


def add_matches(club: Club, players: list[User], count: int) -> list[str]:
    """``count`` finished matches of the four players, each in its own room with two hands
    (张三 wins 3 points from each of the others in both) and 张三 大赢家.

    Returns the rooms' codes, oldest match first.
    """
    settings = table_settings("duyun", base_stake=STAKE)
    codes = []
    for _ in range(count):
        room = Room.objects.create(
            club=club, code=uuid.uuid4().hex[:8], variant="duyun", settings=settings,
            created_by=players[0],
        )
        match = Match.objects.create(
            room=room, club=club, variant="duyun", settings=settings, hands_total=2,
            hands_played=2, status=Match.Status.FINISHED, totals=[18, -6, -6, -6],
        )
        now = timezone.now()
        for seat, user in enumerate(players):
            MatchPlayer.objects.create(match=match, seat=seat, user=user)
        for number in (1, 2):
            hand = Hand.objects.create(
                match=match, number=number, dealer=0, seed="s", salt="t", commitment="c",
                ended_at=now,
            )
            for seat, user in enumerate(players):
                points = 9 if seat == 0 else -3
                HandResult.objects.create(
                    club=club, room=room, match=match, hand=hand, variant="duyun", user=user,
                    seat=seat, points=points, amount=points * STAKE, won=seat == 0,
                    occurred_at=now,
                )
        for seat, user in enumerate(players):
            points = 18 if seat == 0 else -6
            MatchResult.objects.create(
                club=club, room=room, match=match, variant="duyun", user=user, seat=seat,
                points=points, amount=points * STAKE, hands_played=2, big_winner=seat == 0,
                occurred_at=now,
            )
        codes.append(room.code)
    return codes


def rooms_shown(page: str) -> list[str]:
    return re.findall(r"· 房间 (\w+)</strong>", page)


def test_my_results_pages_through_every_match_with_its_hands(db: None) -> None:
    club, players = factories.players_club()
    codes = add_matches(club, players, 25)
    client = client_for(players[0])

    page = client.get("/ledgers/mine/").content.decode()
    assert "第 1 / 2 页" in page and "共 25 场对局" in page
    assert rooms_shown(page) == codes[::-1][:20]
    assert page.count("我的得分 18分（金额 36）") == 20 and page.count(">大赢家<") == 20
    assert page.count(">回放<") == 40
    shown = links(page)
    assert query_of(shown["下一页"]) == {"page": ["2"]}

    page = client.get("/ledgers/mine/" + shown["下一页"]).content.decode()
    assert "第 2 / 2 页" in page
    assert rooms_shown(page) == codes[::-1][20:]
    oldest = Match.objects.get(room__code=codes[0])
    for hand in Hand.objects.filter(match=oldest):
        won = '</a> <span class="badge ready">胡</span>'
        assert f'href="/ledgers/hands/{hand.pk}/">第{hand.number}局{won}' in page
        assert f'href="/ledgers/hands/{hand.pk}/replay/">回放</a>' in page
    assert query_of(links(page)["上一页"]) == {"page": ["1"]}

    # Another player sees the same matches from their own seat.
    page = client_for(players[1]).get("/ledgers/mine/", {"page": "x"}).content.decode()
    assert "第 1 / 2 页" in page and page.count("我的得分 -6分（金额 -12）") == 20
    assert ">大赢家<" not in page

    for value in ("0", "99"):
        response = client.get("/ledgers/mine/", {"page": value})
        assert response.status_code == 200
        assert rooms_shown(response.content.decode()) == codes[::-1][20:]


def test_my_results_makes_as_many_queries_for_25_matches_as_for_5(db: None) -> None:
    club, players = factories.players_club()
    client = client_for(players[0])

    def page_queries() -> tuple[int, str]:
        client.get("/ledgers/mine/")  # the session, once
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/ledgers/mine/")
        assert response.status_code == 200
        return len(queries), response.content.decode()

    add_matches(club, players, 5)
    few, page = page_queries()
    assert len(rooms_shown(page)) == 5 and "第 1 /" not in page
    add_matches(club, players, 20)
    many, page = page_queries()
    assert len(rooms_shown(page)) == 20 and "第 1 / 2 页" in page
    assert many == few

    # The selector behind the API: five queries, however many matches.
    with CaptureQueriesContext(connection) as queries:
        rows = selectors.my_match_list(user=players[0])
    assert len(rows) == 25 and len(queries) == 5
    assert all(len(row["hands"]) == 2 and row["result"].big_winner for row in rows)
