"""Rate limits of the REST API (DRF throttles) and their Chinese answer.

:class:`WriteThrottle` limits each user's writes (POST, PUT, PATCH, DELETE), per the
view's ``throttle_scope`` (its own rate in ``DEFAULT_THROTTLE_RATES``), else the shared
``write`` scope; reads by :class:`ReadThrottle` (``user``). A client not logged in (the
login) is counted by its address from the one function that reads it. A refused
request gets 429 with a Chinese message (:mod:`apps.core.api_errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle

from apps.accounts.ratelimit import client_ip

if TYPE_CHECKING:  # DRF loads the throttles while rest_framework.views is being imported
    from rest_framework.request import Request
    from rest_framework.views import APIView


class ClientIpThrottle(SimpleRateThrottle):
    """A throttle that counts a client without a login by the one client address
    (:func:`apps.accounts.ratelimit.client_ip`), not DRF's, which believes any
    ``X-Forwarded-For``."""

    def get_ident(self, request: Request) -> str:
        return client_ip(request._request) or ""


class ReadThrottle(ClientIpThrottle, UserRateThrottle):
    """Each user's reads (``user``)."""


class WriteThrottle(ClientIpThrottle):
    """Each user's writes, by the view's ``throttle_scope`` or ``write``."""

    def __init__(self) -> None:
        """The rate depends on the view, so it is read in :meth:`allow_request`."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        self.scope = getattr(view, "throttle_scope", None) or "write"
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not request.user or not request.user.is_authenticated:
            ident = self.get_ident(request)
        else:
            ident = str(request.user.pk)
        return self.cache_format % {"scope": self.scope, "ident": ident}
