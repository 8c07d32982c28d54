"""The table protocol's building blocks: typed errors, client messages and logged events.

See ``docs/protocol.md``. Everything here is pure (no database); services and consumers
share it so that a message is validated the same way wherever it arrives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from majiang import Action, ActionType, IllegalActionError, RecordError
from majiang.refusals import CODES as REFUSAL_CODES
from majiang.refusals import Refusal, words
from majiang.tiles import parse_tile

MAX_MESSAGE_BYTES = 4096
"""Larger client frames are refused with ``too_large`` without being parsed."""


def encode_frame(frame: Mapping[str, Any]) -> str:
    """A server frame as compact JSON text (UTF-8 on the wire: names are not escaped).

    orjson: a move encodes five frames, and the standard library's encoder was about a
    tenth of a move's CPU. Integer keys become strings, as ``json.dumps`` makes them.
    """
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


def decode_message(text: str) -> Any:
    """Parse a client frame's JSON; raises :class:`ValueError` when it is not valid JSON
    (``NaN`` and lone surrogates included). An integer past 64 bits comes back as a float,
    which :func:`parse_client_message` refuses where an integer is due."""
    return orjson.loads(text)

ACTION_TYPES = frozenset(t.value for t in ActionType)
CONTRIBUTION = re.compile(r"[0-9a-f]{64}")
"""A seat's contribution to the next wall: 32 random bytes in lowercase hex."""

ERROR_MESSAGES = {
    "malformed": "消息格式不正确",
    "too_large": "消息过长",
    "stale_version": "牌局已变化，请按最新状态操作",
    "not_seated": "你不是本桌玩家，不能操作",
    "read_only": "这个令牌只能查看，不能操作",
    "no_match": "本房间当前没有对局",
    "match_over": "对局已结束",
    "not_between_hands": "现在不是局间准备阶段",
    "already_ready": "你已经准备好了，请等待其他玩家",
    "hand_in_progress": "牌局进行中，不能准备下一局",
    "vote_in_progress": "已有解散投票在进行",
    "no_vote": "当前没有解散投票",
    "already_voted": "你已经投过票了",
    "not_auto_play": "你没有处于托管状态",
    "already_auto_play": "你已经在托管中",
    "auto_play_in_window": "正在等吃碰杠胡的选择，本轮过后再托管",
    "rematch_refused": "现在不能再来一场",
    "rate_limited": "操作过于频繁，请稍后再试",
    "phrase_too_fast": "快捷语发送太频繁，请稍后再发",
    "unknown_phrase": "没有这条快捷语",
    "contribution_late": "这一局已经发牌，随机数来晚了",
    "not_committed": "这一局的洗牌承诺还没有公布",
    "already_contributed": "你已经为这一局提交过随机数",
    "unavailable": "服务器暂时无法保存操作，正在重连，请稍后再试",
}
"""Chinese messages of the server's own error codes. The rules package's refusals
(``majiang.IllegalActionError``: ``not_your_turn``, ``illegal_action`` …) are worded by
``majiang.refusals``, the one place that words them.

No message a player can see quotes what the client sent (a 500-tile ``ticks`` once came
back whole), and none holds Latin letters or digits: ``code`` is for programs."""

MAX_TICKS = 4
"""A 报杠 choice ticks at most this many tiles (a hand holds at most four triplets)."""
_TAKES_TILE = frozenset({"discard", "pung", "kong"})
MAX_ID_LENGTH = 64
"""A request ``id`` is an integer within 64 bits or a string of 1 to this many characters."""
INT64 = (-(2**63), 2**63 - 1)
_FIELDS = {
    **{kind: frozenset({"tile", "declare", "ticks", "seat"}) for kind in ACTION_TYPES},
    "ready_next": frozenset(), "resume": frozenset(), "auto_play": frozenset(),
    "dissolve_propose": frozenset(),
    "dissolve_vote": frozenset({"agree"}),
    "contribute": frozenset({"hand", "value"}),
}
"""Each message type's fields besides ``type``, ``v`` and ``id``; any other is malformed."""


