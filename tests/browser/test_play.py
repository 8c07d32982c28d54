"""End to end: four browsers register, join a club room, ready up and play each variant
until a hand ends in a win, by clicking the UI only, against the real ``manage.py serve``
processes (daphne + Celery worker + embedded Redis) on a free port.

The server deals from a CSPRNG, so the four bots play to win: each reads its own hand from
its page (the ``data-tile`` of its own hand tiles only), discards by a shanten/ukeire
heuristic built on :mod:`majiang.analysis`-style counts, always clicks 胡, and declines
碰/杠. A hand that ends in 黄庄 is followed by 准备下一局 and another hand (at most
``MAX_HANDS``). The winning settlement shown is checked line by line against the ledger
rows the server posted for that hand (``apps.ledgers``: ``LedgerEntry``, ``HandResult``)
and the hand's stored settlement; for 都匀 the 翻鸡 reveal shows the turned tile first.
Along the way one player reloads mid-hand and sees the game resume, and a spectator's DOM
is checked for concealed tiles.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.bots import choose_discard

from .conftest import DESKTOP, PHONE, SCREENSHOTS, assert_fits, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.services]
ROOT = Path(__file__).resolve().parents[2]
NAME_SETS = [["张三", "李四", "王五", "赵六"], ["孙七", "周八", "吴九", "郑十"],
             ["钱一", "冯二", "陈三", "褚四"]]
"""Each table of a server gets its own players' names: shown names are unique."""
NAMES: dict[str, list[str]] = {}
"""The players' names of each room, by its code."""
PASSWORD = "mj-pass-2468"
MAX_HANDS = 5
SHOT_AT_WALL = {"duyun": 32, "zigong": 8}  # mid-hand screenshots: once the wall is this low


