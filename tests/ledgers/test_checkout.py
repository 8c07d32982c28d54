"""结账: every member's balance over a period, who pays whom, and the owner's mark of paid.

The ledgers here are adjustments (each an owner's signed row, like any settlement line)
written at chosen times into a club whose match has started; the played-match tests of
the other files cover settlement rows, which 结账 sums the same way.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.accounts.models import User
from apps.ledgers import selectors, services
from apps.ledgers.models import AppendOnlyError, Checkout
from apps.ledgers.payments import settle_payments
from tests.support import factories
from tests.support.factories import Table

from .test_verify import drop_update_trigger, verify

pytestmark = pytest.mark.django_db

transfers = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(1, 500)), max_size=40
)


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def balances_of(moves: list[tuple[int, int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for payer, payee, amount in moves:
        if payer != payee:
            out[payer] = out.get(payer, 0) - amount
            out[payee] = out.get(payee, 0) + amount
    return out


@given(transfers)
def test_the_payments_settle_every_balance_to_zero(moves: list[tuple[int, int, int]]) -> None:
    balances = balances_of(moves)
    payments = settle_payments(balances)
    after = dict(balances)
    for p in payments:
        assert p.amount > 0 and balances[p.payer] < 0 < balances[p.payee]
        after[p.payer] += p.amount
        after[p.payee] -= p.amount
    assert set(after.values()) <= {0}
    assert len(payments) <= max(0, sum(1 for v in balances.values() if v) - 1)


def fewest_by_search(values: list[int]) -> int:
    """The fewest payments settling ``values``, by trying every payment that zeroes the
    first unsettled member (one of them is in some shortest settlement)."""
    values = [v for v in values if v]
    if not values:
        return 0
    first, rest = values[0], values[1:]
    return 1 + min(
        fewest_by_search([*rest[:i], v + first, *rest[i + 1:]])
        for i, v in enumerate(rest) if v * first < 0
    )


# Small amounts over few members, so that zero-sum subgroups (the case greedy misses) are common.
small_evenings = st.lists(st.integers(-6, 6), min_size=1, max_size=7).map(
    lambda values: [*values, -sum(values)]
)


@settings(max_examples=400, deadline=None)
@given(small_evenings)
def test_the_payments_are_the_fewest_possible(values: list[int]) -> None:
    balances = dict(enumerate(values))
    payments = settle_payments(balances)
    after = dict(balances)
    for p in payments:
        after[p.payer] += p.amount
        after[p.payee] -= p.amount
    assert set(after.values()) == {0}
    assert len(payments) == fewest_by_search(values)


def test_greedy_pays_one_more_than_needed_here_and_the_search_does_not() -> None:
    # Greedy starts 戊 → 甲 5 and needs 4 payments; {甲, 丁} and {乙, 丙, 戊} need 1 + 2.
    payments = settle_payments({"甲": 5, "乙": 4, "丙": 3, "丁": -5, "戊": -7})
    assert len(payments) == 3
    assert ("丁", "甲", 5) in [(p.payer, p.payee, p.amount) for p in payments]


def test_sixteen_members_get_the_fewest_and_more_fall_back_to_greedy() -> None:
    # Eight pairs that cancel: 8 payments, not 15. With 18 members the search is not
    # run; greedy still settles everyone exactly, in at most 17 payments.
    pairs = {f"p{i}": (i // 2 + 1) * (1 if i % 2 else -1) for i in range(16)}
    assert len(settle_payments(pairs)) == 8
    many = {**pairs, "x": 0, "y": 7, "z": -7}
    payments = settle_payments(many)
    after = dict(many)
    for p in payments:
        after[p.payer] += p.amount
        after[p.payee] -= p.amount
    assert set(after.values()) == {0} and len(payments) <= 17


def test_the_largest_debtor_pays_the_largest_creditor_first() -> None:
    payments = settle_payments({"张三": 31, "李四": 9, "王五": -35, "赵六": -5})
    assert [(p.payer, p.payee, p.amount) for p in payments] == [
        ("王五", "张三", 31), ("赵六", "李四", 5), ("王五", "李四", 4),
    ]
    with pytest.raises(ValueError):
        settle_payments({"张三": 1})


def adjust(table: Table, payer: int, payee: int, points: int, when: datetime | None = None) -> None:
    with mock.patch("django.utils.timezone.now", return_value=when or timezone.now()):
        services.ledger_adjustment_create(
            club=table.club, actor=table.players[0], match_id=table.match.pk,
            payer_id=table.players[payer].pk, payee_id=table.players[payee].pk,
            points=points, reason="测试",
        )


@pytest.fixture
def table(db: None) -> Table:
    return factories.table("duyun")


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(moves=st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 60), st.integers(0, 3)),
    max_size=12,
))
def test_a_checkout_of_any_ledger_settles_every_member_to_zero(
    table: Table, moves: list[tuple[int, int, int, int]]
) -> None:
    now = timezone.now()
    stake = selectors.base_stake(table.match)
    access = selectors.ledger_access(club_id=table.club.pk, user=table.players[0])
    with transaction.atomic():
        for payer, payee, points, days_ago in moves:
            if payer != payee:
                adjust(table, payer, payee, points, now - timedelta(days=days_ago))
        today = timezone.localdate()
        view = selectors.checkout_compute(access=access, start=today - timedelta(days=1), end=today)
        expected = balances_of([
            (table.players[a].pk, table.players[b].pk, p * stake) for a, b, p, _ in moves
        ])
        after = {r.user_id: r.total for r in view.rows}
        assert {k: v for k, v in after.items() if v} == {k: v for k, v in expected.items() if v}
        for p in view.payments:
            after[p.payer_id] += p.amount
            after[p.payee_id] -= p.amount
        assert set(after.values()) <= {0}
        transaction.set_rollback(True)


def checkout_page(client: Client, table: Table, **query: str) -> str:
    response = client.get(f"/ledgers/clubs/{table.club.pk}/checkout/", query)
    assert response.status_code == 200
    return response.content.decode()


def payments_shown(page: str) -> list[str]:
    items = re.findall(r'<ul class="list payments">(.*?)</ul>', page, re.S)
    if not items:
        return []
    return [
        " ".join(re.sub(r"<[^>]+>", " ", li).split())
        for li in re.findall(r"<li>(.*?)</li>", items[0], re.S)
    ]


def mark_form(page: str) -> dict[str, str]:
    form = re.search(r'<form [^>]*id="checkout-mark">(.*?)</form>', page, re.S)
    assert form is not None, "the owner is offered to mark the 结账 paid"
    return dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(1)))


def test_the_owner_reads_who_pays_whom_marks_it_paid_and_the_next_starts_there(
    table: Table,
) -> None:
    stake = selectors.base_stake(table.match)
    adjust(table, 2, 0, 31)  # 王五 → 张三
    adjust(table, 3, 1, 9)  # 赵六 → 李四
    owner = client_for(table.players[0])
    page = checkout_page(owner, table)
    assert payments_shown(page) == [f"王五 → 张三 {31 * stake}", f"赵六 → 李四 {9 * stake}"]
    # The amounts are points × 底注, and the page says so; 2 payments is the fewest.
    unit = re.search(r'<p [^>]*id="checkout-unit">(.*?)</p>', page, re.S)
    assert unit is not None and "分数 × 底注" in re.sub(r"<[^>]+>", "", unit.group(1))
    assert "共 2 笔，这是最少的笔数" in page

    form = mark_form(page)
    today = timezone.localdate().isoformat()
    assert (form["start"], form["end"]) == (today, today)
    response = owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", form, follow=True)
    assert "已标记结清" in response.content.decode()
    owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", form)  # a double submit
    checkout = Checkout.objects.get(club=table.club)
    assert checkout.signature_valid() and checkout.created_by == table.players[0]
    assert checkout.payments == [
        {"payer": table.players[2].pk, "payee": table.players[0].pk, "amount": 31 * stake},
        {"payer": table.players[3].pk, "payee": table.players[1].pk, "amount": 9 * stake},
    ]

    page = checkout_page(owner, table)
    assert 'id="checkout-settled"' in page and payments_shown(page) == []
    assert "王五 → 张三" in page  # in the history of 结账 records
    adjust(table, 1, 3, 4)
    assert payments_shown(checkout_page(owner, table)) == [f"李四 → 赵六 {4 * stake}"]


def test_an_unsettled_day_carries_into_the_next_checkout_until_it_is_marked(
    table: Table,
) -> None:
    stake = selectors.base_stake(table.match)
    yesterday = timezone.now() - timedelta(days=1)
    day_before = timezone.localdate() - timedelta(days=1)
    adjust(table, 2, 0, 10, yesterday)
    adjust(table, 0, 1, 3)
    owner = client_for(table.players[0])
    access = selectors.ledger_access(club_id=table.club.pk, user=table.players[0])
    today = timezone.localdate()
    view = selectors.checkout_compute(access=access, start=today, end=today)
    start = {r.name: (r.carried, r.period) for r in view.rows}
    assert start == {"张三": (10 * stake, -3 * stake), "王五": (-10 * stake, 0),
                     "李四": (0, 3 * stake)}
    assert "此前未结" in checkout_page(owner, table)

    page = checkout_page(owner, table, start=day_before.isoformat(), end=day_before.isoformat())
    assert payments_shown(page) == [f"王五 → 张三 {10 * stake}"]
    owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", mark_form(page))
    assert Checkout.objects.filter(club=table.club).count() == 1

    view = selectors.checkout_compute(access=access, start=today, end=today)
    assert {r.name: (r.carried, r.period) for r in view.rows} == {
        "张三": (0, -3 * stake), "李四": (0, 3 * stake),
    }
    assert "此前未结" not in checkout_page(owner, table)


def test_a_checkout_that_changed_since_it_was_shown_is_not_marked(table: Table) -> None:
    adjust(table, 2, 0, 5)
    owner = client_for(table.players[0])
    form = mark_form(checkout_page(owner, table))
    adjust(table, 3, 0, 1)
    response = owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", form, follow=True)
    assert "结账后又有新的输赢，请刷新后再确认" in response.content.decode()
    assert not Checkout.objects.exists()
    bad: dict[str, Any] = {**form, "end": "2020-01-01"}
    response = owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", bad, follow=True)
    assert "截止日期不能早于起始日期" in response.content.decode()
    assert not Checkout.objects.exists()


def test_who_may_see_and_mark_a_checkout(table: Table) -> None:
    adjust(table, 2, 0, 5)
    url = f"/ledgers/clubs/{table.club.pk}/checkout/"
    admin = client_for(table.admin)
    page = checkout_page(admin, table)
    assert payments_shown(page) and 'id="checkout-mark"' not in page
    form = mark_form(checkout_page(client_for(table.players[0]), table))
    assert admin.post(url, form).status_code == 403
    assert client_for(table.member).get(url).status_code == 404
    assert client_for(table.outsider).get(url).status_code == 404
    assert client_for(table.member).post(url, form).status_code == 403
    assert not Checkout.objects.exists()


def test_a_bad_period_gives_a_chinese_error_not_a_checkout(table: Table) -> None:
    adjust(table, 2, 0, 5)
    owner = client_for(table.players[0])
    for query, message in (
        ({"start": "昨天", "end": "2026-01-01"}, "起始日期格式不对"),
        ({"start": "2026-02-01", "end": "2026-01-01"}, "截止日期不能早于起始日期"),
        ({"start": "2020-01-01", "end": "2026-01-01"}, "结账时段最长一年"),
    ):
        page = checkout_page(owner, table, **query)
        assert message in page and payments_shown(page) == []


def test_a_checkout_row_is_append_only_and_signed(table: Table) -> None:
    adjust(table, 2, 0, 5)
    owner = client_for(table.players[0])
    owner.post(f"/ledgers/clubs/{table.club.pk}/checkout/", mark_form(checkout_page(owner, table)))
    checkout = Checkout.objects.get(club=table.club)
    with pytest.raises(AppendOnlyError):
        Checkout.objects.filter(pk=checkout.pk).update(payments=[])
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE ledgers_checkout SET payments = '[]' WHERE id = %s", [checkout.pk])
    ok, report = verify()
    assert ok, report
    drop_update_trigger("ledgers_checkout")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ledgers_checkout SET payments = '[]' WHERE id = %s", [checkout.pk])
    ok, report = verify()
    assert not ok and f"checkout #{checkout.pk}: 签名不符" in report
