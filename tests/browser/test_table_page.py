"""The table page against a stand-in socket (``fake_table``): rendering, hints, dialogues.

The page is served by Django (pytest-django's ``live_server``); the table socket is
answered in-process by :class:`FakeTable`, which runs a real ``majiang`` round.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.test import Client

from majiang import Action, ActionType, Round, Tile, get_variant
from majiang.scenario import deal_scenario
from majiang.tiles import parse_tile

from .conftest import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    assert_fits,
    assert_no_sideways_scroll,
    wait_until,
)
from .fake_table import NAMES, WS_PATTERN, FakeTable

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def room() -> dict[str, Any]:
    """A club room with four seated players; returns the room code and the users."""
    from apps.accounts.models import User
    from apps.clubs.models import Club, Membership, Room, RoomSeat

    users = [
        User.objects.create_user(f"p{i}", password="pw-12345678", display_name=NAMES[i])
        for i in range(4)
    ]
    watcher = User.objects.create_user("watcher", password="pw-12345678", display_name="观众")
    club = Club.objects.create(name="测试圈", invite_code="TESTCODE")
    for i, user in enumerate([*users, watcher]):
        Membership.objects.create(club=club, user=user, role="owner" if i == 0 else "member")
    variant = get_variant("duyun")
    room = Room.objects.create(
        club=club,
        code="123456",
        variant="duyun",
        settings=variant.schema.validate({}),
        created_by=users[0],
    )
    for i, user in enumerate(users):
        RoomSeat.objects.create(room=room, seat=i, user=user, ready=True)
    return {"code": room.code, "users": users, "watcher": watcher}


def open_page(
    browser: Any,
    live_server: Any,
    user: Any,
    table: FakeTable,
    viewer: int | None,
    *,
    size: dict[str, int] = PHONE,
    code: str = "123456",
    clock: bool = False,
) -> Any:
    """The table page of ``user`` as ``viewer``, answered by ``table``; with ``clock``, the
    page's timers run on Playwright's clock, which the test moves."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=size, locale="zh-CN")
    context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    if clock:
        page.clock.install()
    table.attach(page, viewer)
    page.goto(f"{live_server.url}/rooms/{code}/play/")
    return page


def duyun_round(seed: str = "s6") -> Round:
    variant = get_variant("duyun")
    rnd, _ = Round.deal(variant, variant.schema.validate({}), dealer=0, streak=1, seed=seed)
    return rnd


def test_hand_sorted_with_drawn_tile_apart_and_tiles_labelled(browser, live_server, room):
    table = FakeTable(duyun_round())
    table.play_until(
        lambda r: sum(len(s.river) for s in r.seats) >= 14 and r.turn == 0 and r.window is None
    )
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.wait_for_selector("#my-hand .tile")
    obs = table.rnd.observation(0)
    codes = page.eval_on_selector_all(
        "#my-hand .tile:not(.drawn)", "els => els.map(e => e.dataset.tile)"
    )
    assert codes == obs["me"]["hand"]
    order = {"m": 0, "s": 1, "p": 2}
    assert codes == sorted(codes, key=lambda c: (order[c[1]], c[0]))
    drawn = page.eval_on_selector_all("#my-hand .tile.drawn", "els => els.map(e => e.dataset.tile)")
    assert drawn == ([obs["me"]["drawn"]] if obs["me"]["drawn"] else [])
    label = page.get_attribute("#my-hand .tile >> nth=0", "aria-label")
    assert label and re.fullmatch(r"[一二三四五六七八九][万条筒]|幺鸡", label)
    # Every seat's river and hand size are on screen; the countdown ticks.
    for seat in range(4):
        rivers = page.eval_on_selector_all(
            f'.river[data-seat="{seat}"] .tile', "els => els.map(e => e.dataset.tile)"
        )
        assert rivers == [r["tile"] for r in obs["seats"][seat]["river"]]
    assert page.inner_text("#countdown").strip().isdigit()
    assert "余" in page.inner_text(".compass .wall")
    page.screenshot(path=str(SCREENSHOTS / "table-phone.png"))
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(SCREENSHOTS / "table-desktop.png"))


