"""The API's Swagger page is served from this site (drf-spectacular-sidecar) under the
site's Content-Security-Policy: no CDN, no inline script (issue 48)."""

from __future__ import annotations

import re

import pytest
from django.test import Client


@pytest.mark.django_db
def test_the_swagger_page_loads_only_this_sites_scripts_under_the_csp(client: Client) -> None:
    page = client.get("/api/docs/")
    assert page.status_code == 200
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    html = page.content.decode()
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") for s in sources), sources
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)  # no inline script
    for source in sources:
        assert client.get(source).status_code == 200, source
