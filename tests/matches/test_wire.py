"""The wire format of the table protocol: frames encoded and client frames parsed
(``apps.matches.protocol``), without a database."""

from __future__ import annotations

import json

import pytest

from apps.matches.protocol import MatchError, decode_message, encode_frame, parse_client_message


def test_a_frame_is_compact_utf8_json_with_string_keys() -> None:
    frame = {"type": "update", "v": 7, "events": [{"type": "discard", "tile": "1s"}],
             "players": {0: "幺鸡"}}
    text = encode_frame(frame)
    assert "幺鸡" in text and " " not in text
    assert json.loads(text) == {**frame, "players": {"0": "幺鸡"}}


@pytest.mark.parametrize("text", ["not json", "NaN", '{"type": "pass"', '"\\ud800"', ""])
def test_invalid_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        decode_message(text)


def test_a_version_past_64_bits_is_refused_as_malformed() -> None:
    content = decode_message('{"type": "pass", "v": 99999999999999999999999}')
    with pytest.raises(MatchError) as refused:
        parse_client_message(content)
    assert refused.value.code == "malformed"
