"""Computer seats in the browser (issue 45): the room states the money rule before anyone
fills a seat, 电脑补位 seats two computers with distinct names (their level beside them),
and the table's settlement and standings name every seat apart and say 不记账.

The lobby is the real page (``live_server``); the table socket is the stand-in
:class:`FakeTable` with the names and flags the server gives such a match.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from majiang import Round, get_variant

from .conftest import DESKTOP, PHONE, SCREENSHOTS, assert_fits
from .fake_table import FakeTable

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = "654321"
NOTICE = "有电脑参加的对局照常结算，但不记入亲友圈账本（不记账）"
COMPUTERS = ["电脑·小梅（标准）", "电脑·阿竹（标准）"]
WHOLE_NAME = """s => {
  const e = document.querySelector(`#final-hands li[data-seat='${s}'] .name`);
  return e.scrollHeight <= e.clientHeight + 3 && e.scrollWidth <= e.clientWidth + 1;
}"""


@pytest.fixture
def people() -> list[Any]:
    """A club whose owner 张三 and member 李四 sit at seats 0 and 1 of a room that allows
    电脑补位."""
    from apps.accounts.models import User
    from apps.clubs.models import Club, Membership, Room, RoomSeat
    from tests.support.factories import table_settings

    users = [User.objects.create_user(f"p{i}", password="pw-12345678", display_name=name)
             for i, name in enumerate(["张三", "李四"])]
    club = Club.objects.create(name="周末圈", invite_code="WEEKEND1")
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="owner" if i == 0 else "member")
    room = Room.objects.create(club=club, code=CODE, variant="duyun",
                               settings=table_settings("duyun"), created_by=users[0],
                               allow_computers=True)
    for i, user in enumerate(users):
        RoomSeat.objects.create(room=room, seat=i, user=user)
    return users


def _page(browser: Any, live_server: Any, user: Any, size: dict[str, int]) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=size, locale="zh-CN")
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    return context.new_page()


def test_the_room_states_the_rule_then_two_computers_settle_with_distinct_names(
    browser: Any, live_server: Any, people: list[Any]
) -> None:
    from apps.clubs.models import RoomSeat

    lobby = _page(browser, live_server, people[0], PHONE)
    lobby.goto(f"{live_server.url}/rooms/{CODE}/")
    # Before any seat is filled: the rule, where the 电脑补位 button is.
    assert NOTICE in lobby.inner_text("#computers-notice")
    assert lobby.is_visible("#my-actions button:has-text('电脑补位')")
    box = lobby.locator("#computers-notice").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    lobby.screenshot(path=str(SCREENSHOTS / "computers-lobby-phone.png"), full_page=True)
    with lobby.expect_response(f"**/rooms/{CODE}/computers/") as answer:
        lobby.click("#my-actions button:has-text('电脑补位')")
    assert answer.value.ok
    lobby.reload()
    names = lobby.eval_on_selector_all("#seats .seat .name", "els => els.map(e => e.innerText)")
    # Each name after its avatar's first character: two computers, two names.
    assert [n.split(None, 1)[1].strip() for n in names] == ["张三", "李四", *COMPUTERS]
    assert sorted(RoomSeat.objects.filter(room__code=CODE).values_list("seat", flat=True)) == [
        0, 1, 2, 3]
    lobby.screenshot(path=str(SCREENSHOTS / "computers-lobby-filled-phone.png"), full_page=True)

    # The match at the table: the hand ends, then the match.
    variant = get_variant("duyun")
    rnd, _ = Round.deal(variant, variant.schema.validate({}), dealer=0, streak=1, seed="s6")
    table = FakeTable(rnd, names=["张三", "李四", *COMPUTERS], computers=frozenset({2, 3}),
                      booked=False)
    table.hands_total = 1
    pages = {}
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page = _page(browser, live_server, people[0], size)
        table.attach(page, 0)
        page.goto(f"{live_server.url}/rooms/{CODE}/play/")
        page.wait_for_selector("#my-hand .tile")
        pages[label] = page
    table.play_until(lambda r: False)
    settlement = table.rnd.settlement().to_json()
    for label, page in pages.items():
        page.wait_for_selector("#settlement .summary", timeout=15_000)
        text = page.inner_text("#settlement")
        assert "不记账（照常结算，但不记入亲友圈账本）" in page.inner_text(
            "#settlement .summary .unbooked")
        for line in settlement["lines"]:  # who pays whom, each name its own
            payer, payee = table.names[line["payer"]], table.names[line["payee"]]
            assert f"{payer} 付 {payee} " in text
        for name in COMPUTERS:
            assert name in text
        final = page.eval_on_selector_all(
            "#final-hands li .name", "els => els.map(e => e.textContent.replace(/\u200b/g, ''))")
        assert final == table.names
        for seat in (2, 3):  # the whole name is in view, not cut to 电脑·…
            assert page.evaluate(WHOLE_NAME, seat)
        page.screenshot(path=str(SCREENSHOTS / f"computers-settlement-{label}.png"))
    table.status = "finished"
    table.broadcast()
    for label, page in pages.items():
        page.click("#settlement .act-standings")
        page.wait_for_selector("#standings")
        shown = page.eval_on_selector_all("#standings li .name",
                                          "els => els.map(e => e.textContent)")
        assert sorted(shown) == sorted(["张三", "李四", *COMPUTERS])  # every name distinct
        assert "不记账" in page.inner_text("#standings .unbooked")
        assert_fits(page, "#standings")
        page.screenshot(path=str(SCREENSHOTS / f"computers-standings-{label}.png"))