def register(page: Any, url: str, username: str, name: str) -> None:
    page.goto(f"{url}/accounts/register/")
    page.fill("#id_username", username)
    page.fill("#id_display_name", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("main form button[type=submit], main form button").last.click()
    page.wait_for_load_state()


def set_up_room(browser: Any, server: dict[str, Any], variant: str) -> tuple[list[Any], Any, str]:
    """Register four players and a spectator, make a club and a room, sit and ready."""
    url = server["url"]
    pages, code = lobby_pages(browser, server, variant, 5)
    for page in pages[:4]:
        page.locator("button:has-text('坐这里')").first.click()
        page.wait_for_selector(".seat.mine")
    for page in pages[:4]:
        page.locator("button:has-text('准备')").first.click()
    players = pages[:4]
    for page in players:
        # The lobby should move to the table when the match starts; go there if it does not.
        try:
            page.wait_for_url(f"**/rooms/{code}/play/", timeout=5000)
        except Exception:
            page.goto(f"{url}/rooms/{code}/play/")
    spectator = pages[4]
    spectator.goto(f"{url}/rooms/{code}/play/")
    return players, spectator, code


def lobby_pages(browser: Any, server: dict[str, Any], variant: str,
                count: int) -> tuple[list[Any], str]:
    """Register ``count`` users (the first owns a new club, the others join it), make a
    room of ``variant`` and open its lobby on every page; return the pages and the code."""
    url = server["url"]
    tag = f"{variant[:2]}{int(time.time() * 1000) % 10_000_000}"
    pages = []
    names = NAME_SETS[len(NAMES) % len(NAME_SETS)]
    for i in range(count):
        ctx = browser.new_context(viewport=PHONE if i == 0 else DESKTOP, locale="zh-CN")
        page = ctx.new_page()
        register(page, url, f"{tag}u{i}", names[i] if i < 4 else f"观众{len(NAMES)}")
        pages.append(page)
    owner = pages[0]
    owner.goto(f"{url}/clubs/")
    owner.fill("#id_create-name", f"测试圈{tag}")
    owner.locator("form:has(#id_create-name) button").click()
    owner.wait_for_url("**/clubs/*/")
    club_url = owner.url
    invite = owner.locator(".code").first.inner_text().strip()
    for page in pages[1:]:
        page.goto(f"{url}/clubs/")
        page.fill("#id_join-invite_code", invite)
        page.locator("form:has(#id_join-invite_code) button").click()
        page.wait_for_load_state()
    owner.goto(club_url)
    while owner.locator("button:has-text('通过')").count():
        owner.locator("button:has-text('通过')").first.click()
        owner.wait_for_load_state()
    owner.locator("a:has-text('自定义开房')").click()
    owner.wait_for_load_state()
    tab = owner.locator(f"nav.tabs a[href='?variant={variant}']")
    if tab.count():
        tab.click()
        owner.wait_for_load_state()
    owner.locator("form.card button[type=submit]").click()
    owner.wait_for_url("**/rooms/*/")
    lobby = owner.url
    code = lobby.rstrip("/").rsplit("/", 1)[-1]
    for page in pages[1:]:
        page.goto(club_url)
        page.locator(f"a[href='/rooms/{code}/']").click()
        page.wait_for_url(f"**/rooms/{code}/")
    NAMES[code] = names
    return pages, code


def settlement_open(page: Any) -> bool:
    return page.locator("#settlement").count() > 0



STATE_JS = """() => ({
    phase: document.body.dataset.phase,
    fanji: document.querySelector('#fanji .fanji-tile .tile')?.dataset.tile || null,
    wall: window.mjTable.view.observation?.wall_remaining ?? 99,
    settlement: !!document.querySelector('#settlement'),
    win: !!document.querySelector('#actions .act-win'),
    pass: !!document.querySelector('#actions .act-pass'),
    hand: [...document.querySelectorAll('#my-hand .tile')].map(e => e.dataset.tile),
    playable: [...document.querySelectorAll('#my-hand .tile.playable')].map(e => e.dataset.tile),
})"""


def bot_step(page: Any, state: dict[str, Any]) -> bool:
    """Click one thing a player trying to win would: 胡, else 过 (no 碰/杠, no 报听), else
    the heuristic's discard. ``state`` is what :data:`STATE_JS` read from the page."""
    if state["win"]:
        selector = "#actions .act-win"
    elif state["pass"]:
        selector = "#actions .act-pass"
    elif state["playable"]:
        tile = choose_discard(state["hand"], state["playable"])
        selector = f'#my-hand .tile.playable[data-tile="{tile}"] >> nth=-1'
    else:
        return False
    try:
        page.locator(selector).first.click(timeout=1500)
    except Exception:
        return False
    return True


def assert_spectator_clean(spectator: Any) -> None:
    """Before the end, every face-up tile on a spectator's page is a public one: rivers,
    melds, 萝卜, and the hands of seats that have won (laid open, as in 血战到底)."""
    seen = spectator.evaluate(
        """() => {
            const obs = window.mjTable.view.observation;
            if (!obs || obs.phase === "ended") return null;
            const won = obs.seats.filter(s => s.won).map(s => s.seat);
            const stray = [...document.querySelectorAll('[data-tile]')]
                .filter(e => !e.closest('.river, .meld, .luobo, .win-note, .compass'))
                .filter(e => !won.includes(+e.closest('.seat-panel')?.dataset.seat))
                .map(e => e.dataset.tile);
            return {obs, stray, html: document.body.innerHTML.includes("hand-tile")};
        }"""
    )
    if seen is None:
        return
    obs = seen["obs"]
    assert "me" not in obs
    assert all("concealed" not in s for s in obs["seats"] if not s["won"])
    assert seen["stray"] == []
    assert not seen["html"]


def last_hand(db: Path, code: str) -> tuple[int, dict[str, Any]]:
    """The id and stored settlement of the room's latest settled hand."""
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT h.id, h.settlement FROM matches_hand h JOIN matches_match m"
            " ON h.match_id = m.id JOIN clubs_room r ON m.room_id = r.id"
            " WHERE r.code = ? AND h.settlement IS NOT NULL ORDER BY h.id DESC LIMIT 1",
            (code,),
        ).fetchone()
    assert row is not None, "the hand has no stored settlement"
    return int(row[0]), json.loads(row[1])


def ledger_of(db: Path, hand_id: int) -> tuple[list[list[Any]], list[tuple[int, int, bool]]]:
    """The ledger rows the server posted for a hand: its settlement lines in order
    (payer seat, payee seat, category, points), checked for amount = points × 底注, and
    each seat's (seat, points, won)."""
    with sqlite3.connect(db) as conn:
        entries = conn.execute(
            "SELECT payer_seat, payee_seat, category, points, amount, base_stake, kind"
            " FROM ledgers_ledgerentry WHERE hand_id = ? ORDER BY line_no",
            (hand_id,),
        ).fetchall()
        results = conn.execute(
            "SELECT seat, points, won FROM ledgers_handresult WHERE hand_id = ? ORDER BY seat",
            (hand_id,),
        ).fetchall()
    for payer, payee, _category, points, amount, stake, kind in entries:
        assert kind == "settlement" and amount == points * stake and payer != payee
    return (
        [[payer, payee, category, points] for payer, payee, category, points, *_ in entries],
        [(seat, points, bool(won)) for seat, points, won in results],
    )


