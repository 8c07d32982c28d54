"""Login lockout and client addresses (issue 30, "High"): a forged X-Forwarded-For does not
escape the lockout, and one player's wrong passwords do not lock out another player who
shares the address."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, RequestFactory

from apps.accounts.models import User
from apps.accounts.ratelimit import client_ip

PASSWORD = "mahjong-Tiles-2025"
PROXY = "10.0.0.2"
pytestmark = pytest.mark.django_db


def _login(client: Client, username: str, password: str, forwarded: str) -> int:
    response = client.post(
        "/accounts/login/", {"username": username, "password": password},
        REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=forwarded,
    )
    return response.status_code


def test_only_the_proxys_hop_is_believed(settings: Any) -> None:
    settings.TRUSTED_PROXIES = [PROXY]
    factory = RequestFactory()
    behind = factory.get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7")
    assert client_ip(behind) == "203.0.113.7"  # the client's own entry comes first
    direct = factory.get("/", REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert client_ip(direct) == "198.51.100.1"  # not from the proxy: the header is ignored
    settings.TRUSTED_PROXIES = []
    assert client_ip(behind) == PROXY


def test_forged_addresses_do_not_escape_the_lockout(settings: Any) -> None:
    settings.TRUSTED_PROXIES = [PROXY]
    User.objects.create_user("victim", password=PASSWORD)
    client = Client()
    codes = [
        _login(client, "victim", "wrong", f"10.9.9.{i}, 203.0.113.7") for i in range(20)
    ]
    assert 429 in codes[: settings.AXES_FAILURE_LIMIT]
    assert _login(client, "victim", PASSWORD, "1.1.1.1, 203.0.113.7") == 429


def test_one_player_cannot_lock_out_another_on_the_same_network(settings: Any) -> None:
    settings.TRUSTED_PROXIES = [PROXY]
    User.objects.create_user("careless", password=PASSWORD)
    User.objects.create_user("neighbour", password=PASSWORD)
    shared = "203.0.113.50"  # one home or campus address
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(Client(), "careless", "wrong", shared)
    assert _login(Client(), "careless", PASSWORD, shared) == 429
    assert _login(Client(), "neighbour", PASSWORD, shared) == 302
