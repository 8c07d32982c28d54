"""The ledger is tamper-evident as a whole: ``ledger_verify`` reports rows deleted, copied,
moved or forged, a hand's settlement edited behind the ledger, and survives key rotation.

Each test tampers as someone with write access to the database would (raw SQL, after
dropping the triggers and constraints in the way), then runs the command.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import threading
import time
from io import StringIO
from typing import Any
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client, override_settings
from django.utils.crypto import salted_hmac

from apps.ledgers import services
from apps.ledgers.models import (
    Chain,
    Checkout,
    HandResult,
    LedgerEntry,
    LedgerHead,
    LedgerIdentity,
    MatchResult,
)
from apps.ledgers.signing import DEVELOPMENT_KEY
from apps.matches.models import Hand, MatchPlayer
from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play_hand, random_policy

from .test_verify import verify

pytestmark = pytest.mark.django_db
CHAINED = (LedgerEntry, HandResult, MatchResult, Checkout)
KEY_A = "ledger-key-a-" + "a" * 40
KEY_B = "ledger-key-b-" + "b" * 40


def sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def drop_triggers(table: str) -> None:
    """What someone editing the database by hand does first (rolled back after the test)."""
    if connection.vendor == "sqlite":
        for op in ("update", "delete"):
            sql(f"DROP TRIGGER IF EXISTS {table}_no_{op}")
    else:
        sql(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")


def drop_unique(model: type[models.Model], name: str) -> None:
    """Drop a unique constraint; SQLite keeps it in the ``CREATE TABLE``, so the table is
    built again without it, as Django's SQLite schema editor rebuilds tables."""
    table = model._meta.db_table
    if connection.vendor == "postgresql":
        sql("SET CONSTRAINTS ALL IMMEDIATE")  # no foreign-key checks pending: ALTER may run
        sql(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [table])
        (create,) = cursor.fetchone()
    clause = f', CONSTRAINT "{name}" UNIQUE ("club_id", "seq")'
    assert clause in create
    sql(create.replace(clause, "").replace(f'"{table}"', '"tampered"', 1))
    sql(f'INSERT INTO tampered SELECT * FROM "{table}"')
    sql(f'DROP TABLE "{table}"')
    sql(f'ALTER TABLE tampered RENAME TO "{table}"')


