"""From a shared link to a seat, by clicking only, against ``manage.py serve``:

* a logged-out friend opens a room's share link, registers, asks to join, is approved by
  the owner (in a second browser context) and lands in the room, where they sit;
* a member opens a room by typing its 房间号 into the home page's box;
* the owner quick-opens a room from a template on a 390×844 phone, the 快速开房 button in
  view without scrolling.

Along the way it saves the screenshots of ``docs/screenshots`` (home page, club lobby,
share dialog with its QR code, rule form; phone and desktop).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, SCREENSHOTS, wait_until
from .test_play import register

pytestmark = [pytest.mark.browser, pytest.mark.services]


def _tag() -> str:
    return str(int(time.time() * 1000) % 10_000_000)


def _new_page(browser: Any, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, locale="zh-CN")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    return context.new_page()


def _in_view(page: Any, selector: str) -> bool:
    """Whether the element lies wholly inside the viewport (no scrolling needed)."""
    return bool(
        page.evaluate(
            """(sel) => {
                const r = document.querySelector(sel).getBoundingClientRect();
                return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight
                    && r.right <= window.innerWidth;
            }""",
            selector,
        )
    )


def _club_with_template(page: Any, url: str, tag: str) -> str:
    """As a logged-in owner: create a club and a rule template by clicking; return the
    club page's URL."""
    page.goto(f"{url}/")
    page.locator("a.step:has-text('创建亲友圈')").click()
    page.fill("#id_create-name", f"周末麻将圈{tag}")
    page.locator("form:has(#id_create-name) button").click()
    page.wait_for_url("**/clubs/*/")
    club_url = page.url
    page.locator("summary:has-text('规则模板')").click()
    page.locator("a:has-text('新建规则模板')").click()
    page.wait_for_load_state()
    page.fill("#id_name", "八局一底")
    page.locator("form.rules-form button[type=submit]").click()
    page.wait_for_url(club_url)
    return club_url


def test_quick_open_on_a_phone_with_the_button_in_view(
    browser: Any, server: dict[str, Any]
) -> None:
    url, tag = server["url"], _tag()
    owner = _new_page(browser, PHONE)
    register(owner, url, f"qo{tag}", "开房老张")
    club_url = _club_with_template(owner, url, tag)
    owner.goto(club_url)
    button = "#quick-open button"
    assert owner.locator(button).first.inner_text().startswith("快速开房")
    assert _in_view(owner, button)
    owner.locator(button).first.click()
    owner.wait_for_url("**/rooms/*/")
    # The opener sits at 东, marked as the first dealer, with one 准备 toggle.
    owner.wait_for_selector(".seat.mine")
    mine = owner.locator(".seat.mine")
    assert "东" in mine.inner_text()
    assert "庄" in mine.inner_text()
    # One toggle on the whole page: 准备, then 取消准备 in its place.
    buttons = owner.locator("main button", has_text="准备")
    assert buttons.count() == 1
    assert buttons.inner_text() == "准备"
    buttons.click()
    owner.wait_for_selector("#my-actions button:has-text('取消准备')")
    assert buttons.count() == 1
    assert buttons.inner_text() == "取消准备"
    assert owner.locator("main button", has_text="解散房间").count() == 1
    owner.context.close()