def test_discard_by_tapping_a_tile(browser, live_server, room):
    table = FakeTable(duyun_round())
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.wait_for_selector("#my-hand .tile.playable")
    before = len(table.rnd.seats[0].river)
    page.click("#my-hand .tile.playable >> nth=-1")
    wait_until(
        page, f"document.querySelectorAll('.river[data-seat=\"0\"] .tile').length > {before}"
    )
    assert len(table.rnd.seats[0].river) == before + 1


def test_spectator_page_never_holds_concealed_tiles(browser, live_server, room):
    table = FakeTable(duyun_round())
    table.play_until(lambda r: sum(len(s.river) for s in r.seats) >= 10)
    page = open_page(browser, live_server, room["watcher"], table, None)
    page.wait_for_selector(".river .tile")
    faces = page.eval_on_selector_all("[data-tile]", "els => els.map(e => e.dataset.tile)")
    public = [r["tile"] for s in table.rnd.observation(None)["seats"] for r in s["river"]]
    public += [m["tile"] for s in table.rnd.observation(None)["seats"] for m in s["melds"]]
    assert sorted(faces) == sorted(public)
    html = page.content()
    assert "hand-tile" not in html


def test_waiting_hints_count_unseen_copies(browser, live_server, room):
    # The dealer discards 9p and is ready on 1m/4m/7m; seat 1 holds three 1m, concealed.
    variant = get_variant("duyun")
    rnd, _ = deal_scenario(
        variant,
        {},
        dealer=0,
        hands=[
            "23m456m789m111s22p9p",
            "1m1m1m4m5p6p7p8p3s4s5s6s7s",
            "2s3s4s5s6s7s8s9s3p4p5p6p7p",
            "5m6m7m8m9m2m3m4m5m6m7m8m9m",
        ][:4],
    )
    table = FakeTable(rnd)
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.wait_for_selector("#my-hand .tile.playable")
    page.click('#my-hand .tile.playable[data-tile="9p"] >> nth=0')
    page.wait_for_selector("#wait-hints")
    obs = table.rnd.observation(0)
    hints = page.eval_on_selector_all(
        "#wait-hints .hint", "els => els.map(e => [e.dataset.wait, +e.dataset.left])"
    )
    assert [h[0] for h in hints] == obs["me"]["waits"]
    # Seat 1's concealed 1m are not visible to seat 0, so all four count as unseen.
    assert dict(hints) == {"1m": 4, "4m": 3, "7m": 3}
    assert "共剩10张" in page.inner_text("#wait-hints")


def test_waiting_hints_count_a_tile_won_by_two_seats_once(browser, live_server, room):
    """一炮多响 (Z3, issue 45): seats 1 and 2 both win on the dealer's 5p, so the one 5p lies
    in both open hands. Seat 3 is ready on 5p and 8p: two 5p are seen (its own and the won
    one), so two are left, not one; no 8p is seen."""
    zigong_room(room)
    rnd, _ = deal_scenario(
        get_variant("zigong"),
        {},
        dealer=0,
        hands=[
            "5p1s1s1s2s2s2s3s3s3s9p9p9p8p",
            "4s5s6s7s8s9s4s5s6s1p1p6p7p",
            "4s5s6s7s8s9s7s8s9s2p2p3p4p",
            "1p1p2p2p3p3p4p4p6p6p7p7p5p",
        ],
    )
    while rnd.window is not None:  # the opening 报叫 question (Z19): pass
        rnd.apply(Action(ActionType.PASS, rnd.pending()[0]))
    rnd.apply(Action(ActionType.DISCARD, 0, Tile.P5))
    while rnd.window is not None:
        seat = rnd.pending()[0]
        rnd.apply(Action(ActionType.WIN if seat in (1, 2) else ActionType.PASS, seat))
    assert rnd.seats[1].won and rnd.seats[2].won and not rnd.ended
    drawn = rnd.observation(3)["me"]["drawn"]
    rnd.apply(Action(ActionType.DISCARD, 3, parse_tile(drawn)))
    assert rnd.observation(3)["me"]["waits"] == ["5p", "8p"]
    page = open_page(browser, live_server, room["users"][3], FakeTable(rnd), 3)
    page.wait_for_selector("#wait-hints")
    hints = page.eval_on_selector_all(
        "#wait-hints .hint", "els => els.map(e => [e.dataset.wait, +e.dataset.left])"
    )
    assert hints == [["5p", 2], ["8p", 4]]
    assert "共剩6张" in page.inner_text("#wait-hints")


