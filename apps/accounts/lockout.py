"""django-axes' answer to a locked login (``AXES_LOCKOUT_CALLABLE``), in Chinese: the API's
error body under ``/api/``, the 请稍后再试 page elsewhere; 429 both."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from .services import lockout_message

HTTP_TOO_MANY_REQUESTS = 429


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """429 with the lockout message, shaped for the page or the API that was asked."""
    message = lockout_message()
    if request.path.startswith("/api/"):
        body = {"type": "client_error",
                "errors": [{"code": "login_locked", "detail": message, "attr": None}]}
        return JsonResponse(body, status=HTTP_TOO_MANY_REQUESTS)
    return render(
        request, "accounts/rate_limited.html", {"message": message},
        status=HTTP_TOO_MANY_REQUESTS,
    )