def shown_settlement(page: Any) -> dict[str, Any]:
    """What the settlement dialogue shows: its lines, totals and winners."""
    return page.evaluate(
        """() => ({
            lines: [...document.querySelectorAll('#settlement-lines li:not(.void)')].map(e =>
                [+e.dataset.payer, +e.dataset.payee, e.dataset.category, +e.dataset.points]),
            words: [...document.querySelectorAll('#settlement-lines li:not(.void)')]
                .map(e => e.textContent),
            totals: [...document.querySelectorAll('#settlement table.players td.total')]
                .map(e => +e.dataset.total),
            subtotals: [...document.querySelectorAll('#settlement-subtotals td.sub-total')]
                .map(e => +e.dataset.value),
            won: [...document.querySelectorAll('#settlement table.players tbody tr')]
                .map(e => e.querySelector('td.won').textContent.startsWith('胡')),
            text: document.querySelector('#settlement').innerText,
        })"""
    )


def reload_mid_hand(page: Any) -> None:
    """A reload mid-hand: the page comes back with the same hand and version."""
    before = page.eval_on_selector_all(
        "#my-hand .tile", "els => els.map(e => e.dataset.tile).sort()"
    )
    v_before = int(page.evaluate("document.body.dataset.version") or 0)
    page.reload()
    wait_until(page, f"+document.body.dataset.version >= {v_before}", timeout=20000)
    # A seat that has already won (自贡 血战) shows its hand as a won one, not #my-hand.
    page.wait_for_selector(".my-hand .tile, #settlement", timeout=20000)
    after = page.eval_on_selector_all(
        "#my-hand .tile", "els => els.map(e => e.dataset.tile).sort()"
    )
    if int(page.evaluate("document.body.dataset.version")) == v_before:
        assert after == before
    assert page.locator("#reconnect-banner").is_hidden()


def play_one_hand(
    players: list[Any], spectator: Any, first: bool, variant: str, shot: dict[str, Any]
) -> set[str]:
    """Click through one hand until every page shows the settlement; returns the tiles the
    翻鸡 reveal showed (the dialogue is up for its few seconds before the settlement).
    Mid-hand screenshots go into ``shot`` as the wall shrinks, until it is low enough."""
    steps = 0
    reloaded = not first
    fanji: set[str] = set()
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, "the hand did not finish in time"
        states = [page.evaluate(STATE_JS) for page in players]
        fanji |= {st["fanji"] for st in states if st["fanji"]}
        if all(st["settlement"] for st in states):
            return fanji
        acted = False
        for page, st in zip(players, states, strict=True):
            if st["phase"] != "ended":
                v = page.evaluate("document.body.dataset.version")
                if bot_step(page, st):
                    acted = True
                    # Wait for the answer, so that nothing is clicked twice.
                    with contextlib.suppress(Exception):
                        wait_until(
                            page, f"document.body.dataset.version !== {json.dumps(v)}", timeout=3000
                        )
        steps += 1
        if steps % 10 == 0:
            assert_spectator_clean(spectator)
        live = all(st["phase"] not in ("ended", "none") for st in states)
        wall = states[0]["wall"]
        if live and not shot.get("done") and wall <= shot.get("wall", 99) - 6:
            # Keep the latest mid-hand view; stop once the rivers are full enough.
            shot.update(
                wall=wall,
                done=wall <= SHOT_AT_WALL[variant],
                phone=players[0].screenshot(),
                desktop=players[1].screenshot(),
            )
        if not reloaded and steps >= 12 and live:
            reloaded = True
            reload_mid_hand(players[1])
        if not acted:
            time.sleep(0.1)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("variant", ["duyun", "zigong"])