def baogang_case3_round() -> Round:
    """自贡 case 3 of the seed: seat 1 may declare with 1p or 1s ticked, but not both."""
    rnd, _ = deal_scenario(
        get_variant("zigong"),
        {},
        dealer=0,
        hands=[
            "4s5s6s7s8s9s4p5p6p7p8p9p9s9p",
            "1p1p1p2p3p1s1s1s2s3s6s7s8s",
            "2p2p3p3p4p4p5p5p6p6p7p7p8p",
            "2s2s3s3s4s4s5s5s6s6s7s7s8s",
        ],
    )
    return rnd


def test_baogang_dialogue_messages(browser, live_server, room):
    # 自贡 case 3 of the seed: seat 1 may declare with 1p or 1s ticked, but not both.
    rnd = baogang_case3_round()
    table = FakeTable(rnd)
    page = open_page(browser, live_server, room["users"][1], table, 1)
    page.click("#actions .act-declare:has-text('报叫')")
    # 报叫 goes to the server at once; it opens the 报杠 panel (Z20) and the dialogue follows.
    page.wait_for_selector("#baogang input[type=checkbox]")
    assert table.sent[-1] == {"viewer": 1, "type": "declare", "v": 1}
    assert table.version == 2 and list(rnd.pending_declarations) == [1]
    assert sorted(page.eval_on_selector_all("#baogang input", "els => els.map(e => e.value)")) == [
        "1p",
        "1s",
    ]
    assert page.locator("#actions .act-declare").count() == 0
    page.click("#baogang .act-baogang")
    page.wait_for_selector("#toast:has-text('没勾选任何选项，不能报杠')")
    page.check("#baogang input[value='1p']")
    page.check("#baogang input[value='1s']")
    page.click("#baogang .act-baogang")
    page.wait_for_selector("#toast:has-text('抱歉，不能选择更多的杠')")
    assert not rnd.seats[1].declared and list(rnd.pending_declarations) == [1]
    page.uncheck("#baogang input[value='1s']")
    page.click("#baogang .act-baogang")
    page.wait_for_selector("#baogang", state="detached")
    # Accepted: the declaration waits in the window for the other seats' decisions.
    assert table.sent[-1] == {"viewer": 1, "type": "declare", "v": 2, "ticks": ["1p"]}
    assert table.version == 3 and rnd.pending_declarations == {}


def test_baogang_dialogue_bubao(browser, live_server, room):
    # The same hand; 不报 answers the panel: 报叫 stands, with no 报杠 (Z20).
    rnd = baogang_case3_round()
    table = FakeTable(rnd)
    page = open_page(browser, live_server, room["users"][1], table, 1)
    page.click("#actions .act-declare:has-text('报叫')")
    page.wait_for_selector("#baogang .act-nobaogang")
    page.click("#baogang .act-nobaogang")
    page.wait_for_selector("#baogang", state="detached")
    assert table.sent[-1] == {"viewer": 1, "type": "declare", "v": 2}
    assert rnd.pending_declarations == {} and rnd.pending() == (2, 3)
    table.play_until(lambda r: r.phase.value == "turn")
    assert rnd.seats[1].declared and rnd.seats[1].ticks is None


