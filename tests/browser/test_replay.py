"""战绩回放 in a real browser: the replay of a finished hand ends on the same final tiles
and settlement lines as the live table showed, and its in-browser seed check passes; a seed
rewritten after the hand is caught by what the player's browser kept at the table; on a
phone and a desktop it plays itself to the end at 4×, every step in the words of the log
(names and tile names, each draw and discard the log holds), from any seat's point of
view; a 碰 that a 胡 overrode is shown as void.

Hands are played through the matches app's services into the test database (random legal
moves, a winning-minded policy, or a chosen deal); a daphne subprocess serves that
database; Debian's Chromium (the ``browser`` fixture of this directory) opens the live
table as a spectating club member, then the replay as a player.
"""

from __future__ import annotations

import random
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.words import tile_name
from apps.matches import services
from apps.matches.frames import view_version
from apps.matches.lifecycle import commitment_of
from apps.matches.models import Hand, Match, MatchEvent, MatchPlayer
from majiang.record import replay
from majiang.round import Round
from majiang.scenario import wall_for
from tests.support import factories
from tests.support.factories import NAMES
from tests.support.play import act, play_hand, random_policy, winning_policy

from .conftest import DESKTOP, PHONE, SCREENSHOTS, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def _page_as(browser: Any, user: User, url: str, viewport: dict[str, int] | None = None) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        viewport=viewport or {"width": 1280, "height": 900}, locale="zh-CN",
        has_touch=viewport == PHONE, is_mobile=viewport == PHONE,
    )
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": url,
    }])
    return context.new_page()


def test_the_replay_ends_where_the_live_table_did(browser: Any, daphne_url: str) -> None:
    table = factories.table("duyun")
    play_hand(table.match, random_policy(random.Random(11)))
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

    # 洗牌公证 opens collapsed on one plain sentence; the details are below it (issue 47).
    card = page.locator("#seed-check")
    assert card.get_attribute("open") is None
    assert "服务器和任何一位玩家都不能单独改动牌墙" in card.inner_text()
    page.click("#seed-check summary")
    page.click("#verify")
    page.wait_for_selector("#verify-result[data-ok]")
    assert page.locator("#verify-result").get_attribute("data-ok") == "true"
    # This browser never sat at the table: the page says it can only compare the server's
    # data with itself.
    assert page.locator("#verify-result").get_attribute("data-stored") == "false"
    assert "本浏览器没有这一局的记录" in page.locator("#verify-result").inner_text()
    summary = page.locator("#verify-summary").inner_text()
    assert summary == "无本机记录（只能与服务器自己的数据对照）"


def _stored(page: Any, match_id: int, hand: int, field: str) -> Any:
    return page.evaluate(
        "([key, field]) => (JSON.parse(localStorage.getItem(key)) || {})[field] ?? null",
        [f"mj-fair:{match_id}:{hand}", field],
    )


def test_a_seed_rewritten_after_the_hand_is_caught_by_the_browser(
    browser: Any, daphne_url: str
) -> None:
    table = factories.table("duyun")
    match_id = table.match.pk
    play_hand(table.match, random_policy(random.Random(12)))

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
    play_hand(table.match, random_policy(random.Random(13)))
    hand = Hand.objects.get(match_id=match_id, number=2)
    assert {"seat": 0, "value": mine} in hand.contributions

    replay_url = f"{daphne_url}/ledgers/hands/{hand.pk}/replay/"
    page.goto(replay_url)
    page.click("#seed-check summary")
    page.wait_for_selector("#verify-result[data-ok]")
    result = page.locator("#verify-result")
    assert result.get_attribute("data-stored") == "true"
    assert result.get_attribute("data-ok") == "true"
    assert "你提交的随机数在本局的列表中" in result.inner_text()
    assert page.locator("#verify-summary").inner_text() == (
        "✔ 一致：承诺是本浏览器开局前记下的；牌墙由种子和 1 个座位的随机数共同决定"
    )

    # A server that rewrites the seed and its commitment together fools its own check of
    # the commitment, not the commitment this browser kept.
    seed, salt = secrets.token_hex(16), secrets.token_hex(16)
    Hand.objects.filter(pk=hand.pk).update(seed=seed, salt=salt,
                                           commitment=commitment_of(salt, seed))
    page.goto(replay_url)
    page.wait_for_selector("#verify-result[data-ok]")
    # A mismatch opens the card and says so in its first sentence.
    assert page.locator("#seed-check").get_attribute("open") is not None
    server_check = page.locator(".seed-check").inner_text()
    assert "这一局的牌墙可能被改动过" in server_check
    assert "服务器自查（只比较服务器自己的数据）：承诺✔ 一致" in server_check
    assert result.get_attribute("data-ok") == "false"
    assert page.locator("#verify-summary").inner_text() == "✘ 不一致"
    refused = result.locator("li[data-ok='false']").all_inner_texts()
    assert any("承诺不一致" in text for text in refused), refused


