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

from majiang import Action, ActionType, RecordError
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
TABLE_TYPES = frozenset({"ready_next", "dissolve_propose", "dissolve_vote", "resume",
                         "contribute"})
CONTRIBUTION = re.compile(r"[0-9a-f]{64}")
"""A seat's contribution to the next wall: 32 random bytes in lowercase hex."""

ERROR_MESSAGES = {
    "malformed": "消息格式不正确",
    "too_large": "消息过长",
    "stale_version": "牌局已变化，请按最新状态操作",
    "not_seated": "你不是本桌玩家，不能操作",
    "no_match": "本房间当前没有对局",
    "match_over": "对局已结束",
    "not_between_hands": "现在不是局间准备阶段",
    "hand_in_progress": "牌局进行中，不能准备下一局",
    "vote_in_progress": "已有解散投票在进行",
    "no_vote": "当前没有解散投票",
    "already_voted": "你已经投过票了",
    "not_auto_play": "你没有处于托管状态",
    "rate_limited": "操作过于频繁，请稍后再试",
    "phrase_too_fast": "快捷语发送太频繁，请稍后再发",
    "unknown_phrase": "没有这条快捷语",
    "contribution_late": "这一局已经发牌，随机数来晚了",
    "not_committed": "这一局的洗牌承诺还没有公布",
    "already_contributed": "你已经为这一局提交过随机数",
}
"""Chinese messages of the server's own error codes (the rules package brings its own)."""


class MatchError(Exception):
    """A refused client message: a stable ``code`` and a Chinese ``message``.

    Nothing changed. The consumer replies ``{"type":"error","code":..,"message":..}``.
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.message = message or ERROR_MESSAGES.get(code, "操作无效")

    def to_json(self) -> dict[str, Any]:
        """The error frame sent to the client."""
        return {"type": "error", "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """A validated client message: ``type``, the version it was based on, and its fields."""

    type: str
    version: int | None
    fields: Mapping[str, Any]

    @property
    def is_action(self) -> bool:
        """Whether this is a rules action (discard, pung, ...)."""
        return self.type in ACTION_TYPES

    def action_for(self, seat: int) -> Action:
        """The rules action this message asks for on behalf of ``seat``."""
        data = {k: v for k, v in self.fields.items() if k in ("tile", "declare", "ticks")}
        try:
            return Action.from_json({**data, "type": self.type, "seat": seat})
        except RecordError as exc:
            raise MatchError("malformed", f"消息格式不正确: {exc.message}") from exc


def parse_client_message(data: Any) -> ClientMessage:
    """Check the shape of a decoded client frame. Raises :class:`MatchError` (``malformed``)."""
    if not isinstance(data, dict):
        raise MatchError("malformed", "消息必须是 JSON 对象")
    kind = data.get("type")
    if kind not in ACTION_TYPES and kind not in TABLE_TYPES:
        raise MatchError("malformed", f"未知的消息类型: {kind!r}"[:80])
    version = data.get("v")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise MatchError("malformed", "v 必须是整数")
    if kind in ACTION_TYPES:
        if version is None:
            raise MatchError("malformed", "操作必须带上版本号 v")
        tile = data.get("tile")
        if tile is not None:
            if not isinstance(tile, str):
                raise MatchError("malformed", "tile 必须是牌的代码，例如 5m")
            try:
                parse_tile(tile)
            except ValueError as exc:
                raise MatchError("malformed", f"无效的牌: {tile[:8]}") from exc
    if kind == "dissolve_vote" and not isinstance(data.get("agree"), bool):
        raise MatchError("malformed", "agree 必须是 true 或 false")
    if kind == "contribute":
        hand, value = data.get("hand"), data.get("value")
        if not isinstance(hand, int) or isinstance(hand, bool):
            raise MatchError("malformed", "hand 必须是局序（整数）")
        if not isinstance(value, str) or not CONTRIBUTION.fullmatch(value):
            raise MatchError("malformed", "value 必须是 64 位小写十六进制数（32 字节随机数）")
    fields = {k: v for k, v in data.items() if k not in ("type", "v")}
    return ClientMessage(kind, version, fields)


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
    phrase = data.get("phrase")
    if not isinstance(phrase, str) or phrase not in PHRASES:
        raise MatchError("unknown_phrase")
    return phrase


def table_event(kind: str, seat: int | None = None, **data: Any) -> dict[str, Any]:
    """A public, server-made event (commitment, 托管, votes, ...) in log form."""
    public: dict[str, Any] = {"type": kind}
    if seat is not None:
        public["seat"] = seat
    public.update(data)
    return {"public": public}