def final_hands_shown(page: Any) -> dict[int, list[str]]:
    """Each seat's tiles in the dialogue's 各家手牌: melds, concealed, the winning tile."""
    rows = page.eval_on_selector_all(
        "#final-hands li",
        "els => els.map(e => [+e.dataset.seat,"
        " [...e.querySelectorAll('.tile')].map(t => t.dataset.tile)])",
    )
    return {seat: sorted(tiles) for seat, tiles in rows}


def final_hands_expected(rnd: Round) -> dict[int, list[str]]:
    out = {}
    for seat, s in enumerate(rnd.seats):
        tiles = [t.code for t in s.concealed()]
        for meld in s.melds:
            tiles += [meld.tile.code] * meld.size
        out[seat] = sorted(tiles)
    return out


def test_fanji_reveal_then_settlement_in_words(browser, live_server, room):
    table = FakeTable(duyun_round("s6"))
    page = open_page(browser, live_server, room["users"][1], table, 1)
    page.wait_for_selector("#my-hand .tile")
    table.play_until(lambda r: False)  # the hand ends while the page watches
    settlement = table.rnd.settlement().to_json()
    assert table.rnd.wins and settlement["summary"]["fanji"]
    page.wait_for_selector("#fanji")
    turned = settlement["summary"]["fanji"]
    assert page.get_attribute("#fanji .fanji-tile .tile", "data-tile") == turned
    page.wait_for_selector("#settlement", timeout=8000)
    text = page.inner_text("#settlement")
    for line in settlement["lines"]:
        assert f"付 {NAMES[line['payee']]} " in text and f"{line['points']}分" in text
    assert "→" not in text
    assert "胡" in page.inner_text("#settlement .summary .result")
    totals = page.eval_on_selector_all(
        "#settlement td.total", "els => els.map(e => +e.dataset.total)"
    )
    assert totals == settlement["totals"]
    # D23: dealer, streak, the turned tile, the chicken tiles and the stake; 鸡/豆 by kind.
    heads = page.eval_on_selector_all(
        "#settlement table.players thead th", "els => els.map(e => e.textContent)")
    assert heads == ["玩家", "听牌", "胡牌", "鸡", "豆", "得分", "×底注"]
    assert page.get_attribute("#settlement .summary .fanji .tile", "data-tile") == turned
    assert page.inner_text("#settlement .summary .streak") == "1"  # D10a pays 连庄数
    chickens = page.eval_on_selector_all(
        "#settlement .summary .chickens .tile", "els => els.map(e => e.dataset.tile)"
    )
    assert chickens == settlement["summary"]["chicken_tiles"]
    for p in settlement["players"]:
        row = f'#settlement table.players tbody tr[data-seat="{p["seat"]}"]'
        ji = page.inner_text(f"{row} td.ji")
        for kind, n in p["ji"].items():
            assert f"{kind}×{n}" in ji
        if p["won"]:
            assert page.get_attribute(f"{row} td.won .tile", "data-tile") == p["winning_tile"]
            assert p["pattern"] in page.inner_text(f"{row} td.won")
    # Every seat's final hand is laid open, the winning tile set apart.
    assert final_hands_shown(page) == final_hands_expected(table.rnd)
    winner = table.rnd.wins[0]
    assert page.get_attribute(
        f'#final-hands li[data-seat="{winner.seat}"] .win-tile .tile', "data-tile"
    ) == winner.tile.code
    assert_fits(page, "#settlement")


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_page_opened_on_a_revealed_settlement_skips_the_fanji_reveal(
    browser, live_server, room, size
):
    # A refresh during the settlement: the 翻鸡 was shown when the hand ended; the page
    # shows the settlement with its turned tile and countdown at once, not a 5 s replay.
    table = FakeTable(duyun_round("s6"))
    table.play_until(lambda r: False)
    turned = table.rnd.settlement().to_json()["summary"]["fanji"]
    page = open_page(browser, live_server, room["users"][1], table, 1, size=size)
    page.wait_for_selector("#settlement", timeout=2000)
    assert page.locator("#fanji").count() == 0
    assert page.get_attribute("#settlement .summary .fanji .tile", "data-tile") == turned
    assert "秒后开始下一局" in page.inner_text("#next-hand-countdown")
    page.wait_for_timeout(600)  # and it does not come back on the next draw
    assert page.locator("#fanji").count() == 0 and page.is_visible("#settlement .act-ready")