def test_from_a_share_link_to_a_seat(browser: Any, server: dict[str, Any]) -> None:
    url, tag = server["url"], _tag()
    owner = _new_page(browser, DESKTOP)
    register(owner, url, f"ow{tag}", "圈主老李")
    club_url = _club_with_template(owner, url, tag)
    owner.locator("#quick-open button").first.click()
    owner.wait_for_url("**/rooms/*/")
    code = owner.url.rstrip("/").rsplit("/", 1)[-1]

    # The owner shares the room: link, QR code and 口令 in one dialog.
    owner.locator("button:has-text('邀请牌友')").click()
    dialog = owner.locator("#share-room")
    dialog.wait_for(state="visible")
    assert dialog.locator(".qr svg").count() == 1
    link = dialog.locator("#share-room-url").input_value()
    assert link.endswith(f"/rooms/{code}/")
    assert code in dialog.locator("#share-room-kouling").input_value()
    dialog.locator("button:has-text('复制链接')").click()
    owner.wait_for_selector("#share-room button:has-text('已复制')")
    owner.screenshot(path=str(SCREENSHOTS / "share-room-desktop.png"))
    dialog.locator("button:has-text('关闭')").click()

    # A friend, logged out, opens the link: the club's name and 申请加入.
    friend = _new_page(browser, PHONE)
    friend.goto(link)
    assert f"周末麻将圈{tag}" in friend.locator("h1").inner_text()
    friend.screenshot(path=str(SCREENSHOTS / "join-phone.png"))
    friend.locator("a:has-text('注册并申请加入')").click()
    friend.fill("#id_username", f"fr{tag}")
    friend.fill("#id_display_name", "牌友小王")
    friend.fill("#id_password1", "mj-pass-2468")
    friend.fill("#id_password2", "mj-pass-2468")
    friend.locator("main form button[type=submit]").click()
    friend.wait_for_url(f"**/rooms/{code}/")
    friend.locator("button:has-text('申请加入')").click()
    friend.wait_for_selector("#pending")

    # The owner approves in the club page.
    owner.goto(club_url)
    requests = owner.locator("#join-requests")
    assert "牌友小王" in requests.inner_text()
    requests.locator("button:has-text('通过')").click()
    owner.wait_for_load_state()

    # The owner watches the club lobby while the friend's waiting page moves into the room
    # by itself and they sit: the table card changes live, without a reload.
    table = owner.locator(f".table-card[data-room='{code}']")
    table.wait_for()
    assert "牌友小王" not in table.inner_text()
    friend.wait_for_url(f"**/rooms/{code}/", timeout=15000)
    friend.wait_for_selector("#seats button:has-text('坐这里')", timeout=15000)
    friend.locator("#seats button:has-text('坐这里')").first.click()
    friend.wait_for_selector(".seat.mine")
    assert "牌友小王" in friend.locator(".seat.mine").inner_text()
    assert "南" in friend.locator(".seat.mine").inner_text()
    wait_until(
        owner, f"document.querySelector(\".table-card[data-room='{code}']\")"
        ".textContent.includes('牌友小王')",
        timeout=10000,
    )
    assert "等待中" in table.inner_text()

    # Open the room by its number from the home page.
    friend.goto(f"{url}/")
    friend.fill("#id_code", code)
    friend.locator("#code-box button").click()
    friend.wait_for_url(f"**/rooms/{code}/")
    assert code in friend.locator("h1").inner_text()

    # An unknown room: the friendly Chinese 404, even with DEBUG on.
    response = friend.goto(f"{url}/rooms/999999/")
    assert response is not None and response.status == 404
    assert "找不到" in friend.locator("h1").inner_text()
    owner.context.close()
    friend.context.close()


def test_screenshots(browser: Any, server: dict[str, Any]) -> None:
    """The pages of docs/screenshots, each on a phone and a desktop."""
    url, tag = server["url"], _tag()
    owner = _new_page(browser, PHONE)
    register(owner, url, f"sh{tag}", "圈主老张")
    club_url = _club_with_template(owner, url, tag)
    owner.locator("#quick-open button").first.click()
    owner.wait_for_url("**/rooms/*/")
    friends = []
    for i, name in enumerate(("牌友老周", "牌友阿芳")):
        friend = _new_page(browser, DESKTOP)
        register(friend, url, f"sh{tag}f{i}", name)
        friends.append(friend)
    invite = owner.context.new_page()
    invite.goto(club_url)
    invite_code = invite.locator(".code").first.inner_text().strip()
    invite.close()
    for friend in friends:
        friend.goto(f"{url}/")
        friend.fill("#id_code", invite_code)
        friend.locator("#code-box button").click()
        friend.locator("button:has-text('加入亲友圈')").click()
        friend.wait_for_url(club_url)
    friends[0].locator(".table-card button:has-text('入座')").first.click()
    friends[0].wait_for_url("**/rooms/*/")
    friends[0].wait_for_selector(".seat.mine")
    friends[0].set_viewport_size(PHONE)
    friends[0].reload()
    friends[0].wait_for_selector(".seat.mine")
    friends[0].screenshot(path=str(SCREENSHOTS / "room-lobby-phone.png"), full_page=True)

    for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        # The home page of a member who is not seated: a table with a free seat to take.
        friends[1].set_viewport_size(viewport)
        friends[1].goto(f"{url}/")
        friends[1].wait_for_selector(".table-card button:has-text('入座')")
        friends[1].screenshot(path=str(SCREENSHOTS / f"home-{size}.png"), full_page=True)
        owner.set_viewport_size(viewport)
        owner.goto(club_url)
        owner.wait_for_selector(".table-card")
        owner.screenshot(path=str(SCREENSHOTS / f"club-lobby-{size}.png"))
        owner.locator("button:has-text('分享')").first.click()
        owner.locator("#share-club").wait_for(state="visible")
        owner.screenshot(path=str(SCREENSHOTS / f"share-dialog-{size}.png"))
        owner.locator("#share-club button:has-text('关闭')").click()
        owner.locator("a:has-text('自定义开房')").click()
        owner.wait_for_load_state()
        owner.screenshot(path=str(SCREENSHOTS / f"rule-form-{size}.png"))
    visitor = _new_page(browser, PHONE)
    visitor.goto(f"{url}/")
    visitor.screenshot(path=str(SCREENSHOTS / "landing-phone.png"), full_page=True)
    visitor.locator("a:has-text('都匀独山捉鸡')").click()
    visitor.wait_for_url("**/rules/duyun/")
    visitor.screenshot(path=str(SCREENSHOTS / "rules-phone.png"))
    for page in (owner, *friends, visitor):
        page.context.close()
