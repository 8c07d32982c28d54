"""The member's check of the club ledger's chain (``static/ledgers/chain.js``) in a real
browser: a member's browser keeps the chain head each ledger page shows; after the club's
ledger is rolled back to an older backup (a 50-point 调账 gone) the member's next ledger
page warns, in words, what went missing; after new rows are written over the rolled-back
past the warning says the past was rewritten. A daphne subprocess serves the test database.
"""

from __future__ import annotations

import random
from importlib import import_module
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from playwright.sync_api import expect

from apps.ledgers.models import CHAINED, LedgerHead
from tests.browser.conftest import wait_until
from tests.browser.test_records import page_as
from tests.ledgers.test_integrity import adjust
from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play_hand, random_policy

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]
triggers = import_module("apps.ledgers.migrations.0002_append_only_triggers")


def restore_backup(table: Table, head: dict[str, Any]) -> None:
    """What restoring an older backup does to the club's chain: the rows after the
    backup's head gone, the head as it was (validly signed back then). The triggers in the
    way are dropped and put back."""
    with connection.cursor() as cursor:
        for model in CHAINED:
            name = model._meta.db_table
            if connection.vendor == "sqlite":
                create, drop = triggers._sqlite(name, "DELETE")
            else:
                create, drop = triggers._postgres(name)
            cursor.execute(drop)
            cursor.execute(f"DELETE FROM {name} WHERE club_id = %s AND seq > %s",
                           [table.club.pk, head["seq"]])
            if connection.vendor == "postgresql" or name != "ledgers_ledgeridentity":
                cursor.execute(create)
        cursor.execute(
            "UPDATE ledgers_ledgerhead SET seq = %s, last = %s, signature = %s "
            "WHERE club_id = %s", [head["seq"], head["last"], head["signature"], table.club.pk],
        )


def kept(club_id: int) -> str:
    """The row count of the head the page's browser kept, as a page expression."""
    return f"(JSON.parse(localStorage.getItem('ledger-chain:{club_id}')) || {{}}).seq"


def kept_seq(page: Any, club_id: int) -> int:
    wait_until(page, kept(club_id))
    return int(page.evaluate(kept(club_id)))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_member_is_warned_of_a_rolled_back_ledger(
    browser: Any, daphne_url: str, size: str
) -> None:
    with mock.patch("apps.matches.frames.send_updates"):
        table = factories.table("zigong")
        play_hand(table.match, random_policy(random.Random(3)))
    club = table.club.pk
    backup = LedgerHead.objects.filter(club=club).values("seq", "last", "signature")[0]
    member = page_as(browser, table.players[2], daphne_url, size)
    owner = page_as(browser, table.players[0], daphne_url, size)
    warning = member.locator("#ledger-chain")

    member.goto(f"{daphne_url}/ledgers/clubs/{club}/")
    assert kept_seq(member, club) == backup["seq"]
    adjust(table, points=50)
    seen = LedgerHead.objects.get(club=club).seq
    for page, path in ((member, ""), (owner, "checkout/")):
        page.goto(f"{daphne_url}/ledgers/clubs/{club}/{path}")
        wait_until(page, f"{kept(club)} == {seen}")
        expect(page.locator("#ledger-chain")).to_be_hidden()

    restore_backup(table, backup)
    member.goto(f"{daphne_url}/ledgers/clubs/{club}/")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("账本被回退了：本浏览器 ")
    expect(warning).to_contain_text(
        f"看到的账本有 {seen} 条记录，现在只有 {backup['seq']} 条，"
        f"第 {seen} 条（输赢、调账或结账记录）不见了。"
    )
    expect(warning).to_contain_text(f"核对口令：{club}:{seen}:")
    assert member.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    member.screenshot(path=f"/tmp/trust48-rollback-{size}.png", full_page=True)
    assert kept_seq(member, club) == seen  # the evidence stays
    owner.goto(f"{daphne_url}/ledgers/clubs/{club}/checkout/")  # 结账 checks it too
    expect(owner.locator("#ledger-chain")).to_contain_text(f"现在只有 {backup['seq']} 条")
    owner.screenshot(path=f"/tmp/trust48-checkout-{size}.png", full_page=True)

    while LedgerHead.objects.get(club=club).seq < seen:
        adjust(table, points=1)  # the club plays on over the rolled-back past
    member.goto(f"{daphne_url}/ledgers/clubs/{club}/matches/")
    expect(warning).to_contain_text("账本的历史被改写了：本浏览器")
    expect(warning).to_contain_text(f"看到的第 {seen} 条记录，现在已和当时不同")
    member.screenshot(path=f"/tmp/trust48-rewritten-{size}.png", full_page=True)
