"""The admin reads in Chinese: every model and field of the platform's own apps has a
Chinese name, games show by their Chinese names, and the Match and Hand admin show the
history, a live match's state, and 强制解散 through the match service, logged."""

from __future__ import annotations

import html
import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import django
import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import translation

from apps.accounts.models import User
from apps.accounts.services import token_create
from apps.clubs.services.members import join_request_create
from apps.clubs.services.templates import rule_template_create
from apps.ledgers.models import Checkout
from apps.ledgers.services import ledger_adjustment_create
from apps.matches import services
from apps.matches.models import Hand, Match
from tests.support import factories
from tests.support.play import play, random_policy

pytestmark = pytest.mark.django_db
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("boss", password=None))
    return client


@pytest.mark.parametrize("app", ["accounts", "clubs", "ledgers"])
def test_every_model_and_field_has_a_chinese_name(app: str) -> None:
    with translation.override("zh-hans"):
        for model in apps.get_app_config(app).get_models():
            assert CJK.search(str(model._meta.verbose_name)), model
            assert CJK.search(str(model._meta.verbose_name_plural)), model
            for field in model._meta.get_fields():
                if field.auto_created or not hasattr(field, "verbose_name"):
                    continue
                assert CJK.search(str(field.verbose_name)), f"{model.__name__}.{field.name}"


def visible(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_match_admin_lists_matches_in_chinese_and_summarises_a_live_one(staff: Client) -> None:
    live = factories.table("zigong")
    done = factories.table("duyun")
    play(done.match, random_policy(random.Random(7)))
    listing = visible(staff.get("/admin/matches/match/").content.decode())
    for text in (f"对局 #{live.match.pk}", "自贡麻将", "都匀独山捉鸡", "对局中", "已结束",
                 "张三、李四、王五、赵六", "强制解散所选对局"):
        assert text in listing, text
    assert not re.search(r"\b(duyun|zigong|playing|finished)\b|match #", listing)
    assert "自贡麻将" in visible(staff.get("/admin/matches/match/?variant=zigong").content.decode())

    page = visible(staff.get(f"/admin/matches/match/{live.match.pk}/change/").content.decode())
    assert "实时状态" in page and "牌局进行中" in page and "第1局，庄家 " in page
    assert not re.search(r"match #|hand \d|zigong", page)
    hand = Hand.objects.get(match=live.match, number=1)
    hand_page = visible(staff.get(f"/admin/matches/hand/{hand.pk}/change/").content.decode())
    assert "牌局进行中，不公开" in hand_page and hand.seed not in hand_page


def test_force_dissolve_goes_through_the_service_and_is_logged(
    staff: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = factories.table("duyun").match
    done = factories.table("duyun")
    play(done.match, random_policy(random.Random(7)))
    calls: list[dict[str, Any]] = []

    def fake_dissolve(*, match_id: int, reason: str) -> bool:
        calls.append({"match_id": match_id, "reason": reason})
        return Match.objects.get(pk=match_id).status == Match.Status.PLAYING

    monkeypatch.setattr(services, "match_dissolve", fake_dissolve, raising=False)
    response = staff.post("/admin/matches/match/", {
        "action": "force_dissolve", "_selected_action": [live.pk, done.match.pk],
    }, follow=True)
    assert calls == [
        {"match_id": live.pk, "reason": "admin"}, {"match_id": done.match.pk, "reason": "admin"},
    ]
    page = visible(response.content.decode())
    assert f"已强制解散对局 #{live.pk}" in page and f"对局 #{done.match.pk} 不在对局中" in page
    logged = LogEntry.objects.filter(action_flag=CHANGE, object_id=str(live.pk))
    assert [e.get_change_message() for e in logged] == ["强制解散（管理员操作，已结束的牌局保留）"]
    assert not LogEntry.objects.filter(object_id=str(done.match.pk)).exists()


def test_ledger_and_club_admin_show_games_and_matches_by_chinese_names(staff: Client) -> None:
    table = factories.table("duyun")
    play(table.match, random_policy(random.Random(7)))
    for url in ("/admin/ledgers/ledgerentry/", "/admin/ledgers/handresult/",
                "/admin/ledgers/matchresult/", "/admin/clubs/room/"):
        page = visible(staff.get(url).content.decode())
        assert not re.search(r"\b(duyun|zigong)\b|match #|hand #", page), url
    entries = visible(staff.get("/admin/ledgers/ledgerentry/").content.decode())
    assert "付方" in entries and "收方" in entries and f"对局 #{table.match.pk}" in entries


# Latin words a Chinese admin page may show: Django's own Chinese help texts name "Control",
# "Command" (on a Mac) and LDAP; API 令牌 is what the platform calls a bot's key.
LATIN_ALLOWED = {"API", "LDAP", "Control", "Command", "Mac"}


def latin_words(page: str) -> set[str]:
    """English words in the text a person sees (title, labels, options, help): runs of
    letters without digits, which rules out codes, usernames and hashes in the data."""
    page = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    runs = re.findall(r"[A-Za-z0-9_]+", text)
    return {r for r in runs if len(r) > 1 and not re.search(r"[0-9_]", r)} - LATIN_ALLOWED


def test_no_english_on_any_admin_page() -> None:
    """Every page of every model in the admin (list, add, change, history, delete), the
    index, the password forms and the login page read in Chinese, permissions included
    (Django stores them as "Can add …"); axes' English pages are not in the admin."""
    boss = User.objects.create_superuser("总管", password=None)
    client = Client()
    assert not latin_words(client.get("/admin/login/").content.decode())
    client.force_login(boss)
    played = factories.table("duyun")
    play(played.match, random_policy(random.Random(7)))
    Group.objects.create(name="客服")
    token_create(actor=played.players[0], name="小助手", play=False)
    owner = played.players[0]
    ledger_adjustment_create(club=played.club, actor=owner, match_id=played.match.pk,
                             payer_id=played.players[1].pk, payee_id=owner.pk, points=2,
                             reason="补记", request_key="3f2a9c41-7b0e-4d8a-9e61-0c5d8b2f4a17")
    _checkout_marked(played.club.pk, owner)
    join_request_create(club=played.club, user=played.outsider, message="想一起打")
    rule_template_create(club=played.club, actor=owner, name="周末局", variant="duyun",
                    settings={})
    urls = ["/admin/", "/admin/password_change/", f"/admin/accounts/user/{boss.pk}/password/"]
    for model in admin.site._registry:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        urls += [base, f"{base}add/"]
        row = model._default_manager.order_by("pk").first()
        assert row is not None, f"no {model.__name__} to look at"
        urls += [f"{base}{row.pk}/{view}/" for view in ("change", "history", "delete")]
    assert "/admin/auth/group/add/" in urls and "/admin/clubs/room/add/" in urls
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 403), url  # 403: nobody adds ledger rows
        assert not latin_words(response.content.decode()), (url, latin_words(
            response.content.decode()))
    group_page = client.get("/admin/auth/group/add/").content.decode()
    assert "亲友圈 | 房间 | 修改" in group_page and "账本 | 账本记录 | 查看" in group_page
    assert not any(model._meta.app_label == "axes" for model in admin.site._registry)


def _checkout_marked(club_id: int, owner: User) -> None:
    """The owner marks the club's 结账 paid, as on its page."""
    client = Client()
    client.force_login(owner)
    url = f"/ledgers/clubs/{club_id}/checkout/"
    form = re.search(r'<form [^>]*id="checkout-mark">(.*?)</form>',
                     client.get(url).content.decode(), re.S)
    assert form is not None
    client.post(url, dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form[1])))
    assert Checkout.objects.filter(club_id=club_id).exists()


