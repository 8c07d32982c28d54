"""Sound and voice at the table (static/table/sound.js), against the stand-in socket.

Speech synthesis and WebAudio are stubbed in the page so that what it says and plays can be
read back: every discard is a click and its tile name said in Mandarin (zh-CN), a 碰 is said
碰, 语音关 says nothing and is remembered, and without a Chinese voice a call falls back to
its tone.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from majiang import Action, ActionType, Round, Tile, get_variant
from majiang.scenario import deal_scenario

from .conftest import PHONE, wait_until
from .fake_table import FakeTable

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Records what the page says (speechSynthesis) and plays (AudioContext oscillators).
STUBS = """
window.__spoken = [];
window.__tones = [];
window.__voices = %s;
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
  getVoices: () => window.__voices,
  speak: (u) => window.__spoken.push({ text: u.text, lang: u.lang }),
  cancel: () => {}, addEventListener: () => {},
} });
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.state = "running"; this.destination = {}; }
  resume() {}
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },
                          connect: (d) => d }; }
  createOscillator() {
    return { frequency: { value: 0 }, connect: (g) => g, stop() {},
             start() { window.__tones.push(this.frequency.value); } };
  }
};
"""
ZH = '[{"name": "普通话", "lang": "zh-CN"}, {"name": "English", "lang": "en-US"}]'
NO_ZH = '[{"name": "English", "lang": "en-US"}]'


@pytest.fixture
def room() -> dict[str, Any]:
    from apps.accounts.models import User
    from apps.clubs.models import Club, Membership, Room, RoomSeat

    users = [User.objects.create_user(f"p{i}", display_name=f"玩家{i}") for i in range(4)]
    club = Club.objects.create(name="测试圈", invite_code="TESTCODE")
    for i, user in enumerate(users):
        Membership.objects.create(club=club, user=user, role="owner" if i == 0 else "member")
    room = Room.objects.create(club=club, code="123456", variant="duyun",
                               settings=get_variant("duyun").schema.validate({}),
                               created_by=users[0])
    for i, user in enumerate(users):
        RoomSeat.objects.create(room=room, seat=i, user=user, ready=True)
    return {"users": users}


def pung_round() -> Round:
    """The dealer (seat 0) holds 九筒 to discard; seat 1 holds two and can 碰 it."""
    rnd, _ = deal_scenario(
        get_variant("duyun"),
        dealer=0,
        hands=["123m456m789m1234s9p", "99p123s567s234m58m", "111p222p333p444p5s",
               "555p666p777p888p6s"],
    )
    return rnd


def open_page(browser: Any, live_server: Any, user: Any, table: FakeTable, *, voices: str,
              storage: dict[str, str] | None = None) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=PHONE, locale="zh-CN")
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    script = STUBS % voices
    for key, value in (storage or {}).items():
        script += f"localStorage.setItem({key!r}, {value!r});\n"
    context.add_init_script(script)
    page = context.new_page()
    table.attach(page, 2)
    page.goto(f"{live_server.url}/rooms/123456/play/")
    page.wait_for_selector("#my-hand .tile")
    return page


def play(table: FakeTable, action: Action) -> None:
    """Apply ``action`` to the round and send every page the events all seats may see."""
    events = table.rnd.apply(action)
    table.version += 1
    table.broadcast([e.to_json() for e in events if not e.private and e.audience is None])


def spoken(page: Any) -> list[str]:
    return [s["text"] for s in page.evaluate("window.__spoken")]


def test_a_discard_says_its_tile_and_a_pung_says_peng(browser, live_server, room):
    table = FakeTable(pung_round())
    page = open_page(browser, live_server, room["users"][2], table, voices=ZH)
    assert page.inner_text("#voice-button") == "语音开"
    play(table, Action(ActionType.DISCARD, 0, Tile.P9))
    wait_until(page, "window.__spoken.length >= 1")
    assert page.evaluate("window.__spoken") == [{"text": "九筒", "lang": "zh-CN"}]
    assert 1800 in page.evaluate("window.__tones")  # the discard's click
    play(table, Action(ActionType.PUNG, 1, Tile.P9))
    wait_until(page, "window.__spoken.length >= 2")
    assert spoken(page) == ["九筒", "碰"]


def test_voice_off_says_nothing_and_is_remembered(browser, live_server, room):
    table = FakeTable(pung_round())
    page = open_page(browser, live_server, room["users"][2], table, voices=ZH)
    page.click("#more-button")  # 语音 waits in the ⋯ menu with the other switches
    page.click("#voice-button")
    assert page.inner_text("#voice-button") == "语音关"
    play(table, Action(ActionType.DISCARD, 0, Tile.P9))
    wait_until(page, "window.__tones.includes(1800)")  # the frame arrived: its click played
    play(table, Action(ActionType.PUNG, 1, Tile.P9))
    wait_until(page, "document.querySelectorAll('.meld .tile').length >= 3")
    assert spoken(page) == []
    page.reload()
    page.wait_for_selector("#my-hand .tile")
    assert page.inner_text("#voice-button") == "语音关"
    assert page.inner_text("#sound-button") == "音效开"


def test_without_a_chinese_voice_a_call_falls_back_to_its_tone(browser, live_server, room):
    table = FakeTable(pung_round())
    # 音效 off: only the fallback of the unspoken calls may sound.
    page = open_page(browser, live_server, room["users"][2], table, voices=NO_ZH,
                     storage={"mj-sound-muted": "1"})
    assert page.inner_text("#sound-button") == "音效关"
    play(table, Action(ActionType.DISCARD, 0, Tile.P9))
    wait_until(page, "window.__tones.length >= 1")
    play(table, Action(ActionType.PUNG, 1, Tile.P9))
    wait_until(page, "window.__tones.length >= 3")
    assert spoken(page) == []
    assert page.evaluate("window.__tones") == [1800, 520, 660]
