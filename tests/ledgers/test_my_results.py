"""我的战绩 as a player reads it: one row per match (date, club, game, opponents by name,
hands, my total, rank), its hands on demand, filters that say what is wrong with a bad
value, and statistics that agree with the hands' own settlements."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.clubs.models import Club, Membership
from apps.ledgers.models import HandResult
from apps.matches.models import Match
from tests.support import factories
from tests.support.kept import Keeper, keep, kept_value
from tests.support.play import play, winning_policy

pytestmark = pytest.mark.django_db


@dataclass
class Played:
    players: list[User]
    duyun: Match
    zigong: Match
    home: Club
    other: Club


def _played() -> Played:
    home, players = factories.players_club()
    duyun = Match.objects.get(room=factories.started_room(home, players, "duyun"))
    play(duyun, winning_policy(random.Random(0)))
    other = Club.objects.create(name="周末圈", invite_code=f"W{home.invite_code}"[:12])
    for i, user in enumerate(players):
        Membership.objects.create(club=other, user=user, role="owner" if i == 0 else "member")
    zigong = Match.objects.get(room=factories.started_room(other, players, "zigong"))
    play(zigong, winning_policy(random.Random(0)))
    return Played(
        players, Match.objects.get(pk=duyun.pk), Match.objects.get(pk=zigong.pk), home, other
    )


def _again(played: Played) -> Played:
    return Played([User.objects.get(pk=u.pk) for u in played.players],
                  Match.objects.get(pk=played.duyun.pk), Match.objects.get(pk=played.zigong.pk),
                  Club.objects.get(pk=played.home.pk), Club.objects.get(pk=played.other.pk))


@pytest.fixture(scope="module")
def _kept_played(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Keeper]:
    yield from keep(request, django_db_blocker, _played)


@pytest.fixture
def played(_kept_played: Keeper, db: None) -> Played:
    """张三, 李四, 王五 and 赵六 play a 都匀 match in one club and a 自贡 match in another
    (once for the module: :mod:`tests.support.kept`)."""
    return kept_value(_kept_played, _played, _again)


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def summaries(page: str) -> list[str]:
    return [text(s) for s in re.findall(r"<summary>(.*?)</summary>", page, re.S)]


def stats(page: str) -> dict[str, str]:
    box = re.search(r'<dl class="stats" id="my-stats">(.*?)</dl>', page, re.S)
    assert box is not None
    found = re.findall(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", box.group(1))
    return {dt: text(dd) for dt, dd in found}


def test_each_match_is_one_row_in_words_with_its_hands_inside(played: Played) -> None:
    me = played.players[3]
    page = client_for(me).get("/ledgers/mine/").content.decode()
    rows = summaries(page)
    assert len(rows) == 2
    for row, match, club, game in (
        (rows[0], played.zigong, "周末圈", "自贡麻将"),
        (rows[1], played.duyun, "测试圈", "都匀独山捉鸡"),
    ):
        mine = match.totals[3]
        rank = 1 + sum(1 for t in match.totals if t > mine)
        assert f"· {club} · {game} ·" in row
        assert "对手：张三、李四、王五" in row and f"{match.hands_played}局" in row
        assert f"我的得分 {mine}分" in row and f"第{rank}名" in row
    for code in ("duyun", "zigong", "第1座", "第4座", " / "):
        assert code not in text(page)
    hands = HandResult.objects.filter(match=played.duyun, user=me).select_related("hand")
    for r in hands:
        assert f'href="/ledgers/hands/{r.hand_id}/">第{r.hand.number}局' in page


def expected_stats(matches: list[Match], seat: int) -> tuple[dict[str, str], int]:
    """The statistics, worked out from the 都匀 settlements: a 牌型 line is paid to a winner
    by every other seat on 自摸, by the discarder alone on a win off a discard."""
    hands = wins = self_draws = dealt_in = points = 0
    best = 0
    for match in matches:
        for hand in match.hands.exclude(settlement=None):
            hands += 1
            points += hand.settlement["totals"][seat]
            payers: dict[int, set[int]] = {}
            for line in hand.settlement["lines"]:
                if line["category"].startswith("牌型:"):
                    payers.setdefault(line["payee"], set()).add(line["payer"])
                    if line["payee"] == seat:
                        best = max(best, line["points"])
            wins += seat in payers
            self_draws += len(payers.get(seat, ())) == 3
            dealt_in += any(p == {seat} for p in payers.values())

    def rate(n: int) -> str:
        return f"{100 * n / hands:.1f}%"
    return {
        "场次": str(len(matches)), "局数": str(hands), "胡牌率": rate(wins),
        "点炮率": rate(dealt_in), "自摸率": rate(self_draws),
        "平均得分": f"{points / len(matches):.1f}", "累计": f"{points}分",
    }, best


def test_statistics_agree_with_the_settlements(played: Played) -> None:
    for seat in (0, 1, 3):
        query = {"club": played.home.pk}
        page = client_for(played.players[seat]).get("/ledgers/mine/", query).content.decode()
        shown = stats(page)
        expected, best = expected_stats([played.duyun], seat)
        assert {k: shown[k] for k in expected} == expected
        biggest = shown["最大番/牌型"]
        assert (biggest == "—") if not best else biggest.endswith(f" {best}分"), biggest
        assert page.count("<polyline") == 1


def test_filters_narrow_the_list_and_a_bad_value_says_why(played: Played) -> None:
    client = client_for(played.players[0])
    by_club = summaries(client.get("/ledgers/mine/", {"club": played.other.pk}).content.decode())
    assert len(by_club) == 1 and "周末圈" in by_club[0]
    by_game = summaries(client.get("/ledgers/mine/", {"variant": "duyun"}).content.decode())
    assert len(by_game) == 1 and "都匀独山捉鸡" in by_game[0]
    later = client.get("/ledgers/mine/", {"start": "2099-01-01"}).content.decode()
    assert summaries(later) == [] and "没有符合条件的对局" in later
    for query, message in (
        ({"club": "abc"}, "没有这个亲友圈"),
        ({"club": "999999"}, "没有这个亲友圈"),
        ({"variant": "mahjong"}, "没有这个玩法"),
        ({"start": "上周"}, "起始日期格式不对"),
        ({"start": "2026-02-01", "end": "2026-01-01"}, "截止日期不能早于起始日期"),
        ({"colour": "red"}, "未知的筛选条件：colour"),
    ):
        response = client.get("/ledgers/mine/", query)
        page = response.content.decode()
        assert response.status_code == 400 and message in page, query
        assert summaries(page) == [] and 'id="my-stats"' not in page, query


def test_an_adjustment_counts_in_the_card_and_the_figures_as_in_the_ledger(
    played: Played,
) -> None:
    """战绩 agrees with the ledger and 结账 after the owner's 调账: the match's card shows
    it as a line and in its total, and 累计 includes it."""
    from apps.ledgers import services

    owner, payer, payee = played.players[0], played.players[1], played.players[2]
    before = client_for(payer).get("/ledgers/mine/", {"club": played.home.pk}).context
    services.ledger_adjustment_create(
        club=played.home, actor=owner, match_id=played.duyun.pk, payer_id=payer.pk,
        payee_id=payee.pk, points=3, reason="记错了一家",
    )
    for user, sign in ((payer, -1), (payee, 1)):
        page = client_for(user).get("/ledgers/mine/", {"club": played.home.pk})
        card = next(i for i in page.context["matches"] if i["match"].pk == played.duyun.pk)
        hands = sum(h["points"] for h in card["hands"])
        assert card["adjustment"] == 3 * sign and card["points"] == hands + 3 * sign
        assert "<td>调账</td>" in page.content.decode()
        ledger = client_for(owner).get(f"/ledgers/clubs/{played.home.pk}/").context
        booked = next(r for r in ledger["totals"] if r["user_id"] == user.pk)
        assert page.context["stats"].points == booked["points"]
    assert client_for(payer).get("/ledgers/mine/", {"club": played.home.pk}).context[
        "stats"].points == before["stats"].points - 3
    # The club ledger's match rows carry it too, and say so.
    ledger = client_for(owner).get(f"/ledgers/clubs/{played.home.pk}/")
    row = next(r for r in ledger.context["matches"] if r["match"].pk == played.duyun.pk)
    shown = {p["name"]: p["points"] for p in row["players"]}
    totals = played.duyun.totals
    assert (shown[str(payer)], shown[str(payee)]) == (totals[1] - 3, totals[2] + 3)
    assert row["adjusted"] and "含调账" in ledger.content.decode()


def test_a_match_still_being_played_is_listed_but_not_counted(played: Played) -> None:
    room = factories.started_room(played.home, played.players, "duyun")
    playing = Match.objects.get(room=room)
    page = client_for(played.players[0]).get("/ledgers/mine/", {"club": played.home.pk})
    card = next(i for i in page.context["matches"] if i["match"].pk == playing.pk)
    assert card["match"].status == Match.Status.PLAYING
    assert page.context["stats"].matches == 1  # the finished 都匀 match alone
    assert "第1名" not in next(s for s in summaries(page.content.decode()) if "对局中" in s)
