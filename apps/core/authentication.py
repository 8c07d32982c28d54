"""The API's authentication: Django's session, with the CSRF token on every write.

:class:`SessionCsrfAuthentication` is DRF's ``SessionAuthentication`` with a Chinese
refusal when the ``X-CSRFToken`` header is missing or wrong (403, code ``csrf_failed``).
:func:`csrf_check` applies the same check to a request that is not logged in yet (the
JSON login). The schema names two security schemes: ``cookieAuth`` (the session cookie)
and ``csrfToken`` (the header, required on POST, PATCH, PUT and DELETE;
:func:`csrf_schema_hook`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import CSRFCheck, SessionAuthentication
from rest_framework.request import Request

CSRF_HEADER = "X-CSRFToken"


class CsrfFailed(exceptions.PermissionDenied):
    default_detail = "CSRF 校验失败：写操作须在请求头 X-CSRFToken 中带上 csrftoken Cookie 的值"
    default_code = "csrf_failed"


def csrf_check(request: Request | HttpRequest) -> None:
    """Raise :class:`CsrfFailed` unless the request carries a valid CSRF token."""
    raw = request._request if isinstance(request, Request) else request
    check = CSRFCheck(lambda _request: None)  # type: ignore[arg-type]
    check.process_request(raw)  # reads the cookie into request.META["CSRF_COOKIE"]
    if check.process_view(raw, None, (), {}):  # type: ignore[arg-type]
        raise CsrfFailed()


class SessionCsrfAuthentication(SessionAuthentication):
    """Session authentication whose CSRF refusal is in Chinese."""

    def enforce_csrf(self, request: Request) -> None:
        csrf_check(request)


class SessionCsrfScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "apps.core.authentication.SessionCsrfAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}


CSRF_SCHEME = {
    "type": "apiKey",
    "in": "header",
    "name": CSRF_HEADER,
    "description": "写操作（POST、PATCH、PUT、DELETE）必须带上：值为 csrftoken Cookie 的值，"
    "或 GET /api/auth/csrf/ 返回的 csrf_token",
}


def csrf_schema_hook(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the ``csrfToken`` scheme, required together
    with whatever else authenticates each write."""
    schemes = result.setdefault("components", {}).setdefault("securitySchemes", {})
    schemes["csrfToken"] = CSRF_SCHEME
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in {"post", "put", "patch", "delete"}:
                continue
            security = operation.get("security") or [{}]
            operation["security"] = [{**alternative, "csrfToken": []} for alternative in security]
    return result