def zigong_room(room: dict[str, Any]) -> None:
    from apps.clubs.models import Room

    variant = get_variant("zigong")
    Room.objects.filter(code=room["code"]).update(
        variant="zigong", settings=variant.schema.validate({})
    )


def test_zigong_settlement_has_fan_not_chickens(browser, live_server, room):
    zigong_room(room)
    variant = get_variant("zigong")
    rnd, _ = Round.deal(variant, variant.schema.validate({}), dealer=0, streak=1, seed="z8")
    table = FakeTable(rnd)
    table.play_until(lambda r: False, limit=1000)
    settlement = rnd.settlement().to_json()
    win = rnd.wins[0]
    assert rnd.ended and win.seat == 2
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.wait_for_selector("#settlement")
    assert page.locator("#fanji").count() == 0
    heads = page.eval_on_selector_all(
        "#settlement table.players thead th", "els => els.map(e => e.textContent)")
    assert heads == ["玩家", "下叫", "胡牌", "胡的牌", "番型", "得分"]
    assert page.locator("#settlement td.ji, #settlement td.dou").count() == 0
    row = f'#settlement table.players tbody tr[data-seat="{win.seat}"]'
    assert page.get_attribute(f"{row} td.win-tile .tile", "data-tile") == win.tile.code
    assert page.inner_text(f"{row} td.won").startswith("胡")
    # Z11: the 番型 cell comes from the winner's line of kind "pattern", category and breakdown.
    fan_line = next(
        ln for ln in settlement["lines"] if ln["kind"] == "pattern" and ln["payee"] == win.seat
    )
    note = fan_line["note"].split(", 2^")[0]
    category = fan_line["category"].removeprefix("牌型:")  # as the hand page says it
    assert fan_line["category"].startswith("牌型:")
    assert page.inner_text(f"{row} td.fan") == f"{category} {note}"
    assert "牌型:" not in page.inner_text("#settlement")
    # Z5: 自贡's dealer earns nothing by staying, so no 连庄 row (都匀's D10a pays it).
    assert "连庄" not in page.inner_text("#settlement .summary")
    kinds = page.eval_on_selector_all(
        "#settlement-lines li", "els => els.map(e => [e.dataset.kind, e.className])"
    )
    assert sorted(kinds) == sorted([ln["kind"], f"kind-{ln['kind']}"] for ln in settlement["lines"])
    text = page.inner_text("#settlement")
    payer, payee = NAMES[fan_line["payer"]], NAMES[fan_line["payee"]]
    assert f"{payer} 付 {payee} {category} {fan_line['points']}分（{note}）" in text
    for line in settlement["lines"]:
        assert f"付 {NAMES[line['payee']]} " in text and f"{line['points']}分" in text
    # 查叫 at the wall's end: who was ready (下叫) and who was not.
    for seat, p in enumerate(settlement["players"]):
        cell = page.inner_text(f'#settlement table.players tbody tr[data-seat="{seat}"] td.ready')
        if p["won"]:
            assert cell.startswith("已胡")
        elif p["ready"] is not None:
            assert cell.startswith("下叫" if p["ready"] else "未下叫")
    totals = page.eval_on_selector_all(
        "#settlement td.total", "els => els.map(e => +e.dataset.total)"
    )
    assert totals == settlement["totals"]
    assert final_hands_shown(page) == final_hands_expected(rnd)
    assert_fits(page, "#settlement")


