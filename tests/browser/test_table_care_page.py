"""At the table and after the hand (issue 32), by clicking, on a phone and a desktop:
taking back control from 托管, the settlement's subtotals and 上局结算, quick phrases,
the phone layout, and 再来一场 with the real server's pages."""

from __future__ import annotations

import json
import re
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from majiang import get_variant
from tests.support.start import match_start_dealt

from . import test_table_page
from .conftest import DESKTOP, PHONE, SCREENSHOTS, assert_no_sideways_scroll, wait_until
from .fake_table import NAMES, FakeTable
from .test_table_page import baogang_case3_round, duyun_round, open_page, zigong_room

room = test_table_page.room  # the four-seat 都匀 room fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": PHONE, "desktop": DESKTOP}
GROUPS = {
    "pattern": ("pattern", "win"), "chicken": ("chicken",), "dou": ("dou",),
    "kong": ("kong", "call_transfer", "tax_refund", "rob_transfer"), "baopai": ("baopai",),
    "chajiao": ("chajiao",),
}


def expected_subtotals(settlement: dict[str, Any], seats: int) -> dict[tuple[int, str], int]:
    """Net points per (seat, group) from the lines' kinds, as the rules package wrote them."""
    out = {(seat, g): 0 for seat in range(seats) for g in GROUPS}
    for line in settlement["lines"]:
        group = next(g for g, kinds in GROUPS.items() if line["kind"] in kinds)
        out[(line["payee"], group)] += line["points"]
        out[(line["payer"], group)] -= line["points"]
    return out


@pytest.mark.parametrize("size", SIZES)
def test_take_back_control_from_tuoguan_with_the_button(browser, live_server, room, size):
    table = FakeTable(duyun_round())
    table.auto = {0}
    table.auto_deadline_ms = int(time.time() * 1000) + 1000
    page = open_page(browser, live_server, room["users"][0], table, 0, size=SIZES[size])
    # Coming back to a seat in 托管, the player is asked first.
    page.wait_for_selector("#resume-prompt")
    assert "是否取消托管" in page.inner_text("#resume-prompt")
    page.click("#resume-prompt .act-stay")
    page.wait_for_selector("#resume-prompt", state="detached")
    banner = page.wait_for_selector("#auto-banner")
    assert "托管中" in banner.inner_text()
    # The countdown shows when the server acts for the seat, not the 15 s turn.
    assert int(page.inner_text("#countdown")) <= 1
    box = page.locator("#auto-banner .act-leave-auto").bounding_box()
    assert box is not None and box["height"] >= 36 and box["width"] >= 90
    page.screenshot(path=str(SCREENSHOTS / f"tuoguan-banner-{size}.png"))
    page.click("#auto-banner .act-leave-auto")
    page.wait_for_selector("#auto-banner", state="detached")
    assert {"viewer": 0, "type": "resume"} in table.sent
    assert int(page.inner_text("#countdown")) > 5


@pytest.mark.parametrize("size", SIZES)
def test_settlement_subtotals_equal_its_lines_and_last_settlement_reopens_it(
    browser, live_server, room, size,
):
    table = FakeTable(duyun_round("s6"))
    table.play_until(lambda r: False)
    settlement = table.rnd.settlement().to_json()
    page = open_page(browser, live_server, room["users"][1], table, 1, size=SIZES[size])
    page.wait_for_selector("#settlement #settlement-subtotals", timeout=8000)

    def shown() -> dict[tuple[int, str], int]:
        cells = page.eval_on_selector_all(
            "#settlement-subtotals td.sub",
            "els => els.map(e => [+e.closest('tr').dataset.seat, e.dataset.group,"
            " +e.dataset.value])",
        )
        return {(seat, group): value for seat, group, value in cells}

    expected = expected_subtotals(settlement, 4)
    assert shown() == {k: v for k, v in expected.items() if k[1] != "kong"}  # 都匀 has no 杠 money
    totals = page.eval_on_selector_all(
        "#settlement-subtotals td.sub-total", "els => els.map(e => +e.dataset.value)")
    assert totals == [sum(v for (s, _), v in expected.items() if s == seat) for seat in range(4)]
    assert totals == settlement["totals"]
    # Every line once, in words, under the player it concerns.
    items = page.eval_on_selector_all(
        "#settlement-lines li:not(.void)", "els => els.map(e => e.textContent)")
    assert len(items) == len(settlement["lines"])
    for line in settlement["lines"]:
        words = f"付 {NAMES[line['payee']]} "
        assert any(t.startswith(NAMES[line["payer"]]) and words in t and f"{line['points']}分" in t
                   for t in items), line
    text = page.inner_text("#settlement")
    assert "→" not in text and "D2" not in text.replace("规则出处", "")
    assert "秒后开始下一局" in page.inner_text("#next-hand-countdown")
    page.screenshot(path=str(SCREENSHOTS / f"settlement-{size}.png"))
    # The next hand: the dialogue goes; 上局结算 brings it back with the same numbers.
    before = shown()
    nxt = duyun_round("s7")
    table.next_hand(nxt)
    page.wait_for_selector("#settlement", state="detached")
    page.click("#last-settlement-button")
    page.wait_for_selector("#settlement #settlement-subtotals")
    assert "上局结算" in page.inner_text("#settlement h2")
    assert shown() == before
    page.click("#settlement .act-close")
    page.wait_for_selector("#settlement", state="detached")


