"""The hand page: the four final hands as tiles with the winning tile marked, each seat's
subtotals by kind, every line in words, and the rulings only inside 规则出处."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.kinds import SUBTOTAL_ROWS
from apps.ledgers.words import tiles_in_words
from apps.matches.models import Hand
from majiang.record import replay
from majiang.settlement import LineKind, line_kind
from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play, winning_policy

pytestmark = pytest.mark.django_db
CODES = re.compile(r"(?<![0-9A-Za-z])[1-9][msp](?![0-9A-Za-z])|\b[DZ]\d+a?\b|duyun|zigong|\^")


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def visible_text(page: str) -> str:
    """What a reader sees outside 规则出处: the page's text without tags or attributes."""
    main = page[page.index("<main>"):page.index("</main>")]
    main = re.sub(r'<details class="rulings">.*?</details>', "", main, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", main).split())


def won_table(variant: str) -> Table:
    """A table whose match has at least one won hand (the deals are random: a match with
    no win at all is rare, and then another is played)."""
    for attempt in range(5):
        table = factories.table(variant)
        play(table.match, winning_policy(random.Random(attempt)))
        if any(replay(h.record).wins for h in Hand.objects.filter(match=table.match)):
            return table
    raise AssertionError("five matches without a single win")


@pytest.fixture
def won(db: None) -> Table:
    return won_table("duyun")


def test_a_won_hand_shows_the_final_tiles_subtotals_and_lines_in_words(won: Table) -> None:
    client = client_for(won.players[0])
    hands = [h for h in Hand.objects.filter(match=won.match) if replay(h.record).wins]
    for hand in hands:
        page = client.get(f"/ledgers/hands/{hand.pk}/").content.decode()
        seat_re = r'<div class="final-seat[^"]*" data-seat="\d">(.*?)</div>\s*</div>'
        seats = re.findall(seat_re, page, re.S)
        assert len(seats) == 4
        for win in replay(hand.record).wins:
            seat = seats[win.seat]
            marked = re.findall(r'class="tile winning" data-tile="([1-9][msp])"', seat)
            assert marked == [win.tile.code]
            how = "自摸" if win.source.value == "self_draw" else "点炮（" + str(
                won.players[win.from_seat or 0]
            ) + "）"
            assert f"胡 · {how}" in seat
        text = visible_text(page)
        assert not CODES.search(text), CODES.search(text)
        foot = re.search(r"<tfoot>(.*?)</tfoot>", page, re.S)
        assert foot is not None
        totals = [int(v) for v in re.findall(r"<td[^>]*>(-?\d+)</td>", foot.group(1))]
        assert totals == hand.settlement["totals"]
        for line in hand.settlement["lines"]:
            words = f"{won.players[line['payer']]} 付 {won.players[line['payee']]} "
            words += line["category"].removeprefix("牌型:") + f" {line['points']}分"
            assert words in text
        rulings = re.search(r'<details class="rulings">(.*?)</details>', page, re.S)
        assert rulings is not None and re.search(r"规则 D\d+", rulings.group(1))
        assert f"/ledgers/hands/{hand.pk}/replay/" in page
        assert f"/ledgers/clubs/{won.club.pk}/matches/{won.match.pk}/" in page


def test_a_zigong_hand_names_its_tiles_and_fan_in_words(db: None) -> None:
    table = won_table("zigong")
    client = client_for(table.players[1])
    for hand in Hand.objects.filter(match=table.match):
        text = visible_text(client.get(f"/ledgers/hands/{hand.pk}/").content.decode())
        assert not CODES.search(text), CODES.search(text)
        assert "自贡麻将" in text


def test_subtotal_kinds_come_from_the_line_or_from_its_legacy_category() -> None:
    assert line_kind({"category": "幺鸡", "kind": "baopai"}) == "baopai"
    assert line_kind({"category": "幺鸡"}) == "chicken"
    assert line_kind({"category": "牌型:清七对"}) == "pattern"
    assert line_kind({"category": "转弯豆"}) == "dou"
    assert line_kind({"category": "补杠"}) == "kong"
    assert line_kind({"category": "抢杠转移"}) == "rob_transfer"
    assert line_kind({"category": "退税"}) == "tax_refund"
    assert line_kind({"category": "反查叫"}) == "chajiao"
    assert line_kind({"category": "自摸"}) == "win"
    # Every line the rules write has its row.
    assert set(LineKind) <= {kind for _, kinds in SUBTOTAL_ROWS for kind in kinds}


def _subtotal_rows(page: str) -> tuple[dict[str, list[int]], list[int]]:
    """The hand page's 各家小计: each row's cells by its name, and the 合计 row."""
    table = re.search(r'<table class="ledger subtotals">(.*?)</table>', page, re.S)
    assert table is not None
    body, foot = re.search(r"<tbody>(.*?)</tbody>.*?<tfoot>(.*?)</tfoot>", table.group(1),
                           re.S).groups()
    rows = {
        name: [int(v) for v in re.findall(r"<td[^>]*>(-?\d+)</td>", cells)]
        for name, cells in re.findall(r"<tr><td>([^<]+)</td>(.*?)</tr>", body, re.S)
    }
    return rows, [int(v) for v in re.findall(r"<td[^>]*>(-?\d+)</td>", foot)]


@pytest.mark.parametrize("variant", ["duyun", "zigong"])
def test_the_subtotal_rows_add_up_to_each_seats_total(variant: str) -> None:
    """Every settlement line lands in a row (自摸, 连庄, 自摸加底 … included), so each seat's
    rows add up to its 合计, which is the hand's settlement."""
    table = won_table(variant)
    client = client_for(table.players[0])
    for hand in Hand.objects.filter(match=table.match):
        rows, totals = _subtotal_rows(client.get(f"/ledgers/hands/{hand.pk}/").content.decode())
        assert totals == hand.settlement["totals"]
        if any(hand.settlement["totals"]):
            assert [sum(column) for column in zip(*rows.values(), strict=True)] == totals, rows


def test_notes_name_their_tiles() -> None:
    assert tiles_in_words("萝卜 2s 8p: 2张") == "萝卜 二条 八筒: 2张"
    assert tiles_in_words("过胡后1s可胡清一色") == "过胡后幺鸡可胡清一色"
    assert tiles_in_words("清一色+2 根+1 = 3番, 2^3=8") == "清一色+2 根+1 = 3番，计8分"