@pytest.mark.parametrize("case", ["one_ready", "all_ready"])
def test_zigong_chajiao_fan_shown_only_for_a_seat_paid_on_it(browser, live_server, room, case):
    """Z16: at the wall's end a ready seat is paid its fan by those not ready. A seat paid
    nothing (every seat ready) shows no 查叫 fan in the 番型 column."""
    from tests.rules.scenario import ZIGONG, A, B, C, deal, play, play_out

    zigong_room(room)
    if case == "one_ready":  # the dealer waits on 2s with 1s 3s (卡二条 1番); no one else
        rnd = deal(ZIGONG, ["13s666p999p333p66s9s", A, B, C], back="3s", luobo=1)
        play(rnd, "0 discard 9s")
    else:
        rnd = deal(ZIGONG, ["1s123s456s789s46p99p", "123s456s789s46p88p",
                            "123p456p789p13s77s", "123p456p789p24s66s"])
        play(rnd, "1 pass; 2 pass; 3 pass; 0 discard 1s")
    play_out(rnd)
    st = rnd.settlement().to_json()
    assert all(p["ready"] is not None for p in st["players"])
    paid = {ln["payee"] for ln in st["lines"] if ln["kind"] == "chajiao"}
    assert paid == ({0} if case == "one_ready" else set())
    page = open_page(browser, live_server, room["users"][1], FakeTable(rnd), 1)
    page.wait_for_selector("#settlement")
    fans = dict(page.eval_on_selector_all(
        "#settlement table.players tbody tr", "els => els.map(e => [+e.dataset.seat,"
        " e.querySelector('td.fan').textContent])"))
    assert fans == {s: ("查叫 1番" if s in paid else "—") for s in range(4)}


def test_ready_next_then_final_standings(browser, live_server, room):
    zigong_room(room)
    variant = get_variant("zigong")
    rnd, _ = Round.deal(variant, variant.schema.validate({}), dealer=0, streak=1, seed="z8")
    table = FakeTable(rnd)
    table.hands_total = 2
    table.play_until(lambda r: False, limit=1000)
    first = rnd.settlement().totals
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.click("#settlement .act-ready")
    page.wait_for_selector("#settlement button:has-text('已准备，等待其他玩家')")
    assert {"viewer": 0, "type": "ready_next"} in table.sent
    assert table.ready == [0]
    # The next hand is dealt: the dialogue goes, the table shows hand 2 of 2.
    nxt, _ = Round.deal(variant, variant.schema.validate({}), dealer=2, streak=1, seed="z20")
    table.next_hand(nxt)
    page.wait_for_selector("#settlement", state="detached")
    page.wait_for_selector("#my-hand .tile")
    assert page.inner_text("#hand-no") == "第2/2局"
    # The last hand ends: the match is over, 查看总成绩 opens the final standings.
    table.play_until(lambda r: False, limit=1000)
    table.status = "finished"
    table.broadcast()
    page.click("#settlement .act-standings")
    page.wait_for_selector("#standings")
    final = [a + b for a, b in zip(first, nxt.settlement().totals, strict=True)]
    order = sorted(range(4), key=lambda s: -final[s])
    shown = page.eval_on_selector_all(
        "#standings li",
        "els => els.map(e => [+e.dataset.seat, e.querySelector('.total').textContent])",
    )
    assert [s for s, _ in shown] == order
    assert [int(t) for _, t in shown] == [final[s] for s in order]
    assert page.inner_text("#standings li >> nth=0").startswith("第1名")
    page.click("#standings button:has-text('返回房间')")
    page.wait_for_url(f"**/rooms/{room['code']}/")