def test_phone_rivers_are_readable(browser, live_server, room):
    table = FakeTable(duyun_round())
    table.play_until(lambda r: sum(len(s.river) for s in r.seats) >= 16 and r.turn == 0
                     and r.window is None)
    page = open_page(browser, live_server, room["users"][0], table, 0, size=PHONE)
    page.wait_for_selector(".river-tile")
    widths = page.eval_on_selector_all(
        ".river-tile", "els => els.map(e => e.getBoundingClientRect().width)")
    assert widths and min(widths) >= 26
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert fits
    page.screenshot(path=str(SCREENSHOTS / "rivers-phone.png"))


@pytest.mark.parametrize("size", SIZES)
def test_the_baogang_sheet_leaves_the_clock_in_sight(browser, live_server, room, size):
    """Z20: while the 报杠 panel is open the turn's clock runs; it must stay visible."""
    zigong_room(room)
    table = FakeTable(baogang_case3_round())
    page = open_page(browser, live_server, room["users"][1], table, 1, size=SIZES[size])
    page.click("#actions .act-declare:has-text('报叫')")
    page.wait_for_selector("#baogang input[type=checkbox]")
    sheet = page.locator("#baogang").bounding_box()
    clock = page.locator("#countdown").bounding_box()
    assert sheet is not None and clock is not None
    assert clock["y"] + clock["height"] <= sheet["y"], (clock, sheet)
    assert page.locator("#baogang-backdrop").count() == 0
    # Nor does it cover the player's own hand, whose triplets it asks about.
    hand = page.locator("#my-hand").bounding_box()
    assert hand is not None and sheet["y"] + sheet["height"] <= hand["y"], (sheet, hand)
    # Finger-sized choices: a tap anywhere on a tile's box ticks it.
    boxes = [page.locator("#baogang label.tick").nth(i).bounding_box() for i in range(2)]
    assert all(b is not None and b["height"] >= 44 and b["width"] >= 44 for b in boxes), boxes
    for button in ("#baogang .act-baogang", "#baogang .act-nobaogang"):
        assert page.locator(button).bounding_box()["height"] >= 44
    page.click("#baogang label.tick:has(input[value='1p']) .tile")
    assert page.is_checked("#baogang input[value='1p']")
    page.screenshot(path=f"/tmp/table47-baogang-{size}.png")


def test_a_quick_phrase_shows_beside_the_seat_and_can_be_muted(browser, live_server, room):
    table = FakeTable(duyun_round())
    sender = open_page(browser, live_server, room["users"][0], table, 0, size=PHONE)
    other = open_page(browser, live_server, room["users"][1], table, 1, size=DESKTOP)
    for page in (sender, other):
        page.wait_for_selector("#my-hand .tile")
    sender.click("#phrase-button")
    sender.click("#phrase-panel .phrase[data-phrase='lag']")
    assert {"viewer": 0, "type": "phrase", "phrase": "lag"} in table.sent
    bubble = other.wait_for_selector('.seat-panel[data-seat="0"] .phrase-bubble')
    assert bubble.inner_text() == "不好意思，网卡了"
    other.wait_for_selector(".phrase-bubble", state="detached", timeout=6000)
    other.click("#phrase-button")
    other.check("#phrase-panel .phrase-mute input")
    other.click("#phrase-button")
    sender.click("#phrase-button")
    sender.click("#phrase-panel .phrase[data-phrase='lag']")
    sender.wait_for_selector('.seat-panel[data-seat="0"] .phrase-bubble')
    other.wait_for_timeout(500)
    assert other.locator(".phrase-bubble").count() == 0


