"""Schemathesis: requests generated from the OpenAPI schema of the clubs API never get a
server error.

Requests go through Django's WSGI app as a logged-in club owner (session cookie and
CSRF token). Generated path IDs are half the time swapped for real ones, so the
operations reach their business rules and not only their 404s.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings

from .conftest import World

CLUBS_API = r"^/api/(clubs|join-requests|rooms|variants)/"
"""The operations of the clubs app; other apps fuzz their own."""

schema = schemathesis.openapi.from_dict(
    SchemaGenerator().get_schema(request=None, public=True)
).include(path_regex=CLUBS_API)
wsgi_app = get_wsgi_application()


def _real_ids(world: World, path: dict[str, Any]) -> None:
    """Swap about half the generated path parameters for IDs that exist."""
    real = {
        "club_id": world.club.pk,
        "template_id": world.template.pk,
        "request_id": world.join_request.pk,
        "user_id": world.member.pk,
        "code": world.room.code,
    }
    for name, value in real.items():
        if name in path and len(str(path[name])) % 2 == 0:
            path[name] = value


@pytest.fixture
def session(world: World) -> Iterator[dict[str, str]]:
    """The owner's session cookie. Like Django's test client, keep the test's database
    connection open across requests (the handler would close it when a request ends)."""
    client = Client()
    client.force_login(world.owner)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield {django_settings.SESSION_COOKIE_NAME: client.cookies["sessionid"].value}
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_generated_requests_never_fail(case: Any, world: World, session: dict[str, str]) -> None:
    if case.path_parameters:
        _real_ids(world, case.path_parameters)
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    response = case.call(
        app=wsgi_app,
        cookies={**session, django_settings.CSRF_COOKIE_NAME: token},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
    assert response.status_code != 403 or "CSRF" not in response.text
    assert "身份认证信息未提供" not in response.text, "the session cookie was not accepted"