def test_the_admin_scripts_speak_chinese() -> None:
    """Every message the admin's scripts show (the two-box picker of groups and
    permissions, calendars, clocks) has Chinese in the script catalog ("Choose 组")."""
    client = Client()
    client.force_login(User.objects.create_superuser("总管", password=None))
    catalog_js = client.get("/admin/jsi18n/").content.decode()
    catalog = json.loads(re.search(r"const newcatalog = (\{.*?\});", catalog_js, re.S)[1])
    scripts = Path(django.__file__).parent / "contrib/admin/static/admin/js"
    used = set()
    for script in scripts.rglob("*.js"):
        if "vendor" in script.parts:
            continue
        for quoted in re.findall(r"(?<![pn])gettext\(\s*('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")",
                                 script.read_text()):
            used.add(quoted[1:-1].replace("\\'", "'").replace('\\"', '"'))
    assert len(used) > 20
    missing = {m for m in used if not CJK.search(str(catalog.get(m, "")))}
    assert not missing, missing


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_compiled_translations_are_those_of_the_catalogs(domain: str) -> None:
    """locale/*.mo is what ``msgfmt`` makes of the .po beside it (an edit was compiled)."""
    folder = Path(settings.BASE_DIR) / "locale/zh_Hans/LC_MESSAGES"
    compiled = subprocess.run(["msgfmt", "-o", "-", folder / f"{domain}.po"],
                              capture_output=True, check=True).stdout
    assert compiled == (folder / f"{domain}.mo").read_bytes(), f"run: msgfmt -o {domain}.mo"
