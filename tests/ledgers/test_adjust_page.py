"""调账 by picking names: the match, then payer and payee among its players; a preview
says what the entry will do before anything is written; a double submit writes once."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.models import LedgerEntry
from tests.support.factories import Table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def options(page: str, name: str) -> dict[str, str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None, name
    return dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(1)))


def hidden(page: str) -> dict[str, str]:
    form = re.search(r'id="adjust-preview">(.*?)</form>', page, re.S)
    assert form is not None
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(1)))


def text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_the_owner_picks_names_previews_and_a_double_submit_writes_once(
    finished_table: Table,
) -> None:
    table, owner = finished_table, client_for(finished_table.players[0])
    url = f"/ledgers/clubs/{table.club.pk}/adjust/"
    matches = options(owner.get(url).content.decode(), "match")
    label = matches[str(table.match.pk)]
    assert "都匀独山捉鸡" in label and "张三、李四、王五、赵六" in label

    page = owner.get(url, {"match": table.match.pk}).content.decode()
    names = {v: k for k, v in options(page, "payer").items() if k}
    assert set(names) == {"张三", "李四", "王五", "赵六"}
    assert "旁人" not in options(page, "payee").values()

    before = LedgerEntry.objects.count()
    li_total = table.match.totals[1]
    form = {"match": table.match.pk, "payer": names["李四"], "payee": names["张三"],
            "points": "5", "reason": "漏记一个杠", "corrects": "", "action": "preview"}
    preview = owner.post(url, form).content.decode()
    assert "李四 付 张三 5分" in text(preview)
    assert f"李四 {li_total} → {li_total - 5}" in text(preview)
    assert LedgerEntry.objects.count() == before

    confirm = {**hidden(preview), "action": "confirm"}
    assert confirm["key"]
    first = owner.post(url, confirm)
    second = owner.post(url, confirm)
    assert first.status_code == second.status_code == 302
    assert LedgerEntry.objects.count() == before + 1
    entry = LedgerEntry.objects.latest("pk")
    assert (entry.payer, entry.payee, entry.points, entry.reason) == (
        table.players[1], table.players[0], 5, "漏记一个杠"
    )
    shown = text(owner.get(first["Location"]).content.decode())
    assert "调账已记录" in shown and "李四 付 张三 5分（漏记一个杠）" in shown
    # The same form key with other values (edited after submitting): refused, not taken
    # for the first submit.
    edited = owner.post(url, {**confirm, "points": "6"})
    assert edited.status_code == 200
    assert "这个请求编号已用于另一笔调账" in text(edited.content.decode())
    assert LedgerEntry.objects.count() == before + 1


@pytest.mark.parametrize(("change", "message"), [
    ({"payee": "payer"}, "付方和收方不能是同一人"),
    ({"payer": "outsider"}, "付方不是该对局的玩家"),
    ({"reason": ""}, "请填写调账原因"),
    ({"reason": "   "}, "请填写调账原因"),
    ({"points": "abc"}, "分数必须是整数"),
    ({"points": "0"}, "分数必须为正整数"),
    ({"match": "x"}, "请从列表中选择对局"),
    ({"corrects": "999999"}, "被更正的记录不属于该对局"),
])
def test_bad_input_says_what_is_wrong_and_writes_nothing(
    finished_table: Table, change: dict[str, str], message: str
) -> None:
    table = finished_table
    ids = {"payer": str(table.players[1].pk), "outsider": str(table.member.pk)}
    form: dict[str, Any] = {
        "match": table.match.pk, "payer": table.players[1].pk, "payee": table.players[0].pk,
        "points": "5", "reason": "漏记", "corrects": "", "action": "preview",
    }
    form.update({k: ids.get(v, v) for k, v in change.items()})
    before = LedgerEntry.objects.count()
    for action in ("preview", "confirm"):
        response = client_for(table.players[0]).post(
            f"/ledgers/clubs/{table.club.pk}/adjust/", {**form, "action": action}
        )
        assert response.status_code == 200 and message in response.content.decode()
    assert LedgerEntry.objects.count() == before


def test_only_the_owner_adjusts(finished_table: Table) -> None:
    url = f"/ledgers/clubs/{finished_table.club.pk}/adjust/"
    assert client_for(finished_table.admin).get(url).status_code == 403
    assert client_for(finished_table.players[1]).get(url).status_code == 403
    assert client_for(finished_table.outsider).get(url).status_code == 404
