"""Content-Security-Policy (issue 30, "headers"): every page is served with a policy that
allows no inline code, and every page's HTML keeps to it (scripts from static files or
with the request's nonce, no inline event handlers or ``javascript:`` links). Inline
style attributes are allowed (avatars and tiles are coloured with them); ``<style>``
elements still need the nonce."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from apps.clubs.models import Club, Room

from .helpers import build_table

pytestmark = pytest.mark.django_db(transaction=True)


class _Page(HTMLParser):
    """Every place of a page where the policy would block something, as text."""

    def __init__(self, nonce: str) -> None:
        super().__init__()
        self.nonce, self.problems = nonce, []
        self.in_inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=…> (an inline event handler)")
            if name in ("href", "src", "action") and (value or "").strip().startswith(
                "javascript:"
            ):
                self.problems.append(f"<{tag} {name}=javascript:…>")
            if name == "src" and re.match(r"(https?:)?//", value or ""):
                self.problems.append(f"<{tag} src={value}> (another site)")
        if tag == "style" and values.get("nonce") != self.nonce:
            self.problems.append("<style> without the nonce")
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.in_inline_script = values.get("nonce") != self.nonce

    def handle_data(self, data: str) -> None:
        if self.in_inline_script and data.strip():
            self.problems.append(f"an inline <script> without the nonce: {data.strip()[:40]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_inline_script = False


def _check(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code in (200, 403), (path, response.status_code)
    policy = response["Content-Security-Policy"]
    directives = {
        part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()
    }
    assert "'unsafe-inline'" not in directives["script-src"], path
    assert "'unsafe-eval'" not in policy, path
    assert directives["script-src"][0] == "'self'" and directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    nonce = next((s[7:-1] for s in directives["script-src"] if s.startswith("'nonce-")), "")
    page = _Page(nonce)
    page.feed(response.content.decode())
    assert page.problems == [], (path, page.problems)


def test_every_page_keeps_to_its_content_security_policy() -> None:
    table = build_table()  # the match has started: the table page has a live hand
    waiting = build_table(start=False)
    owner = table.users[0]
    club = Club.objects.get(pk=table.room.club_id)
    client = Client()
    for path in ("/", "/accounts/login/", "/accounts/register/"):
        _check(client, path)
    client.force_login(owner)
    room = Room.objects.get(pk=table.room.pk)
    paths = [
        "/", "/clubs/", f"/clubs/{club.pk}/",
        f"/clubs/{club.pk}/rooms/new/",
        f"/rooms/{room.code}/", f"/rooms/{room.code}/play/", "/accounts/profile/",
        "/ledgers/mine/", f"/ledgers/clubs/{club.pk}/", f"/ledgers/clubs/{club.pk}/checkout/",
        "/rules/duyun/", "/rules/zigong/",
    ]
    for path in paths:
        _check(client, path)
    client.force_login(waiting.users[1])
    _check(client, f"/rooms/{waiting.room.code}/")  # a lobby with seats to take
    client.force_login(table.outsider)
    _check(client, f"/rooms/{room.code}/")  # the join page of a non-member
    closed = build_table(allow_spectators=False)
    client.force_login(closed.spectator)
    _check(client, f"/rooms/{closed.room.code}/play/")  # the 403 page
