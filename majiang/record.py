"""Game records: a hand as variant, settings, dealer, wall source and ordered actions.

See ``docs/record-format.md``. Replaying a record rebuilds the round exactly; the first
action that is not legal is reported with its index, the reason, and which seats the round
was still waiting for and what each of them could do. :func:`build` writes the wall of a
record from each seat's dealt hand and the tiles drawn, as :func:`majiang.scenario.wall_for`
does in Python.

Records made before the 报杠 panel was a step of its own (Z20) still replay: there, a
declaration without ticks was 不报 even when the seat had triplets to tick. Now such a
declaration opens the panel, and the record's next action, which is not the panel's answer,
is not legal; :func:`apply_recorded` then answers every open panel 不报 first.

Every :class:`RecordError` here is in Chinese, names seats as 座位N and ends with a code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from majiang.actions import Action, ActionType, Event
from majiang.errors import IllegalActionError, RecordError, SettingsError
from majiang.refusals import declare_word
from majiang.round import Round
from majiang.scenario import wall_for
from majiang.state import Phase
from majiang.tiles import NotationError, parse_tiles
from majiang.variant import Variant
from majiang.variants import get_variant
from majiang.wall import set_difference

__all__ = [
    "FORMAT",
    "apply_recorded",
    "build",
    "dumps",
    "load_round",
    "record_of",
    "replay",
    "waiting_text",
]

FORMAT = "majiang-record/1"


def record_of(rnd: Round) -> dict[str, Any]:
    """The record of a round so far. The wall is written out only when there is no seed."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "variant": rnd.variant.id,
        "settings": dict(sorted(rnd.settings.items())),
        "dealer": rnd.dealer,
        "streak": rnd.streak,
    }
    if rnd.seed is not None:
        out["seed"] = rnd.seed
    else:
        out["wall"] = " ".join(t.code for t in rnd.wall.tiles)
    out["actions"] = [a.to_json() for a in rnd.history]
    return out