def played_out_match(*, computer_names: bool = False) -> tuple[Any, list[Any], Any]:
    """A room whose four players have played a 4-hand 都匀 match to its end (real server);
    with ``computer_names``, seats 2 and 3 have the long names of computer accounts
    (电脑·小梅（标准）)."""
    from apps.accounts.models import User
    from apps.clubs.models import Club, Membership, Room, RoomSeat
    from tests.matches.test_match_end import play_out_match

    long_names = {2: "电脑·小梅", 3: "电脑·阿竹"} if computer_names else {}
    users = [User.objects.create_user(
        f"r{i}", display_name=long_names.get(i, NAMES[i]), is_computer=i in long_names,
        computer_level="standard" if i in long_names else "") for i in range(4)]
    club = Club.objects.create(name="再来圈", invite_code="AGAIN1")
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="owner" if i == 0 else "member")
    variant = get_variant("duyun")
    seats_room = Room.objects.create(
        club=club, code="654321", variant="duyun", created_by=users[0],
        settings=variant.schema.validate({"hands_per_match": 4}))
    for i, user in enumerate(users):
        RoomSeat.objects.create(room=seats_room, seat=i, user=user, ready=True)
    return seats_room, users, play_out_match(match_start_dealt(seats_room))


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG, from its signature and IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("size", SIZES)
def test_the_result_image_downloads_as_a_png_of_the_standings(browser, live_server, size):
    seats_room, users, match = played_out_match(computer_names=True)
    client = Client()
    client.force_login(users[0])
    context = browser.new_context(viewport=SIZES[size], locale="zh-CN", accept_downloads=True)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/rooms/{seats_room.code}/result/{match.pk}/")
    page.wait_for_selector("#result-image:visible")
    # Four seats, two with long names and one with 大赢家, fit the width of a phone.
    assert page.eval_on_selector(".standings-wrap", "e => e.scrollWidth <= e.clientWidth")
    assert_no_sideways_scroll(page)
    with page.expect_download() as info:
        page.click("#result-image")
    download = info.value
    assert download.suggested_filename == f"对局成绩-{seats_room.code}.png"
    data = Path(download.path()).read_bytes()
    # Twice the CSS layout of result_image.js: 4 player columns, 4 hands and the totals.
    assert png_size(data) == (2 * (24 * 2 + 84 + 108 * 4), 2 * (92 + 52 + 34 * (4 + 1) + 44))
    # The page shows the same picture, to long-press on a phone.
    shown = page.eval_on_selector("#result-image-preview", "e => [e.naturalWidth, e.src]")
    assert shown[0] == png_size(data)[0] and shown[1].startswith("data:image/png;base64,")
    Path(f"/tmp/table47-result-{size}.png").write_bytes(data)
    page.screenshot(path=str(SCREENSHOTS / f"result-page-{size}.png"), full_page=True)
    context.close()


def test_rematch_starts_a_new_match_with_the_same_four(browser, live_server):
    from apps.matches.models import Match, MatchPlayer

    seats_room, users, first = played_out_match()
    pages = []
    for i, user in enumerate(users):
        client = Client()
        client.force_login(user)
        context = browser.new_context(viewport=PHONE if i % 2 == 0 else DESKTOP, locale="zh-CN")
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                              "url": live_server.url}])
        page = context.new_page()
        page.goto(f"{live_server.url}/rooms/{seats_room.code}/result/{first.pk}/")
        pages.append(page)
    assert "大赢家" in pages[0].inner_text("#standings-table") or max(first.totals) <= 0
    rows = pages[0].locator("#standings-table tbody tr").count()
    assert rows == first.hands_played == 4
    pages[0].screenshot(path=str(SCREENSHOTS / "standings-phone.png"), full_page=True)
    pages[1].screenshot(path=str(SCREENSHOTS / "standings-desktop.png"), full_page=True)
    # The room shows that result, not the seats still marked 已准备.
    lobby = pages[0].context.new_page()
    lobby.goto(f"{live_server.url}/rooms/{seats_room.code}/")
    assert lobby.is_visible("#last-result #standings-table") and lobby.is_hidden("#seats")
    lobby.screenshot(path=str(SCREENSHOTS / "room-last-result-phone.png"), full_page=True)
    lobby.close()
    for page in pages[:3]:
        page.click("#rematch-button")
        page.wait_for_url(f"**/rooms/{seats_room.code}/")
    assert "已确认再来一场" in pages[2].inner_text("main")
    assert Match.objects.filter(room=seats_room).count() == 1
    pages[3].click("#rematch-button")
    pages[3].wait_for_url(f"**/rooms/{seats_room.code}/play/")
    second = Match.objects.filter(room=seats_room).exclude(pk=first.pk).get()
    seated = list(MatchPlayer.objects.filter(match=second).order_by("seat")
                  .values_list("user_id", flat=True))
    assert seated == [u.pk for u in users] and second.settings == first.settings
    for page in pages:
        page.context.close()



