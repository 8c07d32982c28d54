"""The admin reads in Chinese: every model and field of the platform's own apps has a
Chinese name, games show by their Chinese names, and the Match and Hand admin show the
history, a live match's state, and 强制解散 through the match service, logged."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.test import Client
from django.utils import translation

from apps.accounts.models import User
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