RAW = re.compile(r"(?<![0-9A-Za-z])[1-9][msp](?![0-9A-Za-z])|\b[DZ]\d+a?\b|duyun|zigong")
VERBS = {
    "discard": ("打出",), "pung": ("碰",), "kong": ("杠", "暗杠", "补杠"),
    "win": ("胡", "自摸", "抢杠胡"), "declare": ("报听", "报叫", "报杠", "不报杠"),
    "pass": ("不碰", "不杠", "不胡", "不抢杠", "不报叫"),
}
# The log's events that a step says in words, and the words it uses.
EVENT_WORDS = {"draw": ("摸牌", "杠后补牌"), "discard": ("打出", "自动打出"), "win": VERBS["win"]}
WORDS = """(li) => {
    const copy = li.cloneNode(true);  // the words without the tile pictures' own glyphs
    copy.querySelectorAll(".tile").forEach((t) => t.remove());
    return copy.textContent;
}"""
SEEN = """() => {
    const words = """ + WORDS + """;
    const root = document.getElementById("replay");
    window.__seen = [];
    new MutationObserver(() => {
        const step = Number(root.dataset.step);
        const seen = window.__seen;
        if (seen.length && seen[seen.length - 1].step === step) return;
        seen.push({
            step,
            moves: [...document.querySelectorAll("#step-moves li")].map(words),
            tiles: [...document.querySelectorAll("#step-moves li")].map((li) =>
                [...li.querySelectorAll("[data-tile]")].map((t) => t.dataset.tile)),
        });
    }).observe(root, { attributes: true, attributeFilter: ["data-step"] });
}"""


def _said(text: str) -> str:
    """Shown words with their spacing evened out (a tile's name sits in its own box)."""
    return re.sub(r" (?=[（，])", "", " ".join(text.split()))


def _steps_of_log(hand: Hand) -> list[list[dict[str, Any]]]:
    """The hand's logged actions, grouped as the replay shows them: each action that is no
    pass with the passes after it, after step 0 (the deal). Each entry: the action and its
    events in full."""
    rows = MatchEvent.objects.filter(hand=hand, kind=MatchEvent.Kind.ACTION).order_by("seq")
    steps: list[list[dict[str, Any]]] = [[]]  # step 0, the deal (and 自贡's 报叫 window)
    for row in rows:
        entry = {
            "action": row.payload["action"],
            "events": [e.get("full", e["public"]) for e in row.payload["events"]],
        }
        if entry["action"]["type"] == "pass":
            steps[-1].append(entry)
        else:
            steps.append([entry])
    return steps


def _check_step(moves: list[str], tiles: list[list[str]], logged: list[dict[str, Any]]) -> None:
    """A shown step says what its logged actions and their events say: who did what with
    which tile, each draw and discard with its tile, and no tile code."""
    said = [_said(m) for m in moves]
    for text in said:
        assert not RAW.search(text), text
    main = logged[0]["action"]
    name = NAMES[main["seat"]]
    assert said[0].startswith(f"{name} "), (said[0], main)
    assert any(f" {verb}" in said[0] for verb in VERBS[main["type"]]), (said[0], main)
    if "tile" in main:
        assert tile_name(main["tile"]) in said[0] and main["tile"] in tiles[0], (said[0], main)
    for entry in logged[1:]:  # the passes joined to this step, each said
        passer = NAMES[entry["action"]["seat"]]
        assert any(t.startswith(f"{passer} 不") for t in said[1:]), (said, entry)
    events = [e for entry in logged for e in entry["events"]]
    for event in events:
        words = EVENT_WORDS.get(event["type"])
        if words is None or event.get("seat") is None or "tile" not in event:
            continue
        who, tile = NAMES[event["seat"]], tile_name(event["tile"])
        assert any(
            t.startswith(f"{who} ") and any(f" {w} {tile}" in t for w in words) for t in said
        ), (said, event)


def _check_board(page: Any, final: Round, seat: int) -> None:
    """Seat ``seat`` sits at the bottom with its own final tiles; the others are open."""
    bottom = page.locator(".replay-seat.pos-bottom")
    assert bottom.get_attribute("data-seat") == str(seat)
    shown = sorted(bottom.locator(".hand [data-tile]").evaluate_all(
        "els => els.map(e => e.dataset.tile)"))
    assert shown == sorted(t.code for t in final.seats[seat].concealed())
    picked = page.locator(f"#seat-picker [data-seat='{seat}']")
    assert picked.get_attribute("aria-checked") == "true"