def dumps(data: Mapping[str, Any]) -> str:
    """Canonical JSON text: sorted keys, UTF-8 kept, two-space indent."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def _header(data: Mapping[str, Any]) -> tuple[Variant, dict[str, Any], int, int]:
    """The variant, validated settings, dealer and streak of a record (or build spec)."""
    if not isinstance(data, Mapping):
        raise RecordError("记录必须是 JSON 对象", code="not_object")
    if data.get("format", FORMAT) != FORMAT:
        raise RecordError(f"未知的记录格式 {data.get('format')!r}", code="unknown_format")
    try:
        variant = get_variant(str(data["variant"]))
    except KeyError as exc:
        raise RecordError(
            f"未知或缺少玩法 variant {data.get('variant')!r}", code="unknown_variant"
        ) from exc
    dealer = data.get("dealer", 0)
    streak = data.get("streak", 1)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (dealer, streak)):
        raise RecordError("dealer 和 streak 必须是整数", code="bad_dealer")
    try:
        settings = variant.schema.validate(data.get("settings") or {})
    except SettingsError as exc:
        raise RecordError(f"房间设置无效: {exc}", code="bad_settings") from exc
    if not 0 <= dealer < variant.players(settings):
        raise RecordError(
            f"dealer {dealer} 不是 {variant.players(settings)} 人桌的座位", code="bad_dealer"
        )
    return variant, settings, dealer, streak


def load_round(data: Mapping[str, Any]) -> Round:
    """Deal the round a record describes, before any action."""
    variant, settings, dealer, streak = _header(data)
    seed = data.get("seed")
    wall_text = data.get("wall")
    if (seed is None) == (wall_text is None):
        raise RecordError("记录须有且只有 'seed' 和 'wall' 之一", code="seed_or_wall")
    if seed is not None and not isinstance(seed, str):
        raise RecordError(f"'seed' 必须是字符串, 得到 {seed!r}", code="bad_seed")
    wall = None
    if wall_text is not None:
        if not isinstance(wall_text, str):
            raise RecordError("'wall' 必须是以空格分隔的牌", code="bad_wall")
        try:
            wall = parse_tiles(wall_text)
        except NotationError as exc:
            raise RecordError(f"牌墙写法有误: {exc}", code="bad_wall") from exc
        problem = set_difference(wall, variant.tile_kinds(settings))
        if problem is not None:
            raise RecordError(f"牌墙不是本玩法的整副牌: {problem}", code="wrong_wall")
    rnd, _ = Round.deal(variant, settings, dealer=dealer, streak=streak, seed=seed, wall=wall)
    return rnd


def build(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A record with its wall written out, from a build spec (see ``docs/record-format.md``).

    ``spec`` is a record with a ``deal`` object in place of ``seed`` or ``wall``: ``hands``
    (each seat's dealt tiles, by seat; the dealer's 14), ``draws`` (the tiles drawn from the
    front after the deal, in order), ``replacements`` (the kong replacements, in order),
    ``luobo`` (自贡's 萝卜 tiles, Z13) and ``turned`` (都匀's 翻鸡 tile, D15: the front tile
    once the draws are done). Settings are validated and written in full; ``luobo`` sets
    the 萝卜 count when the settings do not. The actions are copied as they are.
    """
    if not isinstance(spec, Mapping) or not isinstance(spec.get("deal"), Mapping):
        raise RecordError("构建说明必须是 JSON 对象, 且有 'deal' 对象", code="bad_spec")
    if "seed" in spec or "wall" in spec:
        raise RecordError("构建说明用 'deal' 代替 'seed' 和 'wall'", code="bad_spec")
    deal: Mapping[str, Any] = spec["deal"]
    unknown = sorted(set(deal) - {"hands", "draws", "replacements", "luobo", "turned"})
    if unknown:
        raise RecordError(f"'deal' 中有未知字段: {', '.join(unknown)}", code="bad_spec")
    text = {name: deal.get(name) or "" for name in ("draws", "replacements", "luobo", "turned")}
    hands = deal.get("hands")
    if not isinstance(hands, list) or not all(isinstance(h, str) for h in hands):
        raise RecordError("'deal.hands' 必须是每个座位手牌的列表", code="bad_spec")
    if not all(isinstance(v, str) for v in text.values()):
        raise RecordError("draws、replacements、luobo 和 turned 必须是牌串", code="bad_spec")
    try:
        luobo = parse_tiles(text["luobo"])
        turned = parse_tiles(text["turned"])
    except NotationError as exc:
        raise RecordError(str(exc), code="bad_tile") from exc
    raw_settings = dict(spec.get("settings") or {})
    raw_settings.setdefault("players", len(hands))
    if luobo:
        raw_settings.setdefault("luobo", len(luobo))
    variant, settings, dealer, streak = _header({**spec, "settings": raw_settings})
    if len(hands) != variant.players(settings):
        raise RecordError(
            f"'deal.hands' 有 {len(hands)} 手牌, 但本桌 {variant.players(settings)} 人",
            code="bad_spec",
        )
    if len(luobo) != int(settings.get("luobo", 0)):
        raise RecordError(
            f"萝卜牌写了 {len(luobo)} 张, 但设置 luobo 是 {settings.get('luobo', 0)}",
            code="bad_spec",
        )
    if len(turned) > 1:
        raise RecordError("翻牌 turned 最多一张", code="bad_spec")
    for seat, hand in enumerate(hands):
        try:
            size, want = len(parse_tiles(hand)), 14 if seat == dealer else 13
        except NotationError as exc:
            raise RecordError(str(exc), code="bad_tile") from exc
        if size != want:
            raise RecordError(f"座位{seat} 应发 {want} 张牌, 写了 {size} 张", code="bad_spec")
    try:
        wall = wall_for(
            variant.tile_kinds(settings),
            dealer=dealer,
            hands=hands,
            draws=text["draws"] + text["turned"],
            back=text["luobo"] + text["replacements"],
        )
    except NotationError as exc:
        raise RecordError(str(exc), code="bad_tile") from exc
    except ValueError as exc:
        raise RecordError(str(exc), code="wrong_wall") from exc
    out = {k: v for k, v in spec.items() if k != "deal"}
    out.update(
        format=FORMAT,
        variant=variant.id,
        settings=dict(sorted(settings.items())),
        dealer=dealer,
        streak=streak,
        wall=" ".join(t.code for t in wall),
        actions=list(spec.get("actions", [])),
    )
    return out


