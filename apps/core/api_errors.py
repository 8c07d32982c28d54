"""The REST API's one error body, for every 4xx of every app: drf-standardized-errors'
format (``EXCEPTION_HANDLER``), its messages in Chinese.

Every refused request gets::

    {"type": "validation_error" | "client_error",
     "errors": [{"code": "...", "detail": "中文说明", "attr": "field" | "settings.players" | null}]}

``validation_error`` (400) carries one entry per message, ``attr`` naming the field (nested
fields joined by dots; ``null`` for a message about the whole request); ``client_error``
(403, 404, 405, 409, 415, 429, …) carries one entry with ``attr`` ``null``.

The service layer's typed errors are mapped here, once for all apps:
:class:`~apps.clubs.errors.InvalidInputError` → 400, Django's ``PermissionDenied`` (and
:class:`~apps.clubs.errors.ActionForbidden`) → 403 and ``Http404`` (and
:class:`~apps.clubs.errors.ClubNotFound`) → 404, each keeping its Chinese message.
:func:`error_schema_hook` documents the body on every operation of the OpenAPI schema.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from drf_standardized_errors.formatter import ExceptionFormatter
from drf_standardized_errors.handler import ExceptionHandler
from drf_standardized_errors.types import Error
from rest_framework import exceptions, status

from apps.clubs.errors import InvalidInputError

NON_FIELD_KEYS = frozenset({"non_field_errors", "__all__"})
"""Keys of messages about the whole request rather than one field (``attr`` null)."""


class Conflict(exceptions.APIException):
    """409: the request disagrees with what an earlier one did (e.g. a reused
    ``Idempotency-Key`` with another body)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "请求与之前的请求冲突"
    default_code = "conflict"


def _as_drf(exc: Exception) -> Exception:
    """The DRF exception a Django or service error stands for, keeping its message."""
    if isinstance(exc, exceptions.Throttled):
        seconds: float | None = getattr(exc, "wait", None)
        wait = math.ceil(seconds) if seconds is not None else None
        text = f"操作太频繁，请 {wait} 秒后再试" if wait else "操作太频繁，请稍后再试"
        answer = exceptions.Throttled(detail=text)  # without DRF's English "Expected ..."
        answer.wait = seconds  # type: ignore[attr-defined]  # still sent as Retry-After
        return answer
    if isinstance(exc, exceptions.ParseError):  # DRF's text quotes the parser, in English
        json = str(exc.detail).startswith("JSON")
        return exceptions.ParseError("请求体不是有效的 JSON" if json else "请求体无法解析")
    if isinstance(exc, InvalidInputError):
        return exceptions.ValidationError(exc.errors)
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    if isinstance(exc, DjangoPermissionDenied):
        message = str(exc)
        return exceptions.PermissionDenied(message) if message else exceptions.PermissionDenied()
    if isinstance(exc, Http404):
        message = str(exc)
        return exceptions.NotFound(message) if message else exceptions.NotFound()
    return exc


class ChineseExceptionHandler(ExceptionHandler):
    """drf-standardized-errors' handler (status, ``Retry-After``, the body) with the
    services' errors mapped and DRF's English texts replaced, keeping their Chinese."""

    def convert_known_exceptions(self, exc: Exception) -> Exception:
        """A Django or service error as the DRF error it stands for."""
        return _as_drf(exc)

    def should_not_handle(self, exc: Exception) -> bool:
        """An unexpected exception is Django's: its 500 page, its log and its report."""
        return not isinstance(exc, exceptions.APIException)


class ErrorFormatter(ExceptionFormatter):
    """The library's body, with ``attr`` null for a message about the whole request
    (``non_field_errors``, Django's ``__all__``) and for every client error."""

    def get_errors(self) -> list[Error]:
        """One error per message, fields named as the library names them."""
        whole = not isinstance(self.exc, exceptions.ValidationError)
        return [replace(error, attr=None) if whole or error.attr in NON_FIELD_KEYS else error
                for error in super().get_errors()]


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: under ``/api/`` a path no route matches gets the one error body too;
    elsewhere Django's 404 page (``templates/404.html``)."""
    if request.path.startswith("/api/"):
        body = {"type": "client_error",
                "errors": [{"code": "not_found", "detail": "没有这个接口或对象", "attr": None}]}
        return JsonResponse(body, status=status.HTTP_404_NOT_FOUND)
    return page_not_found(request, exception)


# --- The schema: the error body on every operation ----------------------------------------

ERROR_COMPONENT = "ErrorResponse"
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "所有 4xx 错误的统一格式",
    "required": ["type", "errors"],
    "properties": {
        "type": {"type": "string", "enum": ["validation_error", "client_error"]},
        "errors": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["code", "detail", "attr"],
                "properties": {
                    "code": {
                        "type": "string",
                        "description": "机器可读的错误代码，如 required、not_found",
                    },
                    "detail": {"type": "string", "description": "给用户看的中文说明"},
                    "attr": {
                        "type": "string",
                        "nullable": True,
                        "description": "出错的字段（嵌套字段以点连接，如 settings.players）；"
                        "整个请求的错误为 null",
                    },
                },
            },
        },
    },
}
ERROR_TEXTS = {
    "400": "输入有误（validation_error，每个字段一条）",
    "403": "未登录、缺少 CSRF 令牌（X-CSRFToken）或无权操作",
    "404": "不存在，或你无权查看",
    "409": "与之前的请求冲突",
    "415": "不支持的请求体格式（请用 application/json）",
    "429": "操作太频繁（见 Retry-After）",
}


def _error_response(code: str) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": ERROR_TEXTS[code],
        "content": {
            "application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}}
        },
    }
    if code == "429":
        response["headers"] = {
            "Retry-After": {"schema": {"type": "integer"}, "description": "几秒后可以再试"}
        }
    return response


def error_schema_hook(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the error component, and on each operation the
    4xx answers it can give — 403 and 429 always; 400 on every write (the services' rules)
    and on a read with query parameters; 404 when its path names something; 415 when it
    takes a body. A 4xx a view
    declares itself (a lookup's 404, an adjustment's 409) gets the same body."""
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_COMPONENT] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            codes = ["403", "429"]
            parameters = operation.get("parameters", [])
            if method != "get" or any(p.get("in") == "query" for p in parameters):
                codes.append("400")
            if "{" in path:
                codes.append("404")
            if operation.get("requestBody"):
                codes.append("415")
            for code in codes:
                responses.setdefault(code, _error_response(code))
            for code, response in responses.items():
                if code.startswith("4") and not response.get("content"):
                    # declared by the view (e.g. 409, or 404 of a lookup): same body
                    response["content"] = _error_response("400")["content"]
    return result
