"""The 玩法说明 pages teach what the engine pays: each worked hand is replayed here through
the engine and its page must show every settlement line, in order, with the engine's
points; the numbers in the text (英雄鸡, 报听, 杠钱, the 番 cap) are those the engine pays
in a played hand, under a room's settings when the page is opened from that room."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.clubs.rules_guide import EXAMPLES, SEAT_NAMES
from apps.clubs.services import rooms
from majiang.record import replay
from majiang.round import Round

from .conftest import World

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "rules"


def _play(variant: str, name: str, **settings: Any) -> Round:
    data = json.loads((RECORDS / variant / f"{name}.json").read_text(encoding="utf-8"))
    data["settings"] = {**data["settings"], **settings}
    return replay(data)


def _paid(rnd: Round, category: str) -> int:
    return next(x.points for x in rnd.settlement().lines if x.category == category)


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _section(page: str, anchor: str) -> str:
    found = re.search(rf'<(section|li) id="{anchor}">(.*?)</\1>', page, re.S)
    assert found, anchor
    return _text(found.group(2))


def _example(page: str, name: str) -> str:
    found = re.search(rf'<div class="card worked" data-example="{name}">(.*?)<details', page, re.S)
    assert found, name
    return found.group(1)


def _page(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("variant", "name"),
    [(v, e.record) for v, examples in EXAMPLES.items() for e in examples],
)
def test_D22_Z11_each_worked_hand_shows_every_line_the_engine_pays(variant: str, name: str) -> None:
    rnd = _play(variant, name)
    result = rnd.settlement()
    seat = [SEAT_NAMES[s] + ("（庄）" if s == rnd.dealer else "") for s in range(rnd.players)]
    card = _example(_page(f"/rules/{variant}/"), name)
    shown = [
        (int(points), _text(text))
        for points, text in re.findall(r'<li data-points="(\d+)">(.*?)</li>', card, re.S)
    ]
    assert len(shown) == len(result.lines)
    for (points, text), line in zip(shown, result.lines, strict=True):
        item = line.category.removeprefix("牌型:")
        assert points == line.points
        assert text.startswith(f"{seat[line.payer]} 付 {seat[line.payee]} {item} {line.points}分")
    totals = _text(re.search(r'<p class="totals">(.*?)</p>', card, re.S).group(1))  # type: ignore[union-attr]
    for s, total in enumerate(result.totals):
        assert f"{seat[s]} {'+' if total > 0 else ''}{total}" in totals


@pytest.mark.django_db
def test_D17_D9_duyun_text_quotes_what_the_engine_pays() -> None:
    page = _page("/rules/duyun/")
    hero = _paid(_play("duyun", "12-exhausted-chajiao"), "英雄鸡")
    assert _section(page, "hero").startswith("英雄鸡 ：全桌第一张打出的幺鸡")
    assert f"其他每家付他 {hero} 分" in _section(page, "hero")
    baoting = _paid(_play("duyun", "06-baoting-win"), "报听")
    text = _section(page, "baoting")
    assert f"每个付款人另付 {baoting} 分" in text
    assert "不能碰，也不能杠" in text
    dou = _section(page, "dou")
    assert f"其他每家付 {_paid(_play('duyun', '01-zimo-pinghu-with-dou'), '暗豆')} 分" in dou
    patterns = _section(page, "patterns")
    assert f"清七对 {_paid(_play('duyun', '02-discard-big-pattern'), '牌型:清七对')}" in patterns


@pytest.mark.django_db
def test_D15_D17_the_page_teaches_the_rooms_rules(world: World) -> None:
    room = rooms.room_create(
        club=world.club, actor=world.owner, variant="duyun",
        settings={"first_chicken": "charge", "fanji": "up_down", "mantang": False},
    )
    page = _page(f"/rules/duyun/?room={room.code}")
    charge = _paid(_play("duyun", "12-exhausted-chajiao", first_chicken="charge"), "冲锋鸡")
    assert charge != _paid(_play("duyun", "12-exhausted-chajiao"), "英雄鸡")
    assert _section(page, "hero").startswith("冲锋鸡 ：全桌第一张打出的幺鸡")
    assert f"其他每家付他 {charge} 分" in _section(page, "hero")
    ji = _section(page, "ji")
    assert "上下鸡" in ji and "本房间没有满堂鸡" in ji
    assert f"房间 {room.code}" in _text(page)


@pytest.mark.django_db
def test_Z11_Z14_zigong_text_quotes_the_engine_and_the_rooms_fan_cap(world: World) -> None:
    room = rooms.room_create(
        club=world.club, actor=world.owner, variant="zigong", settings={"fan_cap": 6}
    )
    page = _page(f"/rules/zigong/?room={room.code}")
    tianhu = _paid(_play("zigong", "02-tianhu", fan_cap=6), "牌型:天胡")
    patterns = _section(page, "patterns")
    assert "封顶 6 番" in patterns
    assert f"每家付 1分 2分 4分 8分 16分 32分 {tianhu}分 牌型" in patterns
    kongs = _section(page, "kongs")
    played = _play("zigong", "03-three-kongs-chajiao")
    assert f"点杠的人付 {_paid(played, '直杠')} 分" in kongs
    assert f"还没胡的每家付 {_paid(played, '补杠')} 分" in kongs
    assert f"还没胡的每家付 {_paid(played, '暗杠')} 分" in kongs
    default = _section(_page("/rules/zigong/"), "patterns")
    assert "封顶 4 番" in default


@pytest.mark.django_db
def test_rule_sources_give_the_rulings_title_and_summary_not_a_bare_code() -> None:
    page = _page("/rules/duyun/")
    details = re.findall(r'<details class="source">(.*?)</details>', page, re.S)
    assert details
    hero = next(d for d in details if "D17" in d)
    assert "冲锋鸡 / 英雄鸡" in hero and "叫牌者收每家" in hero


@pytest.mark.django_db
def test_a_missing_or_other_games_room_falls_back_to_the_defaults(world: World) -> None:
    page = _text(_page("/rules/zigong/?room=000000"))
    assert "没有找到这个房间" in page and "封顶 4 番" in page
    page = _text(_page(f"/rules/zigong/?room={world.room.code}"))
    assert world.room.variant != "zigong" or "房间" in page


@pytest.mark.django_db
def test_the_lobby_links_to_the_rules_of_its_room(world: World) -> None:
    page = world.client("member").get(f"/rooms/{world.room.code}/").content.decode()
    assert f'/rules/{world.room.variant}/?room={world.room.code}"' in page