def _won_hand(variant: str) -> tuple[Any, Hand]:
    """A table whose first hand was won (a winning-minded policy; a rare 黄庄 is played
    again at a new table)."""
    for attempt in range(6):
        table = factories.table(variant)
        play_hand(table.match, winning_policy(random.Random(attempt)))
        hand = Hand.objects.get(match=table.match, number=1)
        if replay(hand.record).wins:
            return table, hand
    raise AssertionError("six hands without a win")


@pytest.mark.parametrize(("size", "variant"), [("phone", "zigong"), ("desktop", "duyun")])
def test_a_replay_plays_itself_to_the_end_in_the_words_of_the_log(
    browser: Any, daphne_url: str, size: str, variant: str
) -> None:
    viewport = PHONE if size == "phone" else DESKTOP
    table, hand = _won_hand(variant)
    final = replay(hand.record)
    logged = _steps_of_log(hand)
    last = len(logged) - 1

    page = _page_as(browser, table.players[1], daphne_url, viewport)
    page.goto(f"{daphne_url}/ledgers/hands/{hand.pk}/replay/")
    page.wait_for_selector("#replay[data-ready='true']")
    assert page.locator("#replay").get_attribute("data-steps") == str(last)
    assert page.locator("#step-label").inner_text() == f"第 0 / {last} 步"
    # 李四 opened it: his seat is the first point of view.
    assert page.locator(".replay-seat.pos-bottom").get_attribute("data-seat") == "1"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    if size == "phone":  # every control is a large tap target
        boxes = page.locator(".replay-controls button, #seat-picker button").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])")
        assert boxes and all(w >= 40 and h >= 40 for w, h in boxes), boxes
    # The buttons are drawn as SVG, never as glyphs a font may lack.
    for name in ("first", "prev", "next", "last"):
        button = page.locator(f".transport [data-step='{name}']")
        assert button.locator("svg path").count() >= 1 and button.inner_text().strip() == ""

    page.evaluate(SEEN)
    page.click("[data-speed='4']")
    assert page.locator("#replay").get_attribute("data-speed") == "4"
    page.click("#play")
    assert page.locator("#replay").get_attribute("data-playing") == "true"
    wait_until(
        page,
        "document.getElementById('replay').dataset.playing === 'false'",
        timeout=last * 300 + 20_000,
    )
    seen = page.evaluate("window.__seen")
    assert [s["step"] for s in seen] == list(range(1, last + 1))
    for shown, steps in zip(seen, logged[1:], strict=True):
        _check_step(shown["moves"], shown["tiles"], steps)
    # The end: the settlement, under the player each line concerns, as stored.
    assert page.locator("#settlement").is_visible()
    lines = page.locator("#settlement #settlement-lines li:not(.void)").all_inner_texts()
    assert len(lines) == len(hand.settlement["lines"])
    for text in lines:
        assert not RAW.search(text), text
    for win in final.wins:
        winner = page.locator(f".replay-seat[data-seat='{win.seat}']")
        assert winner.locator(f".winning[data-tile='{win.tile.code}']").count() == 1
    if size == "phone":  # the step's words, the bottom seat and the settlement's start
        page.locator(".replay-center").evaluate("e => e.scrollIntoView()")
    page.screenshot(path=str(SCREENSHOTS / f"replay-end-{size}.png"), full_page=size == "desktop")

    # Any seat's point of view: its tiles come to the bottom, the others stay open.
    for seat in (2, 0, 3):
        page.click(f"#seat-picker [data-seat='{seat}']")
        _check_board(page, final, seat)
        others = page.locator(".replay-seat:not(.pos-bottom) .hand .tile:not(.back)").count()
        assert others == sum(len(final.seats[s].concealed()) for s in range(4) if s != seat)
    page.uncheck("#open-hands")  # 明牌 off: only the chosen seat's tiles face up
    # (a winning tile stays face up: the win showed it to everyone)
    hidden = page.locator(".replay-seat:not(.pos-bottom) .hand [data-tile]:not(.winning)")
    assert hidden.count() == 0
    page.check("#open-hands")

    # Stepping by hand (keys on a desktop).
    if size == "desktop":
        page.click("[data-speed='0.5']")  # 2.4 s a step: nothing moves between two keys
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("Home")
        assert page.locator("#replay").get_attribute("data-step") == "0"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert page.locator("#replay").get_attribute("data-step") == "2"
        page.keyboard.press("ArrowLeft")
        assert page.locator("#replay").get_attribute("data-step") == "1"
        page.keyboard.press(" ")
        assert page.locator("#replay").get_attribute("data-playing") == "true"
        page.keyboard.press(" ")
        assert page.locator("#replay").get_attribute("data-playing") == "false"
        # Space on a focused button plays or pauses too, and does not press that button.
        page.focus("[data-step='next']")
        page.keyboard.press(" ")
        assert page.locator("#replay").get_attribute("data-playing") == "true"
        page.keyboard.press(" ")
        assert page.locator("#replay").get_attribute("data-playing") == "false"
        assert page.locator("#replay").get_attribute("data-step") == "1"
    page.click("[data-step='first']")
    page.click("[data-step='next']")
    page.click("[data-step='next']")
    page.click("[data-step='prev']")
    assert page.locator("#replay").get_attribute("data-step") == "1"
    page.click("[data-step='last']")
    assert page.locator("#replay").get_attribute("data-step") == str(last)
    # A mid-hand picture: the step with the most melds on the table before the end.
    page.fill("#step-range", str(max(1, last * 2 // 3)))
    page.dispatch_event("#step-range", "input")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / f"replay-{size}.png"))


# A deal in which the dealer's first discard, 五筒, can be 碰'd by its 下家 and won by the
# seat opposite (七对): the 碰 is decided first and the 胡 overrides it. By seat after the
# dealer; the dealer holds 14 tiles.
OVERRIDE_HANDS = (
    "5p1m9m3s7s8s9p9p2p3p7m8m6s6p",
    "55p2m3m6m9s8p7p1s2s5s4m5m",
    "1133m66m2277s99s5p",
    "4m4m7m8s8s3p4p4p1p1p2m5s6s",
)


@contextmanager
def dealt(hands: tuple[str, ...]) -> Iterator[None]:
    """Every hand dealt from a seed is dealt ``hands`` instead (from the dealer on), from
    an explicit wall, which the hand's record then holds."""
    original = Round.deal.__func__  # type: ignore[attr-defined]

    def deal(cls: type[Round], variant: Any, settings: Any = None, **kw: Any) -> Any:
        if kw.get("wall") is None:
            checked = variant.schema.validate(settings)
            dealer, n = kw.get("dealer", 0), len(hands)
            kw["wall"] = wall_for(
                variant.tile_kinds(checked), dealer=dealer,
                hands=[hands[(s - dealer) % n] for s in range(n)],
            )
            kw["seed"] = None
        return original(cls, variant, settings, **kw)

    with mock.patch.object(Round, "deal", classmethod(deal)):
        yield


def test_a_pung_that_a_win_overrode_is_shown_void(browser: Any, daphne_url: str) -> None:
    with dealt(OVERRIDE_HANDS):
        table = factories.table("duyun")
        match = table.match
        users = {p.seat: p.user_id for p in MatchPlayer.objects.filter(match=match)}
        d = match.dealer
        for seat, payload in (
            (d, {"type": "discard", "tile": "5p"}),
            ((d + 1) % 4, {"type": "pung", "tile": "5p"}),
            ((d + 2) % 4, {"type": "win"}),
        ):
            match.refresh_from_db()
            act(match, users[seat], {**payload, "v": view_version(match.views, seat)})
    hand = Hand.objects.get(match=match, number=1)
    assert [w.seat for w in replay(hand.record).wins] == [(d + 2) % 4]
    pung, winner = NAMES[(d + 1) % 4], NAMES[(d + 2) % 4]

    page = _page_as(browser, table.players[0], daphne_url, PHONE)
    page.goto(f"{daphne_url}/ledgers/hands/{hand.pk}/replay/")
    page.wait_for_selector("#replay[data-ready='true']")
    page.click("[data-step='next']")
    page.click("[data-step='next']")
    main = page.locator("#step-moves li.main")
    assert "void" in (main.get_attribute("class") or "")
    assert main.get_attribute("data-effective") == "false"
    assert _said(main.evaluate(WORDS)) == f"{pung} 碰 五筒（被{winner}胡抢先，未生效）"
    for part in (".said", ".tile-name"):
        struck = main.locator(part).evaluate("e => getComputedStyle(e).textDecorationLine")
        assert struck == "line-through", part
    listed = page.locator("#step-list li[data-step='2']").get_attribute("class") or ""
    assert "void" in listed.split()
    page.click("[data-step='next']")
    won = page.locator("#step-moves li.main").evaluate(WORDS)
    assert _said(won).startswith(f"{winner} 胡 五筒")
    # The 碰 never happened: no meld on the board at the end.
    assert page.locator(f".replay-seat[data-seat='{(d + 1) % 4}'] .meld").count() == 0
    page.click("[data-step='prev']")
    page.screenshot(path=str(SCREENSHOTS / "replay-void-phone.png"))
    # Every step is listed; a tap on one goes there.
    page.click(".step-list-box summary")
    assert page.locator("#step-list li").count() == 4
    page.click("#step-list li[data-step='1'] button")
    assert page.locator("#replay").get_attribute("data-step") == "1"
