"""Reading the API's one error body (apps/core/api_errors.py) in tests."""

from __future__ import annotations

from typing import Any


def error_fields(body: Any) -> dict[str, Any]:
    """A ``validation_error`` body as ``{field: [messages]}`` (nested fields as nested
    dicts; messages about the whole request under ``non_field_errors``), after checking
    its shape."""
    assert set(body) == {"type", "errors"}, body
    assert body["type"] == "validation_error", body
    out: dict[str, Any] = {}
    for error in body["errors"]:
        assert set(error) == {"code", "detail", "attr"}, error
        assert isinstance(error["code"], str) and error["code"], error
        assert isinstance(error["detail"], str) and error["detail"], error
        path = (error["attr"] or "non_field_errors").split(".")
        node = out
        for name in path[:-1]:
            node = node.setdefault(name, {})
        node.setdefault(path[-1], []).append(error["detail"])
    return out


def client_error(body: Any) -> tuple[str, str]:
    """A ``client_error`` body's one ``(code, detail)``, after checking its shape."""
    assert set(body) == {"type", "errors"}, body
    assert body["type"] == "client_error", body
    [error] = body["errors"]
    assert set(error) == {"code", "detail", "attr"} and error["attr"] is None, error
    return error["code"], error["detail"]