class MatchError(Exception):
    """A refused client message: a stable ``code`` and a Chinese ``message``.

    Nothing changed. The consumer replies ``{"type":"error","code":..,"message":..}``.
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        if not message:
            message = ERROR_MESSAGES.get(code) or (
                words(Refusal(code)) if code in REFUSAL_CODES else "操作无效"
            )
        self.message = message

    @classmethod
    def from_rules(cls, error: IllegalActionError) -> MatchError:
        """A rules refusal as the player sees it: its code, and its words from
        ``majiang.refusals`` (which name tiles in Chinese and never quote the input)."""
        return cls(error.code, error.message)

    def to_json(self) -> dict[str, Any]:
        """The error frame sent to the client."""
        return {"type": "error", "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """A validated client message: ``type``, the version it was based on, and its fields."""

    type: str
    version: int | None
    fields: Mapping[str, Any]

    def action_for(self, seat: int) -> Action:
        """The rules action this message asks for on behalf of ``seat`` (any ``seat`` field
        the client sent is ignored: the seat is the connection's)."""
        try:
            return Action.from_json({**self.fields, "type": self.type, "seat": seat})
        except RecordError as exc:  # parse_client_message checked the fields already
            raise MatchError("malformed") from exc


def _is_tile(value: Any) -> bool:
    try:
        parse_tile(value)
    except ValueError:
        return False
    return True


def json_integer(value: Any, low: int = INT64[0], high: int = INT64[1]) -> int | None:
    """``value`` as an integer in ``low``–``high``, or ``None``: a JSON integer, as JSON
    Schema counts one (``3.0`` is ``3``; a boolean is not one). orjson reads an integer past
    64 bits as a float, which the bounds refuse."""
    if type(value) not in (int, float) or not low <= value <= high or value % 1:
        return None  # not a number (a boolean is not one), out of bounds or a fraction
    return int(value)


def request_id(data: Any) -> int | str | None:
    """The ``id`` a client put on a message (``None`` when it put none); raises
    :class:`MatchError` (``malformed``) when it is neither an integer within 64 bits nor a
    string of 1 to :data:`MAX_ID_LENGTH` characters. Its answer carries it back."""
    if not isinstance(data, dict) or data.get("id") is None:
        return None
    value = data["id"]
    if isinstance(value, str) and 1 <= len(value) <= MAX_ID_LENGTH:
        return value
    number = json_integer(value)
    if number is None:
        raise MatchError("malformed", "消息编号必须是整数或不太长的文字")
    return number


def parse_hello(data: dict[str, Any]) -> int | None:
    """The version a ``hello`` resumes from (``None``: a snapshot); raises
    :class:`MatchError` (``malformed``) for another field or a ``v`` that is not an integer
    within 64 bits or ``null``."""
    _only_fields(data, {"type", "v", "id"})
    request_id(data)
    if data.get("v") is None:
        return None
    since = json_integer(data["v"])
    if since is None:
        raise MatchError("malformed", "版本号必须是整数")
    return since


def parse_ping(data: dict[str, Any]) -> None:
    """Check a ``ping``: raises :class:`MatchError` (``malformed``) for a field besides
    ``type`` and ``id``."""
    _only_fields(data, {"type", "id"})


def _only_fields(data: Mapping[str, Any], allowed: set[str] | frozenset[str]) -> None:
    """Refuse a message with a field besides ``allowed`` (``malformed``), as the schema does."""
    if not set(data) <= allowed:
        raise MatchError("malformed", "消息里有不认识的字段")


def message_type(data: Any) -> str | None:
    """The ``type`` of a decoded client message; ``None`` when it is not an object with a
    text ``type`` (a list or an object there names no type)."""
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def parse_client_message(data: Any) -> ClientMessage:
    """Check the shape of a decoded client frame. Raises :class:`MatchError` (``malformed``)
    with a message that never quotes the input.

    Every type has its fields (``docs/protocol.asyncapi.yaml``); a field it does not have
    is malformed, as the schema says. ``v`` and ``id`` may be on any message. Each type's
    own fields are checked by its parser (:data:`_FIELD_PARSERS`).
    """
    if not isinstance(data, dict):
        raise MatchError("malformed", "消息必须是 JSON 对象")
    kind = message_type(data)
    if kind not in _FIELDS:
        raise MatchError("malformed", "未知的消息类型")
    _only_fields(data, _FIELDS[kind] | {"type", "v", "id"})
    request_id(data)
    version = data.get("v")
    if version is not None:
        version = json_integer(version)
        if version is None:
            raise MatchError("malformed", "版本号必须是整数")
    parse = _FIELD_PARSERS.get(kind, _no_fields)
    return ClientMessage(kind, version, parse(kind, version, data))


def _no_fields(kind: str, version: int | None, data: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _action_fields(kind: str, version: int | None, data: Mapping[str, Any]) -> dict[str, Any]:
    """An action needs ``v``; ``discard``, ``pung`` and ``kong`` need a ``tile`` and the
    others take none (``null`` is not a tile); ``declare`` is a boolean, only on
    ``discard``; ``ticks`` is a list of at most :data:`MAX_TICKS` tile codes. Whether the
    action is legal now is the rules' business (``illegal_action`` and the like). A
    ``seat`` field is ignored: the seat is the connection's."""
    if version is None:
        raise MatchError("malformed", "操作必须带上版本号")
    if kind in _TAKES_TILE:
        if not _is_tile(data.get("tile")):
            raise MatchError("malformed", "请指明哪张牌（牌的代码无效）")
    elif "tile" in data:
        raise MatchError("malformed", "这个操作不用指明牌")
    declare = data.get("declare", False)
    if not isinstance(declare, bool):
        raise MatchError("malformed", "报叫标记必须是真或假")
    if declare and kind != "discard":
        raise MatchError("malformed", "只有打牌时可以同时报叫")
    ticks = data.get("ticks")
    if ticks is not None and not (
        isinstance(ticks, list) and len(ticks) <= MAX_TICKS and all(map(_is_tile, ticks))
    ):
        raise MatchError("malformed", "报杠的勾选无效")
    return {k: v for k, v in data.items() if k in ("tile", "declare", "ticks")}


def _vote_fields(kind: str, version: int | None, data: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(data.get("agree"), bool):
        raise MatchError("malformed", "解散投票必须选择同意或不同意")
    return {"agree": data["agree"]}


def _contribution_fields(
    kind: str, version: int | None, data: Mapping[str, Any],
) -> dict[str, Any]:
    hand = json_integer(data.get("hand"), 1)
    if hand is None:
        raise MatchError("malformed", "随机数必须注明是哪一局")
    value = data.get("value")
    if not isinstance(value, str) or not CONTRIBUTION.fullmatch(value):
        raise MatchError("malformed", "随机数的格式不对")
    return {"hand": hand, "value": value}


_FIELD_PARSERS = {
    **dict.fromkeys(ACTION_TYPES, _action_fields),
    "dissolve_vote": _vote_fields,
    "contribute": _contribution_fields,
}
"""Each message type's check of its own fields, returning them; a type without fields
has none to check."""


PHRASES = {
    "hurry": "快点吧，等得花儿都谢了",
    "lag": "不好意思，网卡了",
    "nice": "打得好！",
    "sorry": "不好意思，手滑了",
    "again": "再来一局！",
    "bye": "有事先走，下次再玩",
    "wow": "厉害厉害！",
    "smile": "😄",
    "cry": "😭",
    "angry": "😠",
}
"""The quick phrases and emotes (快捷语) a seat may send, by id; there is no free text."""


def parse_phrase(data: Mapping[str, Any]) -> str:
    """The id of a ``phrase`` message's quick phrase; raises :class:`MatchError`."""
    _only_fields(data, {"type", "phrase", "id"})
    phrase = data.get("phrase")
    if not isinstance(phrase, str) or phrase not in PHRASES:
        raise MatchError("unknown_phrase")
    return phrase


ROOM_MESSAGES = frozenset({"rematch", "rematch_leave"})
"""Messages about the room rather than its match: 再来一场 (agree) and 离开 (leave the
seat), answered by the clubs app's services (:mod:`apps.clubs.services.rematch`)."""


def parse_room_message(data: Mapping[str, Any]) -> str:
    """The type of a ``rematch`` or ``rematch_leave`` message; raises :class:`MatchError`
    (``malformed``) for another field."""
    _only_fields(data, {"type", "v", "id"})
    return str(data["type"])


def table_event(kind: str, seat: int | None = None, **data: Any) -> dict[str, Any]:
    """A public, server-made event (commitment, 托管, votes, ...) in log form."""
    public: dict[str, Any] = {"type": kind}
    if seat is not None:
        public["seat"] = seat
    public.update(data)
    return {"public": public}
