"""End to end: a player opens a 练习房 and plays a hand against three computer seats to its
end, by clicking only, against the real ``manage.py serve`` (daphne, Celery worker and
beat, embedded Redis). The computer seats act through the sweep; the page shows them as
电脑, shows 听牌提示 before each discard, and nothing is booked."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import pytest

from .conftest import PHONE, SCREENSHOTS
from .test_play import STATE_JS, bot_step, register

pytestmark = [pytest.mark.browser, pytest.mark.services]

HINTS_JS = """() => [...document.querySelectorAll('#my-hand .tile.playable')].map(e => ({
    tile: e.dataset.tile, hint: e.dataset.hint || null}))"""


def test_a_player_plays_a_practice_hand_against_three_computers(
    browser: Any, server: dict[str, Any]
) -> None:
    url = server["url"]
    page = browser.new_context(viewport=PHONE, locale="zh-CN").new_page()
    tag = f"pr{int(time.time() * 1000) % 10_000_000}"
    register(page, url, f"{tag}u0", "练习小张")
    page.goto(f"{url}/clubs/")
    page.fill("#id_create-name", f"练习圈{tag}")
    page.locator("form:has(#id_create-name) button").click()
    page.wait_for_url("**/clubs/*/")
    page.locator("a:has-text('自定义练习房')").click()
    page.wait_for_load_state()
    assert page.locator("#id_practice").is_checked()
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url("**/rooms/*/")
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert page.locator(".seat .badge.computer").count() == 3
    assert page.locator("h1 .badge.practice").inner_text() == "练习房"
    page.screenshot(path=str(SCREENSHOTS / "practice-lobby-phone.png"))
    page.locator("button:has-text('准备')").first.click()
    page.wait_for_url(f"**/rooms/{code}/play/", timeout=15_000)
    page.wait_for_selector("#my-hand")
    names = page.locator(".opponents .seat-panel .badge.computer")
    names.first.wait_for()
    assert names.count() == 3 and names.first.inner_text() == "电脑"
    # Each computer's seat shows its given name whole, even in a phone's narrow side panel
    # (the badge says 电脑; the full name with its level is the panel name's title).
    shown = page.evaluate("""[...document.querySelectorAll('.opponents .seat-panel .name')]
        .map(e => [e.textContent, e.title, e.scrollWidth <= e.clientWidth])""")
    assert len(shown) == 3 and len({text for text, _, _ in shown}) == 3, shown
    for text, title, whole in shown:
        assert title == f"电脑·{text}（标准）" and whole, shown

    hinted = shot = False
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline:
        state = page.evaluate(STATE_JS)
        if state["settlement"]:
            break
        if state["playable"] and not state["win"]:
            hints = page.evaluate(HINTS_JS)
            if all(h["hint"] for h in hints):
                hinted = True
                assert all(h["hint"].startswith("打这张") for h in hints)
                assert page.locator("#discard-hints .hint").count() >= 1
                if not shot and state["wall"] < 60:
                    page.screenshot(path=str(SCREENSHOTS / "practice-table-phone.png"))
                    shot = True
        if not bot_step(page, state):
            page.wait_for_timeout(250)
        else:
            page.wait_for_timeout(150)
    else:
        raise AssertionError("the practice hand did not end")
    assert hinted, "no 听牌提示 was shown before a discard"
    page.wait_for_selector("#settlement")
    page.screenshot(path=str(SCREENSHOTS / "practice-settlement-phone.png"))
    text = page.locator("#settlement").inner_text()
    assert "电脑" in text
    with sqlite3.connect(server["db"]) as db:
        (practice,) = db.execute(
            "SELECT m.practice FROM matches_match m JOIN clubs_room r ON m.room_id = r.id"
            " WHERE r.code = ?", (code,)).fetchone()
        booked = db.execute("SELECT COUNT(*) FROM ledgers_handresult h JOIN matches_match m"
                            " ON h.match_id = m.id JOIN clubs_room r ON m.room_id = r.id"
                            " WHERE r.code = ?", (code,)).fetchone()[0]
        hands = db.execute("SELECT COUNT(*) FROM matches_hand h JOIN matches_match m"
                           " ON h.match_id = m.id JOIN clubs_room r ON m.room_id = r.id"
                           " WHERE r.code = ? AND h.settlement IS NOT NULL",
                           (code,)).fetchone()[0]
    assert practice == 1 and hands >= 1 and booked == 0
