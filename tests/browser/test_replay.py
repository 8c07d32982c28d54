"""战绩回放 in a real browser: the replay of a finished hand ends on the same final tiles
and settlement lines as the live table showed, and its in-browser seed check passes; a seed
rewritten after the hand is caught by what the player's browser kept at the table.

A hand is played through the matches app's services (random legal moves) into the test
database; a daphne subprocess serves that database; Debian's Chromium (the ``browser``
fixture of this directory) opens the live table as a spectating club member, then the
replay as a player.
"""

from __future__ import annotations

import os
import random
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from apps.accounts.models import User
from apps.matches import services
from apps.matches.lifecycle import commitment_of
from apps.matches.models import Hand, Match
from tests.ledgers.playing import make_table, play_hand

from .conftest import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def daphne_url(transactional_db: None, redis_url: str, tmp_path: Path) -> Iterator[str]:
    """daphne serving ``config.asgi`` on a free port, on the test database."""
    port = _free_port()
    env = {
        **os.environ, "DATABASE_URL": _database_url(), "REDIS_URL": redis_url,
        "CELERY_QUEUE": f"replay-test-{port}", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING",
    }
    log = (tmp_path / "daphne.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "config.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError((tmp_path / "daphne.log").read_text()[-3000:])
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        # Captured output: pytest shows it only when the test failed.
        print("--- daphne log ---\n" + (tmp_path / "daphne.log").read_text()[-5000:])


def _page_as(browser: Any, user: User, url: str) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": url,
    }])
    return context.new_page()


def test_the_replay_ends_where_the_live_table_did(browser: Any, daphne_url: str) -> None:
    table = make_table("duyun")
    play_hand(table.match.pk, random.Random(11))
    hand = Hand.objects.get(match=table.match, number=1)
    assert hand.settlement is not None

    live = _page_as(browser, table.member, daphne_url)
    live.goto(f"{daphne_url}/rooms/{table.room.code}/play/")
    # The deal is random: a 黄庄 may settle nothing, and then the dialogue says 无输赢
    # instead of listing lines. The dialogue itself is always there.
    live.wait_for_selector("#settlement", state="attached", timeout=20000)
    live_lines = live.locator("#settlement-lines li").all_inner_texts()
    if not hand.settlement["lines"]:
        assert "无输赢" in live.locator("#settlement").inner_text()
    live_hands = {
        seat: sorted(live.locator(f"section.seat-panel[data-seat='{seat}'] .opp-hand [data-tile]")
                     .evaluate_all("els => els.map(e => e.dataset.tile)"))
        for seat in range(4)
    }
    assert any(live_hands.values())
    assert len(live_lines) == len(hand.settlement["lines"])

    page = _page_as(browser, table.players[0], daphne_url)
    page.goto(f"{daphne_url}/ledgers/hands/{hand.pk}/replay/")
    page.wait_for_selector("#replay[data-ready='true']")
    assert page.locator("#settlement").is_hidden()
    first = page.locator("#step-label").inner_text()
    page.click("[data-step='next']")
    page.click("[data-step='prev']")
    assert page.locator("#step-label").inner_text() == first
    page.click("[data-step='last']")
    assert page.locator("#settlement").is_visible()
    replay_lines = page.locator("#settlement #settlement-lines li").all_inner_texts()
    assert replay_lines == live_lines
    replay_hands = {
        seat: sorted(page.locator(f".replay-seat[data-seat='{seat}'] .hand [data-tile]")
                     .evaluate_all("els => els.map(e => e.dataset.tile)"))
        for seat in range(4)
    }
    assert replay_hands == live_hands
    fanji = (hand.settlement.get("summary") or {}).get("fanji")
    if fanji:
        assert page.locator(f"#settlement .fanji [data-tile='{fanji}']").count() == 1

    page.click("#verify")
    page.wait_for_selector("#verify-result[data-ok]")
    assert page.locator("#verify-result").get_attribute("data-ok") == "true"
    # This browser never sat at the table: the page says it can only compare the server's
    # data with itself.
    assert page.locator("#verify-result").get_attribute("data-stored") == "false"
    assert "本浏览器没有这一局的记录" in page.locator("#verify-result").inner_text()


def _stored(page: Any, match_id: int, hand: int, field: str) -> Any:
    return page.evaluate(
        "([key, field]) => (JSON.parse(localStorage.getItem(key)) || {})[field] ?? null",
        [f"mj-fair:{match_id}:{hand}", field],
    )


def test_a_seed_rewritten_after_the_hand_is_caught_by_the_browser(
    browser: Any, daphne_url: str
) -> None:
    table = make_table("duyun")
    match_id = table.match.pk
    play_hand(match_id, random.Random(12))

    # Between hands the table page keeps hand 2's commitment and contributes to its wall.
    page = _page_as(browser, table.players[0], daphne_url)
    page.goto(f"{daphne_url}/rooms/{table.room.code}/play/")
    wait_until(page, f"!!(JSON.parse(localStorage.getItem('mj-fair:{match_id}:2')) || {{}}).mine")
    mine = _stored(page, match_id, 2, "mine")
    assert _stored(page, match_id, 2, "commitment") == table.match.next_hand["commitment"]
    deadline = time.monotonic() + 10
    while {"seat": 0, "value": mine} not in table.match.next_hand["contributions"]:
        assert time.monotonic() < deadline, "the contribution never reached the server"
        time.sleep(0.1)
    for player in table.players:
        services.match_act(match_id=match_id, user_id=player.pk, payload={"type": "ready_next"})
    assert table.match.stage == Match.Stage.HAND
    # The deal reaches the page (broadcast, or its version check): it keeps its tiles.
    wait_until(page, f"!!(JSON.parse(localStorage.getItem('mj-fair:{match_id}:2')) || {{}}).tiles")
    play_hand(match_id, random.Random(13))
    hand = Hand.objects.get(match_id=match_id, number=2)
    assert {"seat": 0, "value": mine} in hand.contributions

    replay_url = f"{daphne_url}/ledgers/hands/{hand.pk}/replay/"
    page.goto(replay_url)
    page.wait_for_selector("#verify-result[data-ok]")
    result = page.locator("#verify-result")
    assert result.get_attribute("data-stored") == "true"
    assert result.get_attribute("data-ok") == "true"
    assert "你提交的随机数在本局的列表中" in result.inner_text()
    assert page.locator("#verify-summary").inner_text() == "✔ 一致"

    # A server that rewrites the seed and its commitment together fools its own check of
    # the commitment, not the commitment this browser kept.
    seed, salt = secrets.token_hex(16), secrets.token_hex(16)
    Hand.objects.filter(pk=hand.pk).update(seed=seed, salt=salt,
                                           commitment=commitment_of(salt, seed))
    page.goto(replay_url)
    page.wait_for_selector("#verify-result[data-ok]")
    server_check = page.locator(".seed-check").inner_text()
    assert "服务器自查（只比较服务器自己的数据）：承诺✔ 一致" in server_check
    assert result.get_attribute("data-ok") == "false"
    assert page.locator("#verify-summary").inner_text() == "✘ 不一致"
    refused = result.locator("li[data-ok='false']").all_inner_texts()
    assert any("承诺不一致" in text for text in refused), refused
