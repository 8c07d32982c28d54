"""Every page a player sees is Chinese: no setting keys, choice values, variant codes, tile
codes or ruling IDs in the visible text, except inside the small 规则出处 details; and the
engine-test variant is never offered."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from django.test import Client

from apps.clubs.services import rooms
from majiang.variants import VARIANTS, player_variants

from .conftest import World, fill_room

HIDDEN = re.compile(
    r"<script\b.*?</script>|<style\b.*?</style>|<svg\b.*?</svg>"
    r"|<details class=\"source\">.*?</details>|<textarea\b.*?</textarea>",
    re.S,
)
SETTING_WORDS = sorted(
    {setting.name for v in VARIANTS.values() for setting in v.schema.settings}
    | {
        str(choice)
        for v in VARIANTS.values()
        for setting in v.schema.settings
        if setting.kind == "choice"
        for choice in setting.choices
    }
    | set(VARIANTS)
)
FORBIDDEN = [
    (re.compile(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])"), word) for word in SETTING_WORDS
] + [
    (re.compile(r"(?<![A-Za-z0-9])[DZ]\d+(?![A-Za-z0-9])"), "ruling ID"),
    (re.compile(r"(?<![A-Za-z0-9])[1-9][mps](?![A-Za-z0-9])"), "tile code"),
]


def visible_text(page: str) -> str:
    """What a reader sees: the page without scripts, QR drawings, 规则出处 details, form
    controls' values and tags."""
    text = HIDDEN.sub(" ", page)
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(text)


def _pages(w: World) -> list[tuple[str, str]]:
    club, room = w.club, w.room
    pages = [
        ("owner", "/"),
        ("owner", "/clubs/"),
        ("owner", f"/clubs/{club.pk}/"),
        ("owner", f"/rooms/{room.code}/"),
        ("owner", f"/clubs/{club.pk}/templates/new/"),
        ("owner", f"/clubs/{club.pk}/templates/{w.template.pk}/"),
        ("owner", f"/clubs/{club.pk}/rooms/new/?template={w.template.pk}"),
        ("owner", "/accounts/profile/"),
        ("owner", "/accounts/password/"),
        ("owner", "/ledgers/mine/"),
        ("owner", f"/ledgers/clubs/{club.pk}/"),
        ("member", "/"),
        ("member", f"/clubs/{club.pk}/"),
        ("member", f"/rooms/{room.code}/"),
        ("outsider", "/"),
        ("outsider", f"/clubs/{club.pk}/"),
        ("outsider", f"/rooms/{room.code}/"),
        ("outsider", f"/join/{club.invite_code}/"),
        ("outsider", "/rooms/999999/"),
        ("anonymous", "/"),
        ("anonymous", f"/rooms/{room.code}/"),
        ("anonymous", "/accounts/login/"),
        ("anonymous", "/accounts/register/"),
        ("anonymous", "/accounts/password/reset/"),
    ]
    for variant in player_variants():
        pages.append(("owner", f"/clubs/{club.pk}/rooms/new/?variant={variant.id}"))
        pages.append(("anonymous", f"/rules/{variant.id}/"))
    return pages


def test_player_pages_show_no_keys_codes_or_ruling_ids(world: World) -> None:
    zigong = rooms.room_create(club=world.club, actor=world.owner, variant="zigong", settings={})
    fill_room(zigong, [world.member])
    clients: dict[str, Client] = {}
    pages = [*_pages(world), ("member", f"/rooms/{zigong.code}/")]
    for role, url in pages:
        client = clients.setdefault(role, world.client(role))
        response = client.get(url)
        assert response.status_code in (200, 404), (url, response.status_code)
        text = visible_text(response.content.decode())
        for pattern, what in FORBIDDEN:
            found = pattern.search(text)
            context = text[max(0, found.start() - 40) : found.end() + 40] if found else ""
            assert found is None, f"{url} ({role}) shows {what}: …{context}…"
        assert "基础规则" not in text, url


def test_rule_ids_are_kept_in_the_rule_source_details(world: World) -> None:
    page = Client().get("/rules/duyun/").content.decode()
    details = re.findall(r'<details class="source">.*?</details>', page, re.S)
    assert details
    assert all("规则出处" in d for d in details)
    assert any("D22" in d for d in details)


@pytest.mark.parametrize(
    "url",
    [
        lambda w: f"/clubs/{w.club.pk}/rooms/new/?variant=basic",
        lambda w: f"/clubs/{w.club.pk}/templates/new/?variant=basic",
        lambda w: "/rules/basic/",
    ],
)
def test_the_test_variant_is_never_offered(world: World, url: Callable[[World], str]) -> None:
    response = world.client("owner").get(url(world))
    assert response.status_code == 404
    assert "没有这种玩法" in response.content.decode()


def test_rule_forms_offer_only_the_clubs_variants(world: World) -> None:
    world.club.variants = ["zigong"]
    world.club.save()
    page = world.client("owner").get(f"/clubs/{world.club.pk}/rooms/new/").content.decode()
    assert "自贡麻将" in page
    assert "都匀独山捉鸡" not in page
    assert world.client("owner").get(
        f"/clubs/{world.club.pk}/rooms/new/?variant=duyun"
    ).status_code == 404


def test_every_setting_has_a_chinese_label_and_description() -> None:
    for variant in VARIANTS.values():
        for setting in variant.schema.settings:
            assert setting.label and not setting.label.isascii(), setting.name
            assert setting.description and not re.search(r"[DZ]\d", setting.description)