def test_four_players_play_until_a_hand_is_won(browser, server, variant):
    players, spectator, code = set_up_room(browser, server, variant)
    for page in players:
        page.wait_for_selector("#my-hand .tile", timeout=20000)
    spectator.wait_for_selector(".river", state="attached", timeout=20000)
    shot: dict[str, Any] = {}
    for number in range(1, MAX_HANDS + 1):
        fanji = play_one_hand(players, spectator, number == 1, variant, shot)
        hand_id, stored = last_hand(server["db"], code)
        lines, results = ledger_of(server["db"], hand_id)
        # The stored settlement is the one the ledger posted, and the one every page shows.
        assert lines == [[ln["payer"], ln["payee"], ln["category"], ln["points"]]
                         for ln in stored["lines"]]
        assert [points for _, points, _ in results] == stored["totals"]
        for page in players:
            shown = shown_settlement(page)
            # Each line once, grouped under the player it concerns; the subtotals by kind add
            # up to what the ledger booked.
            assert sorted(shown["lines"]) == sorted(lines)
            assert shown["totals"] == [points for _, points, _ in results]
            assert shown["subtotals"] == [points for _, points, _ in results]
            assert shown["won"] == [won for _, _, won in results]
            for payer, payee, _category, points in lines:
                assert any(w.startswith(NAMES[code][payer]) and f"付 {NAMES[code][payee]} " in w
                           and f"{points}分" in w for w in shown["words"])
            assert "→" not in shown["text"]
        if variant == "duyun" and stored["summary"].get("fanji"):
            # 翻鸡: the turned tile was shown (for a few seconds) before the settlement.
            assert fanji == {stored["summary"]["fanji"]}
            assert players[0].get_attribute(
                "#settlement .summary .fanji .tile", "data-tile"
            ) == stored["summary"]["fanji"]
        if any(won for _, _, won in results) and (
            # 都匀: a win on the wall's last tile turns no 鸡; play on (a little) for the reveal.
            variant != "duyun" or stored["summary"].get("fanji") or number >= 3
        ):
            break
        # 黄庄: everyone clicks 准备下一局 and the next hand is dealt.
        assert number < MAX_HANDS, f"no hand was won in {MAX_HANDS} hands"
        for page in players:
            page.click("#settlement .act-ready")
        for page in players:
            page.wait_for_selector("#settlement", state="detached", timeout=30000)
            page.wait_for_selector("#my-hand .tile", timeout=20000)
    winners = [seat for seat, _, won in results if won]
    text = players[0].inner_text("#settlement")
    assert "胡" in players[0].inner_text("#settlement .summary .result")
    if variant == "zigong":
        assert "鸡" not in players[0].inner_text("#settlement table.players thead")
        for seat in winners:
            row = f'#settlement table.players tbody tr[data-seat="{seat}"]'
            assert players[0].locator(f"{row} td.win-tile .tile").count() == 1
            assert players[0].inner_text(f"{row} td.fan").strip() != "—"
    else:
        assert "鸡" in players[0].inner_text("#settlement table.players thead")
    # Every seat's final hand is laid open in the dialogue.
    hands = players[0].eval_on_selector_all(
        "#final-hands li", "els => els.map(e => e.querySelectorAll('.tile').length)"
    )
    assert len(hands) == 4 and all(n >= 13 for n in hands)
    assert NAMES[code][winners[0]] in text
    assert_fits(players[0], "#settlement")  # the phone: the dialogue scrolls, nothing spills
    (SCREENSHOTS / f"{variant}-table-phone.png").write_bytes(shot["phone"])
    (SCREENSHOTS / f"{variant}-table-desktop.png").write_bytes(shot["desktop"])
    players[0].screenshot(path=str(SCREENSHOTS / f"{variant}-settlement-phone.png"))
    players[1].screenshot(path=str(SCREENSHOTS / f"{variant}-settlement-desktop.png"))
    for page in players:
        page.context.close()
    spectator.context.close()


def test_the_lobby_keeps_a_players_buttons_while_others_sit_and_get_ready(browser, server):
    """A lobby update (another player sitting down or getting ready) must not swap the
    buttons under a click that is landing on them: it once lost a player's 准备."""
    first, second = lobby_pages(browser, server, "duyun", 2)[0]
    first.locator("button:has-text('坐这里')").first.click()
    first.wait_for_selector(".seat.mine")
    ready = first.locator("button:has-text('准备')").first.element_handle()
    second.locator("button:has-text('坐这里')").first.click()
    second.wait_for_selector(".seat.mine")
    second.locator("button:has-text('准备')").first.click()
    # Both updates have reached the first page: two seats taken, one of them ready.
    wait_until(
        first, "document.querySelectorAll('.seat.taken').length === 2"
        " && document.querySelectorAll('.badge.ready').length === 1"
    )
    assert ready.evaluate("button => button.isConnected")
    ready.click()
    wait_until(first, "document.querySelectorAll('.badge.ready').length === 2")
