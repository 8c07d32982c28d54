"""玩法说明: every number the rules pages teach, read from the engine, never typed here.

Pattern points and fan come from scoring sample hands (``pattern_of``, ``hand_fan``,
``win_fan``); what a 鸡, a 豆, a 报听 or a kong pays from the settlement of the worked hands
in ``docs/rules/<variant>/`` replayed under the room's scoring settings. The worked hands
shown to players are some of those records, each line written as the hand page writes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings

from apps.ledgers.words import line_sentence
from majiang.record import replay
from majiang.round import Round
from majiang.rulings import ruling
from majiang.state import Meld, MeldKind, Win, WinSource
from majiang.tiles import Tile, counts_of, parse_tiles
from majiang.variants import VARIANTS
from majiang.variants.duyun.chickens import YAOJI, ChickenTable, first_chicken_value
from majiang.variants.duyun.patterns import pattern_of
from majiang.variants.zigong.fan import hand_fan, win_fan

__all__ = ["EXAMPLES", "guide", "scoring_settings"]

RECORDS = Path(django_settings.BASE_DIR) / "docs" / "rules"

SCORING = {
    "duyun": ("zimo_bonus", "fanji", "mantang", "first_chicken", "baopai", "base_stake"),
    "zigong": (
        "fan_cap", "zimo", "dianganghua", "tiandihu", "hujiao_zhuanyi", "chajiao_tuishui",
        "base_stake",
    ),
}
"""Settings that change only what a hand pays, so a worked hand replays under a room's."""

SEAT_NAMES = ("东家", "南家", "西家", "北家")
_RULING_REF = re.compile(r"\s*[(（]\s*[DZH]\d+[^)）]*[)）]")


@dataclass(frozen=True, slots=True)
class Example:
    """A worked hand for players: its record in ``docs/rules/<variant>/``, a title and what
    happens, in Chinese."""

    record: str
    title: str
    story: str


EXAMPLES: Mapping[str, tuple[Example, ...]] = {
    "duyun": (
        Example(
            "01-zimo-pinghu-with-dou",
            "自摸平胡，带一个暗豆",
            "东家（庄）起手暗杠四张九条，两圈后自摸五筒胡平胡。翻开的牌是八万，九万成了翻牌鸡，"
            "东家手里有一只。",
        ),
        Example(
            "06-baoting-win",
            "报听后点炮胡",
            "南家起手就听牌，第一次出牌时报听；之后摸什么打什么，不能碰杠。西家打出南家要的牌，"
            "南家平胡接炮：报听的人平胡接炮不需要豆，另收报听分。",
        ),
        Example(
            "12-exhausted-chajiao",
            "黄庄：查叫和英雄鸡",
            "牌摸完没人胡。东家、南家听牌，西家没听。西家打出过全桌第一张幺鸡（英雄鸡），"
            "后来又打出一张幺鸡，没听牌就要赔；还要按东家、南家能胡的最大牌型赔查叫。",
        ),
    ),
    "zigong": (
        Example(
            "01-qingyise-gen",
            "清一色带根，点炮",
            "两人局。南家全是条子，手里四张一样的牌算一根，胡东家打出的牌：平胡0番、清一色2番、"
            "根1番，共3番。",
        ),
        Example(
            "05-hujiao-zhuanyi",
            "呼叫转移",
            "东家（庄）暗杠后打出的牌被北家胡了（杠上炮）。这个杠收的杠钱全部转给北家，"
            "东家再按杠上炮付北家胡牌分。",
        ),
        Example(
            "04-chajiao-tuishui",
            "流局：查叫与退税",
            "牌摸完。东家暗杠过但没下叫，收的杠钱要全部退还（退税），还要按下叫的南家能胡的"
            "最大番数赔查叫；西家也没下叫，同样赔南家。",
        ),
    ),
}


