"""The REST API's exception handler: DRF's, with a Chinese answer to a throttled request."""

from __future__ import annotations

import math
from typing import Any

from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with a Chinese message for throttled requests."""
    if isinstance(exc, exceptions.Throttled):
        seconds: float | None = getattr(exc, "wait", None)
        wait = math.ceil(seconds) if seconds is not None else None
        text = f"操作太频繁，请 {wait} 秒后再试" if wait else "操作太频繁，请稍后再试"
        answer = exceptions.Throttled(detail=text)  # without DRF's English "Expected ..."
        answer.wait = seconds  # type: ignore[attr-defined]  # still sent as Retry-After
        exc = answer
    return exception_handler(exc, context)
