"""Around the table (issue 47) in a real browser against the real server (daphne on the
test database, the channel layer on Redis): 托管 by choice (本轮后托管 in a claim window)
and the timeout notice to that seat alone; 再来一场 as a prompt on every seated player's
screen (agree, leave, the deadline, and everyone agreeing into the next match); two tabs on
one seat. Time does not pass by itself here (no Celery worker): the test moves a match's or
a room's due moment into the past and runs the sweep, as Celery beat would."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from apps.clubs.models import Room, RoomSeat
from apps.clubs.services.rematch import rematch_timers_fire
from apps.matches import services, state
from apps.matches.models import Match, MatchPlayer
from tests.matches.test_match_end import play_out_match
from tests.support import factories

from .conftest import DESKTOP, PHONE, SCREENSHOTS, assert_no_sideways_scroll, wait_until
from .test_replay import _page_as
from .test_table_care_page import played_out_match

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _in_thread(function: Any) -> Any:
    """Run ``function`` in a thread of its own, as the sweep's worker would: its broadcast
    (``async_to_sync``) cannot be sent from this thread, where Playwright runs a loop."""
    def run() -> Any:
        try:
            return function()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def _sweep_now(match_id: int, **fields: Any) -> None:
    """Move the match's due moment (and ``fields``) into the past and sweep it."""
    past = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=match_id).update(timer_due=past, **fields)
    state.state_forget_all()
    assert _in_thread(services.match_timers_fire) == 1


def _open(browser: Any, user: Any, url: str, code: str, size: dict[str, int]) -> Any:
    page = _page_as(browser, user, url, size)
    page.goto(f"{url}/rooms/{code}/play/")
    return page


def test_tuoguan_by_choice_waits_for_the_claim_window_and_a_timeout_is_told_to_its_seat(
    browser: Any, daphne_url: str,
) -> None:
    table = factories.table("duyun", claim_pause_ms=3000)
    match = table.match
    turn = match.dealer
    other = (turn + 1) % 4
    mover = _open(browser, table.users[turn], daphne_url, table.room.code, PHONE)
    watcher = _open(browser, table.users[other], daphne_url, table.room.code, DESKTOP)
    for page in (mover, watcher):
        page.wait_for_selector("#my-hand")
        wait_until(page, "document.body.dataset.connection === 'open'")
    assert watcher.inner_text("#auto-button") == "托管"
    box = mover.locator("#auto-button").bounding_box()
    assert box is not None and box["height"] >= 24
    mover.screenshot(path=str(SCREENSHOTS / "tuoguan-button-phone.png"))
    watcher.screenshot(path=str(SCREENSHOTS / "tuoguan-button-desktop.png"))

    # The mover lets the turn run out: the sweep discards for it; only its page says so.
    _sweep_now(match.pk, deadline=timezone.now() - timedelta(seconds=1))
    mover.wait_for_selector("#toast:not([hidden])")
    assert mover.inner_text("#toast") == "超时，已自动出牌"
    mover.screenshot(path=str(SCREENSHOTS / "timeout-notice-phone.png"))
    wait_until(watcher, "document.body.dataset.phase === 'claim'")
    assert watcher.is_hidden("#toast") or "超时" not in watcher.inner_text("#toast")

    # In the claim window 托管 waits: the page queues it, the seat is not in 托管 yet.
    watcher.click("#auto-button")
    wait_until(watcher, "document.getElementById('auto-button').textContent.includes('本轮后托管')")
    watcher.screenshot(path=str(SCREENSHOTS / "tuoguan-queued-desktop.png"))
    assert not MatchPlayer.objects.get(match=match, seat=other).auto_play
    # The window ends (its pause and deadline pass): the page sends 托管 now.
    _sweep_now(match.pk, deadline=timezone.now() - timedelta(seconds=1))
    watcher.wait_for_selector("#auto-banner")
    assert "托管中" in watcher.inner_text("#auto-banner")
    assert MatchPlayer.objects.get(match=match, seat=other).auto_play
    # The mover's page shows the 托管 badge on that seat; 取消托管 takes the seat back.
    mover.wait_for_selector(f".seat-panel[data-seat='{other}'] .badge.auto")
    watcher.click("#auto-banner .act-leave-auto")
    watcher.wait_for_selector("#auto-banner", state="detached")
    watcher.wait_for_selector("#auto-button")
    assert not MatchPlayer.objects.get(match=match, seat=other).auto_play
    for page in (mover, watcher):
        page.context.close()