class _BeforeHandOne(FakeTable):
    """A new match: hand 1 committed, not dealt, seat 2's value already in."""

    def __init__(self) -> None:
        super().__init__(duyun_round())
        self.contributions: list[dict[str, Any]] = [{"seat": 2, "value": "ab" * 32}]

    def frame(
        self, kind: str, viewer: int | None, events: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        out = super().frame(kind, viewer, events)
        out["observation"] = None
        out["table"].update(
            stage="between", hand=None, hands_played=0, commitment=None,
            deadline=int(time.time() * 1000) + 6000,
            next={"hand": 1, "commitment": "cd" * 32, "contributions": self.contributions},
        )
        return out

    def _receive(self, ws: Any, viewer: int | None, message: str | bytes) -> None:
        data = json.loads(message)
        if data["type"] != "contribute":
            super()._receive(ws, viewer, message)
            return
        self.sent.append({"viewer": viewer, **data})
        self.contributions = sorted(
            [*self.contributions, {"seat": viewer, "value": data["value"]}],
            key=lambda c: c["seat"])
        self.version += 1
        self.broadcast([{"type": "contributed", "seat": viewer, "hand": 1,
                         "value": data["value"]}])


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_before_hand_one_the_page_shows_the_shuffle_and_sends_its_value(
    browser: Any, live_server: Any, room: dict[str, Any], size: str
) -> None:
    """Issue 30: a new match waits for the seats' values before dealing hand 1. The page
    says so in words, sends its own value once, and shows who has sent one."""
    table = _BeforeHandOne()
    page = open_page(browser, live_server, room["users"][0], table, 0, size=SIZES[size])
    wait_until(page, "document.body.innerText.includes('张三：已送出')")
    text = page.inner_text(".shuffling")
    assert "正在洗牌" in text and "王五：已送出" in text and "李四：等待中" in text
    assert re.search(r"\d 秒后开局", text)
    sent = [m for m in table.sent if m["type"] == "contribute"]
    assert len(sent) == 1 and sent[0]["hand"] == 1
    assert re.fullmatch(r"[0-9a-f]{64}", sent[0]["value"])
    page.screenshot(path=str(SCREENSHOTS / f"table-shuffle-{size}.png"))


def test_the_compass_shows_the_seat_winds_and_the_dealer(browser, live_server, room):
    # The dealer (seat 0) is 东, then 南 西 北 in turn order, wherever the viewer sits.
    table = FakeTable(duyun_round())
    page = open_page(browser, live_server, room["users"][1], table, 1, size=PHONE)
    page.wait_for_selector(".compass .dir")
    dirs = page.eval_on_selector_all(
        ".compass .dir", "els => els.map(e => [e.className.match(/pos-(\\w+)/)[1],"
        " e.firstChild.textContent, e.querySelector('.dealer-mark')?.textContent ?? ''])")
    assert sorted(dirs) == sorted(
        [["left", "东", "庄"], ["bottom", "南", ""], ["right", "西", ""], ["top", "北", ""]])
    page.screenshot(path="/tmp/table47-compass-phone.png")


def test_the_top_bar_stays_one_row_with_the_rest_in_a_menu(browser, live_server, room):
    table = FakeTable(duyun_round("s6"))
    page = open_page(browser, live_server, room["users"][0], table, 0, size=PHONE)
    page.wait_for_selector("#my-hand .tile")
    top = page.locator("#table-root").bounding_box()
    table.play_until(lambda r: False)
    table.next_hand(duyun_round("s7"))
    page.wait_for_selector("#last-settlement-button:visible")
    # 上局结算 has come: the bar is still one row and the table has not moved down.
    tops = page.eval_on_selector_all(
        ".topbar > *", "els => els.filter(e => e.getClientRects().length)"
        ".map(e => e.getBoundingClientRect().top)")
    assert max(tops) - min(tops) < 8, tops
    assert page.locator("#table-root").bounding_box() == top
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path="/tmp/table47-topbar-phone.png")
    # The sound switch and 解散 are in the ⋯ menu, with finger-sized buttons.
    assert page.is_hidden("#sound-button") and page.is_hidden("#dissolve-button")
    page.click("#more-button")
    box = page.locator("#dissolve-button").bounding_box()
    assert box is not None and box["height"] >= 44
    page.screenshot(path="/tmp/table47-menu-phone.png")
    page.click("#sound-button")
    page.click("#more-button")
    assert page.inner_text("#sound-button") == "音效关"
    page.click("#table-root", position={"x": 5, "y": 5})  # a tap elsewhere closes it
    page.wait_for_selector("#more-menu", state="hidden")