def test_dissolve_vote_refused_then_passed(browser, live_server, room):
    table = FakeTable(duyun_round())
    proposer = open_page(browser, live_server, room["users"][0], table, 0)
    voter = open_page(browser, live_server, room["users"][1], table, 1, size=DESKTOP)
    for page in (proposer, voter):
        page.wait_for_selector("#my-hand .tile")
    proposer.on("dialog", lambda d: d.accept())
    proposer.click("#more-button")  # 解散 waits in the ⋯ menu
    proposer.click("#dissolve-button")
    voter.wait_for_selector("#dissolve")
    proposer.wait_for_selector("#dissolve")
    assert "张三 申请解散牌局" in voter.inner_text("#dissolve")
    assert "张三：同意" in voter.inner_text("#dissolve")
    assert "李四：未表态" in voter.inner_text("#dissolve")
    # The proposer has voted by proposing: no buttons for them.
    assert proposer.locator("#dissolve .act-agree").count() == 0
    assert "剩余" in voter.inner_text("#dissolve-countdown")
    # The vote is a bar over the table, which stays usable: nothing covers my tiles.
    assert voter.locator("#dissolve-backdrop").count() == 0
    bar = voter.locator("#dissolve").bounding_box()
    hand = voter.locator("#my-hand").bounding_box()
    assert bar is not None and hand is not None and bar["y"] + bar["height"] < hand["y"]
    proposer.screenshot(path=str(SCREENSHOTS / "dissolve-vote-phone.png"))
    voter.screenshot(path=str(SCREENSHOTS / "dissolve-vote-desktop.png"))
    voter.click("#dissolve .act-refuse")
    for page in (proposer, voter):
        page.wait_for_selector("#dissolve", state="detached")
    # Everyone is told who refused.
    proposer.wait_for_selector("#toast:has-text('李四 拒绝解散，牌局继续')")
    assert {"viewer": 1, "type": "dissolve_vote", "agree": False} in table.sent
    assert table.status == "playing"
    # Again: this time every seat agrees and the match ends with the standings.
    proposer.click("#more-button")
    proposer.click("#dissolve-button")
    voter.wait_for_selector("#dissolve .act-agree")
    voter.click("#dissolve .act-agree")
    proposer.wait_for_selector("#dissolve li:has-text('李四：同意')")
    table.vote(2, True)
    table.vote(3, True)
    assert table.status == "dissolved"
    for page in (proposer, voter):
        page.wait_for_selector("#standings")
        assert "已解散" in page.inner_text("#standings")
        assert "解散原因：全体同意解散" in page.inner_text("#standings")
        assert page.locator("#dissolve").count() == 0


def test_connection_badges_follow_presence(browser, live_server, room):
    table = FakeTable(duyun_round())
    table.presence = [True, False, True, None]
    page = open_page(browser, live_server, room["users"][0], table, 0, size=DESKTOP)
    page.wait_for_selector("#my-hand .tile")

    def badges() -> dict[int, str]:
        rows = page.eval_on_selector_all(
            ".seat-panel[data-seat]",
            "els => els.map(e => [+e.dataset.seat,"
            " [...e.querySelectorAll('.badge.online, .badge.offline')].map(b => b.textContent)"
            ".join()])",
        )
        return dict(rows)

    assert badges() == {0: "在线", 1: "离线", 2: "在线", 3: ""}
    table.send_presence(1, True)
    table.send_presence(2, False)
    wait_until(
        page, "document.querySelector('.seat-panel[data-seat=\"2\"] .badge.offline') !== null"
    )
    assert badges() == {0: "在线", 1: "在线", 2: "离线", 3: ""}
    # A presence frame changes no version: the page's version stays where it was.
    assert page.evaluate("document.body.dataset.version") == str(table.version)


def test_database_outage_shows_reconnecting_and_resyncs_until_back(browser, live_server, room):
    table = FakeTable(duyun_round())
    page = open_page(browser, live_server, room["users"][0], table, 0)
    page.wait_for_selector("#my-hand .tile")
    assert page.is_hidden("#reconnect-banner")
    table.outage = True
    table.refuse_unavailable()
    page.wait_for_selector("#reconnect-banner:visible")
    assert "重连" in page.inner_text("#reconnect-banner")
    hellos = lambda: sum(m["type"] == "hello" for m in table.sent)  # noqa: E731
    before = hellos()
    deadline = time.monotonic() + 8
    while hellos() < before + 2 and time.monotonic() < deadline:  # it keeps trying
        page.wait_for_timeout(200)
    assert hellos() >= before + 2
    assert page.is_visible("#reconnect-banner")
    table.outage = False
    page.wait_for_selector("#reconnect-banner", state="hidden", timeout=8000)


