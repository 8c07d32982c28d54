"""A body the API cannot parse gets the one error body, in Chinese (issue 48): DRF's own
text ("JSON parse error - Expecting property name …") quoted the parser in English."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import User


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/clubs/", "/api/auth/login/"])
def test_a_broken_json_body_is_refused_in_chinese(client: Client, path: str) -> None:
    client.force_login(User.objects.create_user("parse", password="x"))
    response = client.generic("POST", path, b"{bad", content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"type": "client_error", "errors": [
        {"code": "parse_error", "detail": "请求体不是有效的 JSON", "attr": None}
    ]}