def copy_row(model: type[models.Model], pk: int) -> None:
    """Insert a copy of a row, signature and all, as ``INSERT … SELECT`` would."""
    columns = ", ".join(
        connection.ops.quote_name(f.column) for f in model._meta.concrete_fields
        if not f.primary_key and f.column
    )
    table = model._meta.db_table
    sql(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {table} WHERE id = %s", [pk])


def adjust(table: Table, payer: int = 1, payee: int = 2, points: int = 5) -> LedgerEntry:
    return services.ledger_adjustment_create(
        club=table.club, actor=table.players[0], match_id=table.match.pk,
        payer_id=table.players[payer].pk, payee_id=table.players[payee].pk, points=points,
        reason="测试",
    )


def club_name(table: Table) -> str:
    return f"亲友圈「{table.club.name}」(#{table.club.pk})"


def test_deleting_the_last_adjustment_is_reported(one_hand_table: Table) -> None:
    entry = adjust(one_hand_table)
    assert verify()[0]
    drop_triggers("ledgers_ledgerentry")
    sql("DELETE FROM ledgers_ledgerentry WHERE id = %s", [entry.pk])
    ok, report = verify()
    assert not ok
    assert (f"{club_name(one_hand_table)}: 末尾缺失: 链头记到第{entry.seq}条，"
            f"账本只到第{entry.seq - 1}条") in report


def test_deleting_an_adjustment_in_the_middle_is_reported(one_hand_table: Table) -> None:
    first, second = adjust(one_hand_table), adjust(one_hand_table, points=7)
    assert verify()[0]
    drop_triggers("ledgers_ledgerentry")
    sql("DELETE FROM ledgers_ledgerentry WHERE id = %s", [first.pk])
    ok, report = verify()
    assert not ok
    assert f"{club_name(one_hand_table)}: 第{first.seq}条缺失" in report
    assert f"第{second.seq}条 ledgerentry #{second.pk}" not in report  # intact, only after a gap


def test_copies_of_an_adjustment_are_refused_then_reported(one_hand_table: Table) -> None:
    entry = adjust(one_hand_table)
    with pytest.raises(IntegrityError), transaction.atomic():
        copy_row(LedgerEntry, entry.pk)
    drop_unique(LedgerEntry, "ledger_entry_chain_seq")
    for _ in range(3):
        copy_row(LedgerEntry, entry.pk)
    assert LedgerEntry.objects.filter(signature=entry.signature).count() == 4
    ok, report = verify()
    assert not ok
    assert f"{club_name(one_hand_table)}: 第{entry.seq}条重复: ledgerentry #{entry.pk}、" in report


def test_moved_rows_are_reported(finished_table: Table) -> None:
    first, second = LedgerEntry.objects.filter(club=finished_table.club).order_by("seq")[:2]
    drop_triggers("ledgers_ledgerentry")
    swap = [(10**12, first.pk), (first.seq, second.pk), (second.seq, first.pk)]
    for seq, pk in swap:
        sql("UPDATE ledgers_ledgerentry SET seq = %s WHERE id = %s", [seq, pk])
    ok, report = verify()
    assert not ok
    club = club_name(finished_table)
    assert f"{club} 第{first.seq}条 ledgerentry #{second.pk}: 签名不符" in report
    assert f"{club} 第{first.seq}条 ledgerentry #{second.pk}: 顺序不符" in report


def test_an_adjustment_signed_with_the_development_key_is_reported(
    settings: Any, one_hand_table: Table
) -> None:
    settings.LEDGER_SIGNING_KEY = KEY_A
    entry = adjust(one_hand_table)  # this one is signed by the production key
    with override_settings(LEDGER_SIGNING_KEY=DEVELOPMENT_KEY):
        forged = adjust(one_hand_table, payer=2, payee=1, points=50)
    ok, report = verify()
    assert not ok
    assert f"ledgerentry #{forged.pk}: 签名不符" in report
    assert f"{club_name(one_hand_table)}: 链头签名不符" in report
    assert f"ledgerentry #{entry.pk}:" not in report


def test_editing_a_hands_settlement_is_reported(finished_table: Table) -> None:
    hand = next(h for h in Hand.objects.filter(match=finished_table.match).order_by("number")
                if LedgerEntry.objects.filter(hand=h).exists())
    assert hand.settlement is not None
    lines = [dict(line) for line in hand.settlement["lines"]]
    totals = list(hand.settlement["totals"])
    line = lines[0]
    line["points"] += 10
    totals[line["payer"]] -= 10
    totals[line["payee"]] += 10
    Hand.objects.filter(pk=hand.pk).update(
        settlement={**hand.settlement, "lines": lines, "totals": totals}
    )
    ok, report = verify()
    assert not ok
    where = f"hand #{hand.pk} (match #{hand.match_id} 第{hand.number}局)"
    assert f"{where}: 牌局结算与重算不符" in report
    assert f"{where}: 账本第1行与牌局结算不符" in report
    assert f"{where}: 座位{line['payer']}的成绩" in report


def test_rotating_secret_key_leaves_the_ledger_valid(settings: Any, one_hand_table: Table) -> None:
    adjust(one_hand_table)
    assert verify()[0]
    settings.SECRET_KEY = "a-new-secret-key-after-a-leak-" + "s" * 30
    settings.SECRET_KEY_FALLBACKS = []
    ok, report = verify()
    assert ok, report


def test_the_ledger_key_rotates_with_fallbacks(settings: Any, db: None) -> None:
    settings.LEDGER_SIGNING_KEY = KEY_A
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    old = adjust(table)
    settings.LEDGER_SIGNING_KEY, settings.LEDGER_SIGNING_KEY_FALLBACKS = KEY_B, [KEY_A]
    new = adjust(table, points=3)
    ok, report = verify()
    assert ok, report
    settings.LEDGER_SIGNING_KEY_FALLBACKS = []
    ok, report = verify()
    assert not ok
    assert f"ledgerentry #{old.pk}: 签名不符" in report
    assert f"ledgerentry #{new.pk}:" not in report


@pytest.mark.parametrize("model", [LedgerEntry, HandResult, MatchResult, LedgerHead])
def test_the_database_refuses_deletes(finished_table: Table, model: type[models.Model]) -> None:
    row = model.objects.first()
    assert row is not None
    with pytest.raises(DatabaseError), transaction.atomic():
        sql(f"DELETE FROM {model._meta.db_table} WHERE id = %s", [row.pk])
    assert model.objects.filter(pk=row.pk).exists()


def old_signature(row: Any) -> str:
    """The row's signature as the ledger signed it before the chain (``SECRET_KEY``)."""
    content = json.dumps(json.loads(row.signed_content())["row"], sort_keys=True,
                         ensure_ascii=False)
    return salted_hmac("apps.ledgers.row", content, algorithm="sha256").hexdigest()


def migrate(target: str) -> None:
    MigrationExecutor(connection).migrate([("ledgers", target)])


@pytest.mark.django_db(transaction=True)
def test_the_upgrade_chains_the_rows_already_written() -> None:
    """Rows written before the chain verify after the upgrade; a row changed before it is
    still reported, not vouched for by the new signatures. The identity upgrade (0010)
    then appends an identity row per player, and the chain still verifies."""
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    kept, changed = adjust(table), adjust(table, points=3)
    rows = [row for model in CHAINED for row in model.objects.all()]
    signatures = {(row._meta.db_table, row.pk): old_signature(row) for row in rows}
    migrate("0006_chinese_verbose_names")
    for (db_table, pk), signature in signatures.items():
        drop_triggers(db_table)
        sql(f"UPDATE {db_table} SET signature = %s WHERE id = %s", [signature, pk])
    sql("UPDATE ledgers_ledgerentry SET reason = %s WHERE id = %s", ["改过", changed.pk])
    migrate("0009_chain_constraints")
    assert LedgerHead.objects.get(club=table.club).seq == len(rows)
    migrate("0010_identity")
    identities = LedgerIdentity.objects.filter(club=table.club)
    assert {i.user_id: i.username for i in identities} == {
        p.pk: p.username for p in table.players
    }
    assert LedgerHead.objects.get(club=table.club).seq == len(rows) + len(table.players)
    ok, report = verify()
    assert not ok
    problems = [line for line in report.splitlines() if line.startswith("差异")]
    assert len(problems) == 1 and f"ledgerentry #{changed.pk}: 签名不符" in problems[0], report
    assert LedgerEntry.objects.get(pk=kept.pk).signature_valid()
    with pytest.raises(DatabaseError), transaction.atomic():  # the triggers are back
        sql("DELETE FROM ledgers_ledgerentry WHERE id = %s", [kept.pk])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite runs one write at a time")
@pytest.mark.django_db(transaction=True)
def test_two_writes_of_one_club_at_once_take_the_next_two_places() -> None:
    """Each write holds the club's head from reading it to writing it: the second waits,
    then continues the chain (without the lock both would take the same ``seq``)."""
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    before = LedgerHead.objects.get(club=table.club).seq
    start, errors = threading.Barrier(2), []
    chain_opened = Chain.__init__

    def slow_chain(self: Chain, head: LedgerHead) -> None:
        chain_opened(self, head)
        time.sleep(0.5)  # both writers would have read the head by now, were it not locked

    def write(points: int) -> None:
        try:
            start.wait()
            adjust(table, points=points)
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    with mock.patch.object(Chain, "__init__", slow_chain):
        threads = [threading.Thread(target=write, args=(n,)) for n in (3, 4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    seqs = sorted(LedgerEntry.objects.filter(kind="adjustment").values_list("seq", flat=True))
    assert seqs == [before + 1, before + 2]
    ok, report = verify()
    assert ok, report


def verify_kept(*kept: str) -> tuple[bool, str]:
    out = StringIO()
    try:
        call_command("ledger_verify", *(f"--kept={k}" for k in kept), stdout=out)
    except CommandError as exc:
        return False, out.getvalue() + str(exc)
    return True, out.getvalue()


def chain_seen(client: Client, table: Table, since: int = 0) -> dict[str, Any]:
    """What a member's ledger page reads of the chain (``static/ledgers/chain.js``)."""
    client.force_login(table.players[2])
    response = client.get(f"/ledgers/clubs/{table.club.pk}/chain.json?since={since}")
    assert response.status_code == 200
    return dict(response.json())


def restore_backup(table: Table, head: dict[str, Any]) -> None:
    """Roll the club's chain back as restoring an older backup would: the rows after the
    backup's head gone, the head (validly signed, back then) as it was."""
    for model in (*CHAINED, LedgerIdentity):
        drop_triggers(model._meta.db_table)
        sql(f"DELETE FROM {model._meta.db_table} WHERE club_id = %s AND seq > %s",
            [table.club.pk, head["seq"]])
    sql("UPDATE ledgers_ledgerhead SET seq = %s, last = %s, signature = %s WHERE club_id = %s",
        [head["seq"], head["last"], head["signature"], table.club.pk])


def test_a_rollback_is_caught_by_the_head_a_member_kept(
    client: Client, one_hand_table: Table
) -> None:
    """The review's rollback: an older signed head restored and the rows after it deleted
    (here a 50-point 调账) passes the chain's own check, so a member's kept head is what
    catches it, and a past rewritten after the rollback too."""
    table = one_hand_table
    backup = LedgerHead.objects.filter(club=table.club).values("seq", "last", "signature")[0]
    adjust(table, points=50)
    seen = chain_seen(client, table)  # the member opens the ledger page: the browser keeps it
    kept = f"{table.club.pk}:{seen['seq']}:{seen['last']}"
    assert verify_kept(kept)[0]
    restore_backup(table, backup)
    assert verify()[0]  # the chain alone still verifies: the gap the kept head closes
    assert chain_seen(client, table, since=seen["seq"])["seq"] == backup["seq"] < seen["seq"]
    ok, report = verify_kept(kept)
    assert not ok
    assert (f"{club_name(table)}: 账本被回退: 成员记下的账本到第{seen['seq']}条，"
            f"现在链头只到第{backup['seq']}条") in report
    while LedgerHead.objects.get(club=table.club).seq < seen["seq"]:
        adjust(table, points=1)  # new rows written over the rolled-back past
    links = chain_seen(client, table, since=seen["seq"])["links"]
    assert links[0][0] == seen["seq"] and links[0][2] != seen["last"]
    ok, report = verify_kept(kept)
    assert not ok
    assert f"{club_name(table)}: 账本的历史被改写: 第{seen['seq']}条与成员记下的不同" in report


def test_the_chain_links_a_member_reads_follow_on_from_the_kept_head(
    client: Client, one_hand_table: Table
) -> None:
    table = one_hand_table
    seen = chain_seen(client, table)
    assert seen["links"] == []
    adjust(table)
    later = chain_seen(client, table, since=seen["seq"])
    seqs = [seq for seq, _, _ in later["links"]]
    assert seqs == list(range(seen["seq"], later["seq"] + 1))
    assert later["links"][0][2] == seen["last"] and later["links"][-1][2] == later["last"]
    for (_, _, before), (_, previous, _) in itertools.pairwise(later["links"]):
        assert previous == before
    client.force_login(table.outsider)
    assert client.get(f"/ledgers/clubs/{table.club.pk}/chain.json").status_code == 404


def test_swapping_two_accounts_behind_their_ids_is_reported(one_hand_table: Table) -> None:
    """The review's identity swap: two players' username, password and display name
    swapped behind their IDs, which swaps their balances; each identity row now names
    another account."""
    table = one_hand_table
    a, b = table.players[1], table.players[2]
    assert verify()[0]
    update = ("UPDATE accounts_user SET username = %s, password = %s, display_name = %s "
              "WHERE id = %s")
    sql(update, ["swapping", b.password, "swapping", a.pk])
    sql(update, [a.username, a.password, a.display_name, b.pk])
    sql(update, [b.username, b.password, b.display_name, a.pk])
    ok, report = verify()
    assert not ok
    for user, other in ((a, b), (b, a)):
        identity = LedgerIdentity.objects.get(club=table.club, user=user)
        assert (f"ledgeridentity #{identity.pk}: 身份不符: 账本记下用户 #{user.pk} 是"
                f"「{user.username}」") in report
        assert f"该用户现在是「{other.username}」" in report


def test_identity_rows_come_before_the_first_row_naming_the_user(db: None) -> None:
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    first_named: dict[int, int] = {}
    for model in CHAINED:
        for row in model.objects.filter(club=table.club):
            for user_id in row.user_ids():
                first_named[user_id] = min(first_named.get(user_id, row.seq), row.seq)
    identities = LedgerIdentity.objects.filter(club=table.club)
    assert {i.user_id for i in identities} == set(first_named)
    for identity in identities:
        assert identity.seq < first_named[identity.user_id]
        assert identity.signature_valid()
    adjust(table)
    assert LedgerIdentity.objects.filter(club=table.club).count() == len(first_named)


def test_a_hands_seed_not_matching_its_commitment_is_reported(finished_table: Table) -> None:
    hand = Hand.objects.filter(match__room=finished_table.room).order_by("number").first()
    assert hand is not None
    sql("UPDATE matches_hand SET seed = %s WHERE id = %s", ["0" * 32, hand.pk])
    ok, report = verify()
    assert not ok
    assert f"hand #{hand.pk} (match #{hand.match_id} 第1局): 洗牌种子不符" in report
    assert "牌局记录的牌墙种子、庄家或连庄数与该局不符" in report


def test_a_commitment_rewritten_with_its_seed_is_reported_against_the_log(
    finished_table: Table
) -> None:
    """A server that rewrites a hand's seed, salt and commitment together still differs
    from the commitment its log published before the deal."""
    hand = Hand.objects.filter(match__room=finished_table.room).order_by("number").first()
    assert hand is not None
    seed, salt = "1" * 32, "2" * 32
    commitment = hashlib.sha256((salt + seed).encode()).hexdigest()
    sql("UPDATE matches_hand SET seed = %s, salt = %s, commitment = %s WHERE id = %s",
        [seed, salt, commitment, hand.pk])
    ok, report = verify()
    assert not ok
    assert f"hand #{hand.pk} (match #{hand.match_id} 第1局): 承诺与对局日志不符" in report
    assert "洗牌种子不符" not in report


def test_a_seat_given_to_another_player_is_reported(finished_table: Table) -> None:
    """Two players' seats swapped in the match (the ledger rows still name the old ones)."""
    match = finished_table.match
    seats = dict(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))
    sql("UPDATE matches_matchplayer SET user_id = %s WHERE match_id = %s AND seat = 0",
        [finished_table.member.pk, match.pk])
    ok, report = verify()
    assert not ok
    stranger = finished_table.member.pk
    assert f"座位不符: 玩家是用户 #{seats[0]}，对局座位0坐的是用户 #{stranger}" in report