def scoring_settings(variant_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings that change what a hand pays, out of a room's (validated) settings."""
    return {name: values[name] for name in SCORING[variant_id]}


def _record(variant_id: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (RECORDS / variant_id / f"{name}.json").read_text(encoding="utf-8")
    )
    return data


@lru_cache(maxsize=256)
def _played(variant_id: str, name: str, scoring: tuple[tuple[str, Any], ...]) -> Round:
    data = _record(variant_id, name)
    data["settings"] = {**data["settings"], **dict(scoring)}
    return replay(data)


def played(variant_id: str, name: str, scoring: Mapping[str, Any]) -> Round:
    """A worked hand replayed under these scoring settings."""
    return _played(variant_id, name, tuple(sorted(scoring.items())))


def _paid(variant_id: str, name: str, scoring: Mapping[str, Any], category: str) -> int:
    """What the first line of ``category`` in a worked hand pays."""
    lines = played(variant_id, name, scoring).settlement().lines
    return next(line.points for line in lines if line.category == category)


def _tiles(text: str) -> list[str]:
    return [t.code for t in parse_tiles(text)]


def _sample(concealed: str, melds: tuple[tuple[MeldKind, str], ...] = ()) -> dict[str, Any]:
    meld_list = [Meld(kind, parse_tiles(code)[0]) for kind, code in melds]
    return {
        "counts": counts_of(parse_tiles(concealed)),
        "melds": meld_list,
        "tiles": _tiles(concealed),
        "meld_tiles": [[m.tile.code] * m.size for m in meld_list],
    }


# One sample hand per 都匀 pattern (D6), complete with its winning tile.
_DUYUN_SAMPLES = (
    ("123m456m789s234p55p", ()),
    ("111m333m777s999p55p", ()),
    ("11m22m55s66s88s33p77p", ()),
    ("55p", ((MeldKind.PUNG, "2m"), (MeldKind.PUNG, "6s"), (MeldKind.PUNG, "9p"),
            (MeldKind.CONCEALED_KONG, "4m"))),
    ("5555m22s66s88s33p77p", ()),
    ("123s456s789s234s55s", ()),
    ("111s333s555s999s77s", ()),
    ("11s22s33s55s66s77s99s", ()),
    ("55s", ((MeldKind.PUNG, "2s"), (MeldKind.PUNG, "6s"), (MeldKind.PUNG, "9s"),
            (MeldKind.CONCEALED_KONG, "4s"))),
    ("1111s22s33s55s66s77s", ()),
)

# 自贡 sample hands (Z11), 条 and 筒 only; the last tile written is the winning tile.
_ZIGONG_SAMPLES = (
    "123s456s789p234p55p",
    "111s333s777p999p55p",
    "11s22s55s66p88p33p77p",
    "5555s22s66p88p33p77p",
    "5555s2222s66p88p33p",
    "5555s2222s6666p88p",
    "123s456s789s234s55s",
    "111123s456p789p55p",
    "13s456s789p234p55p2s",
)


def _duyun_patterns() -> list[dict[str, Any]]:
    out = []
    for concealed, melds in _DUYUN_SAMPLES:
        sample = _sample(concealed, melds)
        found = pattern_of(sample["counts"], sample["melds"])
        assert found is not None, concealed
        out.append({"name": found.name, "points": found.points, **sample})
    return out


def _zigong_patterns() -> list[dict[str, Any]]:
    out = []
    for concealed in _ZIGONG_SAMPLES:
        sample = _sample(concealed)
        found = hand_fan(sample["counts"], (), parse_tiles(concealed)[-1])
        assert found is not None, concealed
        out.append({
            "name": found.name,
            "fan": found.total,
            "items": "、".join(f"{name}{fan}番" for name, fan in found.items),
            "item_pairs": found.items,
            **sample,
        })
    return out


def _zigong_bonuses(scoring: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each situational bonus's fan, from scoring a plain 平胡 won that way (Z11)."""
    hand = parse_tiles("123s456s789p234p5p")
    plain: dict[str, Any] = {
        "seat": 0, "tile": Tile.P5, "from_seat": 1, "concealed": tuple(hand), "melds": (),
        "payers": (1,), "group": 0,
    }
    ways: tuple[tuple[str, dict[str, Any]], ...] = (
        ("杠上开花", {"source": WinSource.SELF_DRAW, "kong_replacement": True}),
        ("杠上炮", {"source": WinSource.DISCARD, "after_kong_discard": True}),
        ("抢杠胡", {"source": WinSource.ROBBING}),
        ("报叫", {"source": WinSource.DISCARD, "declared": True}),
        ("自摸", {"source": WinSource.SELF_DRAW}),
    )
    settings = {**scoring, "tiandihu": False}
    out = []
    for name, how in ways:
        fan = win_fan(Win(**plain, **how), settings)
        extra = dict(fan.items).get(name)
        if extra:
            out.append({"name": name, "fan": extra})
    melds = tuple(Meld(MeldKind.PUNG, t) for t in (Tile.S1, Tile.S4, Tile.P7, Tile.P2))
    gou = win_fan(Win(0, Tile.P5, WinSource.DISCARD, 1, (Tile.P5,), melds, (1,), 0), settings)
    out.insert(0, {"name": "金钩钩", "fan": dict(gou.items)["金钩钩"]})
    return out


def _names(rnd: Round) -> list[str]:
    return [SEAT_NAMES[s] + ("（庄）" if s == rnd.dealer else "") for s in range(rnd.players)]


def _seat_tiles(rnd: Round, seat: int) -> dict[str, Any]:
    """What a seat holds at the end of the hand, as the hand page draws it."""
    s = rnd.seats[seat]
    win = next((w for w in rnd.wins if w.seat == seat), None)
    concealed = sorted(win.concealed) if win else [t for t in Tile for _ in range(s.hand[t])]
    melds = win.melds if win else tuple(s.melds)
    return {
        "concealed": [t.code for t in concealed],
        "melds": [
            {"name": {"pung": "碰", "exposed_kong": "明杠", "concealed_kong": "暗杠",
                      "added_kong": "补杠"}[m.kind.value], "tiles": [m.tile.code] * m.size}
            for m in melds
        ],
        "win_tile": win.tile.code if win else None,
    }


def worked_hand(variant_id: str, example: Example, scoring: Mapping[str, Any]) -> dict[str, Any]:
    """A worked hand as the page shows it: seats, tiles and each settlement line in words.

    It is played under its own record's settings (its story depends on them, a 地胡 may
    stand in for a 杠上炮); those that differ from ``scoring`` are listed in ``differs``."""
    rnd = played(variant_id, example.record, {})
    schema = VARIANTS[variant_id].schema
    differs = [
        f"{setting.label}：{setting.display(rnd.settings[setting.name])}"
        for setting in schema.settings
        if setting.name in scoring and rnd.settings[setting.name] != scoring[setting.name]
    ]
    result = rnd.settlement()
    names = _names(rnd)
    lines: list[dict[str, Any]] = [
        {
            "text": _RULING_REF.sub("", line_sentence(
                names[line.payer], names[line.payee], line.category, line.points, line.note
            )),
            "points": line.points,
            "ruling": ruling(line.ruling),
        }
        for line in result.lines
    ]
    rulings = {line["ruling"].id: line["ruling"] for line in lines}
    summary = result.summary
    return {
        "example": example,
        "players": rnd.players,
        "differs": differs,
        "seats": [
            {"name": names[s], "total": result.totals[s], **_seat_tiles(rnd, s)}
            for s in range(rnd.players)
        ],
        "lines": lines,
        "rulings": list(rulings.values()),
        "fanji": summary.get("fanji"),
        "chicken_tiles": summary.get("chicken_tiles", []),
    }


def _duyun_numbers(scoring: Mapping[str, Any]) -> dict[str, Any]:
    def paid(name: str, category: str) -> int:
        return _paid("duyun", name, scoring, category)

    # first_chicken_value reads a round's settings: any played hand under the choice will do.
    hero = played("duyun", "01-zimo-pinghu-with-dou", {**scoring, "first_chicken": "hero"})
    charge = played("duyun", "01-zimo-pinghu-with-dou", {**scoring, "first_chicken": "charge"})
    first = played("duyun", "01-zimo-pinghu-with-dou", scoring)
    kong = Meld(MeldKind.EXPOSED_KONG, YAOJI).size
    return {
        "hero": first_chicken_value(hero, False),
        "hero_jin": first_chicken_value(hero, True),
        "charge": first_chicken_value(charge, False),
        "charge_jin": first_chicken_value(charge, True),
        "first": first_chicken_value(first, False),
        "first_jin": first_chicken_value(first, True),
        "yaoji": ChickenTable(None, frozenset(), False).value(YAOJI),
        "jin": ChickenTable(None, frozenset(), True).value(YAOJI),
        "ming_dou": paid("08-zeren-both-ready", "明豆"),
        "an_dou": paid("01-zimo-pinghu-with-dou", "暗豆"),
        "zhuanwan_dou": paid("07-gangshanghua", "转弯豆"),
        "baoting": paid("06-baoting-win", "报听"),
        "gangshanghua": paid("07-gangshanghua", "杠上花"),
        "qianggang": paid("05-robbing-kong", "抢杠"),
        "repao_pattern": paid("04-hot-discard", "牌型:大对子"),
        "repao": paid("04-hot-discard", "热炮"),
        "zeren_extra": paid("08-zeren-both-ready", "责任鸡") - kong,
        "zeren_one_ready": paid("10-zeren-claimer-not-ready", "责任鸡"),
        "zeren_none_ready": paid("11-zeren-both-not-ready", "责任鸡"),
        "patterns": _duyun_patterns(),
    }


def _zigong_numbers(scoring: Mapping[str, Any]) -> dict[str, Any]:
    def paid(name: str, category: str) -> int:
        return _paid("zigong", name, scoring, category)

    cap = int(scoring["fan_cap"])
    patterns = _zigong_patterns()
    bonuses = _zigong_bonuses(scoring)
    items = {name: fan for p in patterns for name, fan in p["item_pairs"]}
    items |= {b["name"]: b["fan"] for b in bonuses}
    return {
        "cap": cap,
        "powers": [{"fan": f, "points": 2**f} for f in range(cap + 1)],
        "an_gang": paid("03-three-kongs-chajiao", "暗杠"),
        "zhi_gang": paid("03-three-kongs-chajiao", "直杠"),
        "bu_gang": paid("03-three-kongs-chajiao", "补杠"),
        "zimo_base": paid("02-tianhu", "自摸加底") if scoring["zimo"] == "add_base" else 0,
        "patterns": patterns,
        "bonuses": bonuses,
        "qing": items["清一色"],
        "gen": items["根"],
        "kaer": items["卡二条"],
        "baojiao": items["报叫"],
    }


def guide(variant_id: str, room_settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything the 玩法说明 of one game shows, under a room's settings or the defaults."""
    schema = VARIANTS[variant_id].schema
    known = {k: v for k, v in (room_settings or {}).items() if k in schema.names}
    values = schema.validate(known)
    scoring = scoring_settings(variant_id, values)
    numbers = _duyun_numbers(scoring) if variant_id == "duyun" else _zigong_numbers(scoring)
    return {
        "s": values,
        "n": numbers,
        "examples": [worked_hand(variant_id, e, scoring) for e in EXAMPLES[variant_id]],
    }


def rulings_named(*ids: str) -> list[Any]:
    """The rulings a section comes from, for its 规则出处."""
    return [ruling(i) for i in ids]
