"""The API's authentication: Django's session, with the CSRF token on every write, or a
personal token (``Authorization: Bearer mj_…``, no cookie, no CSRF; django-rest-knox).

:class:`SessionCsrfAuthentication` is DRF's ``SessionAuthentication`` with a Chinese
refusal when the ``X-CSRFToken`` header is missing or wrong (403, code ``csrf_failed``).
:func:`csrf_check` applies the same check to a request that is not logged in yet (the
JSON login). The schema names two security schemes: ``cookieAuth`` (the session cookie)
and ``csrfToken`` (the header, required on POST, PATCH, PUT and DELETE;
:func:`csrf_schema_hook`), or ``bearerAuth`` alone.

A token without the ``play`` scope may only read (GET, HEAD, OPTIONS; at the table:
``hello``). Its ``last_used`` is written at most once a minute.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication
from rest_framework import exceptions
from rest_framework.authentication import CSRFCheck, SessionAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from apps.accounts.models import ApiToken, User

LAST_USED_EVERY = timedelta(minutes=1)

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


class ReadOnlyToken(exceptions.PermissionDenied):
    default_detail = "这个令牌只能查看，不能操作（创建令牌时勾选“可以下牌”）"
    default_code = "token_read_only"


class BearerTokenAuthentication(TokenAuthentication):  # type: ignore[misc]
    """knox's token authentication with Chinese refusals, the ``play`` scope enforced on
    every write, and ``last_used`` noted."""

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        result = super().authenticate(request)
        if result is not None and request.method not in SAFE_METHODS and not result[1].play:
            raise ReadOnlyToken()
        return result  # type: ignore[no-any-return]

    def authenticate_credentials(self, token: bytes) -> tuple[User, ApiToken]:
        try:
            user, auth = super().authenticate_credentials(token)
        except exceptions.AuthenticationFailed as exc:
            raise exceptions.AuthenticationFailed("令牌无效或已撤销", "token_invalid") from exc
        token_used(auth)
        return user, auth


def token_used(auth: ApiToken) -> None:
    """Note that ``auth`` was used now (at most one write a minute)."""
    now = timezone.now()
    if auth.last_used is None or now - auth.last_used >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=auth.pk).update(last_used=now)
        auth.last_used = now


def bearer_user(headers: list[tuple[bytes, bytes]]) -> tuple[User, ApiToken] | None:
    """The user and token of a socket handshake's ``Authorization: Bearer …`` header, or
    ``None`` (no such header, or a token that is not valid)."""
    value = dict(headers).get(b"authorization", b"").split()
    if len(value) != 2 or value[0].lower() != b"bearer":
        return None
    try:
        return BearerTokenAuthentication().authenticate_credentials(value[1])
    except exceptions.AuthenticationFailed:
        return None


class BearerScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "apps.core.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer",
                "description": "个人 API 令牌（设置 → API 令牌）；只读令牌不能写"}


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
            operation["security"] = [
                alternative if "bearerAuth" in alternative else {**alternative, "csrfToken": []}
                for alternative in security
            ]
    return result