def test_a_silent_socket_is_pinged_then_replaced_and_the_table_comes_back(
    browser, live_server, room
):
    """A phone that lost its signal keeps a socket that says nothing: the page pings after
    10 s of quiet, shows 连接已断开 5 s later and reconnects until the network is back."""
    table = FakeTable(duyun_round())
    page = open_page(browser, live_server, room["users"][0], table, 0, clock=True)
    page.wait_for_selector("#my-hand .tile")
    pings = lambda: sum(m["type"] == "ping" for m in table.sent)  # noqa: E731
    page.clock.run_for(11_000)  # a quiet table, a live socket: ping, pong
    assert pings() == 1 and page.is_hidden("#reconnect-banner")
    page.clock.run_for(11_000)
    assert pings() == 2 and page.is_hidden("#reconnect-banner")
    table.offline = True
    page.clock.run_for(11_000 + 5_000)  # the ping goes unanswered
    assert pings() == 3
    page.wait_for_selector("#reconnect-banner:visible")
    assert "连接已断开" in page.inner_text("#reconnect-banner")
    page.clock.run_for(20_000)  # reconnecting fails while the network is away
    assert page.is_visible("#reconnect-banner")
    table.offline = False
    hellos = sum(m["type"] == "hello" for m in table.sent)
    page.clock.run_for(6_000)  # the next attempt opens, resumes and shows the table again
    page.wait_for_selector("#reconnect-banner", state="hidden")
    assert sum(m["type"] == "hello" for m in table.sent) == hellos + 1
    page.wait_for_selector("#my-hand .tile")


class _TooManyPages:
    """A table socket that closes each connection with 4429, as the server does when the
    account already holds its share of table connections (apps.matches.socket_limits)."""

    def __init__(self) -> None:
        self.attempts = 0

    def attach(self, page: Any, viewer: int | None) -> None:
        def refuse(ws: Any) -> None:
            self.attempts += 1
            ws.close(code=4429)

        page.route_web_socket(WS_PATTERN, refuse)


def test_too_many_table_pages_ask_the_player_to_close_some(browser, live_server, room):
    refusing = _TooManyPages()
    page = open_page(browser, live_server, room["watcher"], refusing, None)  # type: ignore[arg-type]
    wait_until(page, "document.body.dataset.connection === 'too_many'")
    banner = page.locator("#reconnect-banner")
    assert banner.is_visible()
    assert banner.inner_text() == "你打开的牌桌页面太多了：关掉不用的页面，再刷新这一页"
    # It does not retry by itself (a retry would come after 0.5 s).
    page.wait_for_timeout(1500)
    assert refusing.attempts == 1
    page.screenshot(path=str(SCREENSHOTS / "table-too-many-pages-phone.png"))
    page.context.close()


def test_long_names_in_a_phones_side_panels_are_shown_whole(browser, live_server, room):
    """A 48 px side panel holds about three characters a line: a four-character name
    wraps onto a second line instead of being cut to 欧阳…"""
    names = ["张三", "欧阳大海", "王五", "司马长风"]
    page = open_page(browser, live_server, room["users"][0],
                     FakeTable(duyun_round(), names=names), 0)
    page.wait_for_selector(".seat-panel.pos-left .name")
    shown = page.evaluate("""[...document.querySelectorAll(
            '.seat-panel.pos-left .name, .seat-panel.pos-right .name')]
        .map(e => [e.textContent, e.scrollHeight <= e.clientHeight + 1,
                   e.scrollWidth <= e.clientWidth + 1, e.getClientRects().length > 0])""")
    assert sorted(text for text, *_ in shown) == ["司马长风", "欧阳大海"]
    assert all(whole_h and whole_w and seen for _, whole_h, whole_w, seen in shown), shown
    assert_no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / "table-long-names-phone.png"))
    page.context.close()
