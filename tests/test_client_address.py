"""The API's throttles count a client by the one client address
(``apps.accounts.ratelimit.client_ip``): a forged ``X-Forwarded-For`` from a peer that is
not a trusted proxy is not believed (issue 48)."""

from __future__ import annotations

from typing import Any

from django.test import RequestFactory
from rest_framework.request import Request

from apps.core.throttles import ReadThrottle, WriteThrottle


def request(**meta: str) -> Request:
    return Request(RequestFactory().post("/api/auth/login/", REMOTE_ADDR="203.0.113.5", **meta))


def test_the_login_throttle_counts_the_peer_not_what_the_client_says(settings: Any) -> None:
    settings.TRUSTED_PROXIES = []
    for throttle in (WriteThrottle(), ReadThrottle()):
        assert throttle.get_ident(request(HTTP_X_FORWARDED_FOR="198.51.100.1")) == "203.0.113.5"


def test_behind_a_trusted_proxy_its_hop_is_the_client(settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["203.0.113.5"]
    forged_then_real = request(HTTP_X_FORWARDED_FOR="198.51.100.1, 192.0.2.7")
    assert WriteThrottle().get_ident(forged_then_real) == "192.0.2.7"