def test_rematch_is_a_prompt_on_every_seated_players_screen(
    browser: Any, daphne_url: str,
) -> None:
    room, users, _ = played_out_match()
    pages = [_open(browser, user, daphne_url, room.code, PHONE if i % 2 == 0 else DESKTOP)
             for i, user in enumerate(users)]
    for page in pages:
        page.wait_for_selector("#settlement .act-standings")
        page.click("#settlement .act-standings")
        page.wait_for_selector("#standings .act-rematch")
    pages[0].click("#standings .act-rematch")
    for page in pages:  # every screen: who agreed, the countdown, 同意 / 离开
        page.wait_for_selector("#rematch")
        wait_until(page, "document.querySelector('#rematch li[data-seat=\"0\"]')"
                         ".textContent.includes('已同意')")
        assert page.is_hidden("#standings .act-rematch")
    for page in pages:  # the bar, at the screen's bottom edge, is wholly on the screen
        assert_no_sideways_scroll(page)
    left = int(pages[1].inner_text("#rematch-countdown").split()[1])
    assert 50 <= left <= 60
    assert pages[0].is_visible("#rematch .waiting") and pages[0].is_hidden("#rematch .act-agree")
    pages[1].click("#rematch .act-agree")
    wait_until(pages[3], "document.querySelector('#rematch li[data-seat=\"1\"]')"
                         ".textContent === '李四：已同意'")
    pages[0].screenshot(path=str(SCREENSHOTS / "rematch-prompt-phone.png"))
    pages[3].screenshot(path=str(SCREENSHOTS / "rematch-prompt-desktop.png"))
    # 王五 leaves: the seat is given up and the page goes to the club.
    pages[2].once("dialog", lambda dialog: dialog.accept())
    pages[2].click("#rematch .act-rematch-leave")
    pages[2].wait_for_url(f"**/clubs/{room.club_id}/")
    wait_until(pages[0], "document.querySelector('#rematch li[data-seat=\"2\"]')"
                         ".textContent.includes('空位')")
    assert Match.objects.filter(room=room).count() == 1
    # The deadline passes: 赵六, who did not answer, stands up; the room is open again.
    Room.objects.filter(pk=room.pk).update(rematch_deadline=timezone.now() - timedelta(seconds=1))
    assert _in_thread(rematch_timers_fire) == 1
    pages[3].wait_for_selector("#rematch .act-club")
    assert "你没有同意再来一场，已离座" in pages[3].inner_text("#rematch")
    pages[0].wait_for_selector("#rematch .act-lobby")
    assert "房间重新开放" in pages[0].inner_text("#rematch")
    pages[0].screenshot(path=str(SCREENSHOTS / "rematch-expired-phone.png"))
    assert dict(RoomSeat.objects.filter(room=room).values_list("seat", "ready")) == {
        0: True, 1: True}
    pages[0].click("#rematch .act-lobby")
    pages[0].wait_for_url(f"**/rooms/{room.code}/")
    for page in pages:
        page.context.close()


def test_when_everyone_agrees_the_pages_go_on_to_the_next_match(
    browser: Any, daphne_url: str,
) -> None:
    table = factories.table("duyun", computers=2, hands_per_match=4)
    first = play_out_match(table.match)
    MatchPlayer.objects.filter(match=first, computer=False).update(auto_play=False)
    pages = [_open(browser, user, daphne_url, table.room.code, size)
             for user, size in zip(table.users[:2], (PHONE, DESKTOP), strict=True)]
    for page in pages:
        page.wait_for_selector("#settlement .act-standings")
    pages[0].click("#settlement .act-standings")
    pages[0].click("#standings .act-rematch")
    pages[1].wait_for_selector("#rematch .act-agree")
    agreed = pages[1].eval_on_selector_all("#rematch li.agreed",
                                           "els => els.map(e => e.dataset.seat)")
    assert agreed == ["0", "2", "3"]  # the computers agreed at once
    pages[1].click("#rematch .act-agree")
    wait_until(pages[1], "document.body.dataset.phase !== 'ended'")
    second = Match.objects.filter(room=table.room).exclude(pk=first.pk).get()
    assert second.status == Match.Status.PLAYING
    for page in pages:  # the next match: its hand 1 is dealt once the pages sent their values
        wait_until(page, f"window.mjTable.view.match.match === {second.pk}"
                         " && document.body.dataset.phase === 'turn'")
        page.wait_for_selector("#my-hand")
        assert page.is_hidden("#rematch") and page.is_hidden("#standings")
        assert page.is_hidden("#settlement")
    assert pages[0].inner_text("#hand-no") == "第1/4局"
    for page in pages:
        page.context.close()


def test_a_second_tab_on_the_same_seat_replaces_the_first(
    browser: Any, daphne_url: str,
) -> None:
    table = factories.table("duyun")
    user = table.users[1]
    for size, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
        first = _open(browser, user, daphne_url, table.room.code, size)
        first.wait_for_selector("#my-hand")
        second = first.context.new_page()
        second.goto(f"{daphne_url}/rooms/{table.room.code}/play/")
        second.wait_for_selector("#my-hand")
        first.wait_for_selector("#replaced")
        assert "已在另一个窗口打开" in first.inner_text("#replaced")
        wait_until(first, "document.body.dataset.connection === 'replaced'")
        assert second.is_hidden("#replaced")
        first.screenshot(path=str(SCREENSHOTS / f"two-tabs-{name}.png"))
        # Taking it back: the first page reloads and the second is the one replaced now.
        first.click("#replaced .act-take-back")
        first.wait_for_selector("#my-hand")
        second.wait_for_selector("#replaced")
        assert first.is_hidden("#replaced")
        first.context.close()