def apply_recorded(rnd: Round, action: Action) -> list[Event]:
    """Apply one recorded action, reading records from before the 报杠 panel step (Z20).

    When ``action`` is not legal only because declarations are held open (报杠 panels),
    and it is not an answer to one of them (a ``DECLARE`` by a seat whose panel is open),
    it comes from an older record in which the declarations were 不报: each open panel is
    answered as a timeout would (不报), in seat order, and ``action`` applied after them.
    Otherwise this is :meth:`Round.apply`, which raises :class:`IllegalActionError` for an
    illegal action (after a 不报 was supplied, the round keeps it).
    """
    try:
        return rnd.apply(action)
    except IllegalActionError:
        held = sorted(rnd.pending_declarations)
        if not held or (action.seat in held and action.type is ActionType.DECLARE):
            raise
    events: list[Event] = []
    for seat in held:
        answer = rnd.timeout_action(seat)  # Z20: 不报, as a timeout answers a panel
        assert answer is not None, "a held declaration always has an answer"
        events.extend(rnd.apply(answer))
    events.extend(rnd.apply(action))
    return events


def _option_text(actions: Sequence[Action]) -> str:
    """A seat's legal actions in record words, discards grouped: ``discard 1m/5s, win``."""
    groups: dict[str, list[str]] = {}
    for a in actions:
        word = a.type.value + (" +declare" if a.declare else "")
        groups.setdefault(word, [])
        if a.tile is not None:
            groups[word].append(a.tile.code)
    return ", ".join(
        f"{word} {'/'.join(tiles)}" if tiles else word for word, tiles in groups.items()
    )


def waiting_text(rnd: Round) -> str:
    """Which seats the round waits for, in which window, and what each may do (Chinese).

    For example ``座位0打出5s后的抢牌窗口: 座位1 可 pung 5s, pass; 座位2 可 win, pass``.
    Empty once the hand is over.
    """
    pending = rnd.pending()
    if not pending:
        return ""
    window = rnd.window
    if rnd.phase is Phase.DECLARE:
        where = f"开局{declare_word(rnd.variant.id)}窗口 (问的是起手已听牌的闲家)"
    elif rnd.phase is Phase.CLAIM and window is not None and window.tile is not None:
        where = f"座位{window.from_seat}打出{window.tile.code}后的抢牌窗口"
    elif rnd.phase is Phase.ROB and window is not None and window.tile is not None:
        where = f"座位{window.from_seat}补杠{window.tile.code}的抢杠窗口"
    else:
        where = f"座位{rnd.turn}的回合"
    parts = []
    held = rnd.pending_declarations
    for seat in pending:
        legal = rnd.legal_actions(seat)
        if seat in held:
            panel = rnd.variant.private_info(rnd, seat, legal).get("baogang_panel", [])
            parts.append(
                f"座位{seat} 的{declare_word(rnd.variant.id)}在等报杠选择: 写 declare 带 ticks"
                f" (可勾选 {' '.join(panel)}) 为报杠, 不带 ticks 为不报"
            )
        else:
            parts.append(f"座位{seat} 可 {_option_text(legal)}")
    return f"{where}: {'; '.join(parts)}"


def _illegal(rnd: Round, index: int, action: Action, exc: IllegalActionError) -> RecordError:
    """The record error for an illegal action: the reason, then what the round waits for;
    its code is the engine's (``not_your_turn``, ``illegal_action`` …)."""
    text = f"动作 #{index} ({action}) 不合法: {exc.message}"
    s = rnd.seats[action.seat] if 0 <= action.seat < rnd.players else None
    if s is not None and s.declared and action.type in (ActionType.DISCARD, ActionType.KONG):
        text += (
            f"。座位{action.seat}已{declare_word(rnd.variant.id)}: 摸到不胡的牌由引擎自动打出"
            "(或按报杠自动开杠), 记录里不写; 只有可以胡时, 才写 win 或它打出的牌"
        )
    waiting = waiting_text(rnd)
    if waiting:
        text += f"。仍在等待 {waiting}"
    return RecordError(text, code=exc.code, index=index)


def replay(data: Mapping[str, Any]) -> Round:
    """Rebuild a round from its record. Raises :class:`RecordError` at the first bad action."""
    rnd = load_round(data)
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("'actions' 必须是列表", code="bad_actions")
    for index, raw in enumerate(actions):
        try:
            action = Action.from_json(raw)
        except RecordError as exc:
            raise RecordError(f"动作 #{index}: {exc.message}", code=exc.code, index=index) from exc
        try:
            apply_recorded(rnd, action)
        except IllegalActionError as exc:
            raise _illegal(rnd, index, action, exc) from exc
    return rnd
