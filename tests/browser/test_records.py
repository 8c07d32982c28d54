"""战绩 and the club ledger in a real browser, on a phone (390×844) and a desktop
(1440×900): the owner reads a match table, makes an adjustment by picking names and
reads and settles a 结账; a member reads their 战绩, statistics and a hand's tiles.

Two matches are played into the test database through the matches app's services by
seats that try to win (tests/ledgers/winning.py); a daphne subprocess serves it; Debian's
Chromium opens the pages. Screenshots go to docs/screenshots/records-*.png (README).
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.matches.models import Hand, Match
from majiang.record import replay
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.support import factories
from tests.support.play import play, winning_policy

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]
SIZES = {"phone": PHONE, "desktop": DESKTOP}
RAW = re.compile(r"(?<![0-9A-Za-z])[1-9][msp](?![0-9A-Za-z])|\b[DZ]\d+a?\b|duyun|zigong")


def page_as(browser: Any, user: User, base: str, size: str) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=SIZES[size], locale="zh-CN")
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "url": base,
    }])
    return context.new_page()


def shot(page: Any, name: str, size: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"records-{name}-{size}.png"), full_page=True)


def fits(page: Any) -> None:
    """Nothing sticks out sideways, and no raw code is shown outside 规则出处."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    text = page.evaluate(
        """() => { const m = document.querySelector('main').cloneNode(true);
                   m.querySelectorAll('details.rulings').forEach((d) => d.remove());
                   return m.innerText; }"""
    )
    assert not RAW.search(text), RAW.search(text)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_an_owner_and_a_member_read_their_records(
    browser: Any, daphne_url: str, size: str
) -> None:
    with mock.patch("apps.matches.frames.send_updates"):
        club, players = factories.players_club()
        for variant, seed in (("duyun", 1), ("zigong", 2)):
            match = Match.objects.get(room=factories.started_room(club, players, variant))
            play(match, winning_policy(random.Random(seed)))
    owner = page_as(browser, players[0], daphne_url, size)

    owner.goto(f"{daphne_url}/ledgers/clubs/{club.pk}/")
    fits(owner)
    shot(owner, "club", size)
    owner.locator(".match-list a").last.click()
    table = owner.locator("table.match-table")
    table.wait_for()
    assert table.locator("thead th").all_inner_texts() == ["局", "张三", "李四", "王五", "赵六"]
    assert table.locator("tbody tr").count() == Match.objects.filter(club=club).order_by(
        "pk").first().hands_played
    fits(owner)
    shot(owner, "match-table", size)

    owner.get_by_role("link", name="为本场调账").click()
    owner.get_by_label("付方").select_option(label="李四")
    owner.get_by_label("收方").select_option(label="张三")
    owner.get_by_label("分数").fill("5")
    owner.get_by_label("调账原因").fill("上局漏记一个杠")
    owner.get_by_role("button", name="预览").click()
    expect(owner.locator("#adjust-preview")).to_contain_text("李四 付 张三 5分")
    fits(owner)
    shot(owner, "adjust-preview", size)
    owner.get_by_role("button", name="确认记录调账").click()
    expect(owner.locator(".messages")).to_contain_text("调账已记录")
    expect(owner.locator("main")).to_contain_text("李四 付 张三 5分（上局漏记一个杠）")

    owner.goto(f"{daphne_url}/ledgers/clubs/{club.pk}/")
    owner.get_by_role("link", name="今日结账：谁付给谁").click()
    owner.locator("ul.payments li").first.wait_for()
    payments = owner.locator("ul.payments li").all_inner_texts()
    assert payments and all(re.fullmatch(r"\S+ → \S+\s*\d+", p.strip()) for p in payments)
    assert len(payments) <= 3
    fits(owner)
    shot(owner, "checkout", size)
    owner.get_by_role("button", name="已付清，标记结清").click()
    expect(owner.locator("#checkout-settled")).to_be_visible()
    expect(owner.locator(".messages")).to_contain_text("已标记结清")

    member = page_as(browser, players[1], daphne_url, size)
    member.goto(f"{daphne_url}/ledgers/mine/")
    member.locator("#my-stats").wait_for()
    stats = dict(zip(
        member.locator("#my-stats dt").all_inner_texts(),
        member.locator("#my-stats dd").all_inner_texts(), strict=True,
    ))
    assert stats["场次"] == "2" and stats["局数"] == str(
        sum(m.hands_played for m in Match.objects.filter(club=club))
    )
    assert member.locator(".chart polyline").count() == 1
    fits(member)
    shot(member, "mine", size)
    member.locator("details.match-card summary").first.click()
    expect(member.locator("details.match-card[open] table tbody tr").first).to_be_visible()
    shot(member, "mine-open", size)

    won = next(
        h for h in Hand.objects.filter(match__club=club).order_by("pk") if replay(h.record).wins
    )
    member.goto(f"{daphne_url}/ledgers/hands/{won.pk}/")
    expect(member.locator(".final-hands .tile.winning svg").first).to_be_visible()
    assert member.locator(".final-seat").count() == 4
    assert member.locator(".final-hands .tile svg").count() >= 4 * 13
    assert member.locator(".final-hands .tile.winning svg").count() >= 1
    fits(member)
    shot(member, "hand", size)
