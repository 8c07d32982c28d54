"""A settled hand's ledger lines are the rules package's settlement; posting is idempotent."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.ledgers.errors import LedgerMismatchError
from apps.ledgers.models import HandResult, LedgerEntry, MatchResult
from apps.ledgers.services import ledger_hand_post, ledger_match_post
from apps.matches.models import Hand, Match, MatchPlayer
from majiang.record import replay
from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play, random_policy

pytestmark = pytest.mark.django_db


def test_each_hands_lines_equal_the_rules_settlement(finished_table: Table) -> None:
    match = finished_table.match
    stake = int(match.settings["base_stake"])
    users = dict(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))
    hands = list(Hand.objects.filter(match=match, settlement__isnull=False))
    assert hands and len(hands) == match.hands_played
    for hand in hands:
        settlement = replay(hand.record).settlement()
        entries = list(LedgerEntry.objects.filter(hand=hand).order_by("line_no"))
        assert [
            (e.line_no, e.payer_seat, e.payee_seat, e.category, e.points, e.ruling, e.note)
            for e in entries
        ] == [
            (i, ln.payer, ln.payee, ln.category, ln.points, ln.ruling, ln.note)
            for i, ln in enumerate(settlement.lines, start=1)
        ]
        for e in entries:
            assert (e.payer_id, e.payee_id) == (users[e.payer_seat], users[e.payee_seat])
            assert (e.club_id, e.room_id, e.match_id) == (
                match.club_id, match.room_id, match.pk
            )
            assert e.base_stake == stake and e.amount == e.points * stake
            assert e.occurred_at == hand.ended_at and e.signature_valid()
        results = HandResult.objects.filter(hand=hand).order_by("seat")
        assert [r.points for r in results] == list(settlement.totals)
        assert sum(r.points for r in results) == 0


def test_the_match_results_sum_its_hands_and_name_the_big_winner(finished_table: Table) -> None:
    match = finished_table.match
    results = list(MatchResult.objects.filter(match=match).order_by("seat"))
    assert [r.points for r in results] == list(match.totals)
    assert sum(r.points for r in results) == 0
    top = max(match.totals)
    assert [r.big_winner for r in results] == [top > 0 and t == top for t in match.totals]


def test_settling_the_same_hand_twice_writes_it_once(finished_table: Table) -> None:
    match = finished_table.match
    hand = Hand.objects.filter(match=match).first()
    assert hand is not None
    before = (LedgerEntry.objects.count(), HandResult.objects.count())
    again = ledger_hand_post(hand=hand)
    ledger_match_post(match=match)
    assert (LedgerEntry.objects.count(), HandResult.objects.count()) == before
    assert [e.pk for e in again] == list(
        LedgerEntry.objects.filter(hand=hand).order_by("line_no").values_list("pk", flat=True)
    )
    assert MatchResult.objects.filter(match=match).count() == 4


def test_a_constraint_refuses_a_second_row_for_the_same_line(finished_table: Table) -> None:
    entry = LedgerEntry.objects.filter(kind="settlement").first()
    assert entry is not None
    entry.pk, entry._state.adding = None, True
    with pytest.raises(IntegrityError), transaction.atomic():
        entry.save()


def test_a_stored_settlement_that_disagrees_with_the_rules_is_refused(
    one_hand_table: Table,
) -> None:
    hand = Hand.objects.get(match=one_hand_table.match, number=1)
    forged = Hand.objects.get(pk=hand.pk)
    forged.pk = None
    forged.number = 99
    assert forged.settlement is not None
    extra = {"payer": 0, "payee": 1, "category": "胡牌", "points": 999, "ruling": "X"}
    forged.settlement = {**forged.settlement, "lines": [*forged.settlement["lines"], extra]}
    forged.save()
    with pytest.raises(LedgerMismatchError):
        ledger_hand_post(hand=forged)
    assert not LedgerEntry.objects.filter(hand=forged).exists()


def _a_settled_hand_with_lines(variant: str) -> Hand:
    """A hand of random play whose settlement has lines. The server's seeds are random, and
    a whole match can end with none (流局 hands where nobody or everybody was ready)."""
    for attempt in range(20):
        table = factories.table(variant)
        play(table.match, random_policy(random.Random(attempt)))
        for hand in Hand.objects.filter(match=table.match).order_by("number"):
            if hand.settlement is not None and hand.settlement["lines"]:
                return hand
    raise AssertionError("20 random matches settled no line at all")


def test_a_hand_stored_before_lines_had_a_kind_posts(db: None) -> None:
    """Old rows hold lines without ``kind``: the kind derived from the category agrees with
    the rules, so such a hand posts; a stored kind that disagrees is refused."""
    hand = _a_settled_hand_with_lines("zigong")
    assert hand.settlement is not None
    assert all("kind" in line for line in hand.settlement["lines"])
    old = Hand.objects.get(pk=hand.pk)
    old.pk, old.number = None, 98
    assert old.settlement is not None
    stored = [{k: v for k, v in line.items() if k != "kind"} for line in old.settlement["lines"]]
    old.settlement = {**old.settlement, "lines": stored}
    old.save()
    posted = ledger_hand_post(hand=old)
    assert [(e.category, e.points) for e in posted] == [
        (line["category"], line["points"]) for line in stored
    ]
    wrong = Hand.objects.get(pk=hand.pk)
    wrong.pk, wrong.number = None, 97
    assert wrong.settlement is not None
    lines = [dict(line) for line in wrong.settlement["lines"]]
    lines[0]["kind"] = "baopai" if lines[0]["kind"] != "baopai" else "dou"
    wrong.settlement = {**wrong.settlement, "lines": lines}
    wrong.save()
    with pytest.raises(LedgerMismatchError):
        ledger_hand_post(hand=wrong)


def test_live_play_posts_a_hand_without_reading_its_match_or_players(
    one_hand_table: Table,
) -> None:
    """The match's locked change passes what it holds: the posting reads only whether the
    hand is posted already, locks the club's chain head, reads which users the chain
    knows, writes its lines and results, then the head."""
    match = Match.objects.get(pk=one_hand_table.match.pk)
    settled = Hand.objects.get(match=match, number=1)
    copy = Hand.objects.get(pk=settled.pk)
    copy.pk, copy.number = None, 99
    copy.save()
    users = dict(MatchPlayer.objects.filter(match=match).values_list("seat", "user_id"))
    with CaptureQueriesContext(connection) as queries:
        entries = ledger_hand_post(hand=copy, match=match, seat_users=users)
    statements = [q["sql"] for q in queries.captured_queries
                  if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert not any("matches_match" in sql for sql in statements)
    original = LedgerEntry.objects.filter(hand=settled).order_by("line_no")
    # posted already? the head; which of the seats' users have their identity row in the
    # club's chain already (all do here); the lines (none to insert when the hand has
    # none); the results; the head
    # One more read than before: which players already have an identity row in the chain.
    assert len(statements) <= (7 if original.exists() else 6), statements
    assert "ledgers_ledgeridentity" in statements[2]
    assert "ledgers_ledgerhead" in statements[1] and "ledgers_ledgerhead" in statements[-1]
    assert [(e.payer_id, e.payee_id, e.points) for e in entries] == [
        (e.payer_id, e.payee_id, e.points) for e in original
    ]
    assert list(HandResult.objects.filter(hand=copy).order_by("seat")
                .values_list("user_id", "points")) == list(
        HandResult.objects.filter(hand=settled).order_by("seat").values_list("user_id", "points"))


def _copy_of(hand: Hand, number: int) -> Hand:
    copy = Hand.objects.get(pk=hand.pk)
    copy.pk, copy.number = None, number
    copy.save()
    return copy


def _stored(rows: list[Any]) -> list[dict[str, Any]]:
    """Each row as read back from the database, without what differs between copies."""
    model = type(rows[0])
    return [
        {k: v for k, v in row.items()
         if k not in {"id", "hand_id", "seq", "prev_signature", "signature", "created_at"}}
        for row in model.objects.filter(pk__in=[r.pk for r in rows]).order_by("pk").values()
    ]


@pytest.mark.parametrize("model", [LedgerEntry, HandResult])
def test_signed_inserts_store_what_the_orms_bulk_create_stores(
    finished_table: Table, model: Any
) -> None:
    """``insert_signed`` (live play's posting) writes the same columns as ``bulk_create``,
    sets each row's key, and signs each row so that it verifies."""
    # A hand with rows to copy: about one random hand in twelve settles with no lines (a
    # draw where nobody pays), and so has results but no ledger entries.
    hand = next(h for h in Hand.objects.filter(match=finished_table.match,
                                               settlement__isnull=False).order_by("number")
                if model.objects.filter(hand=h).exists())
    source = list(model.objects.filter(hand=hand).order_by("pk"))
    skip = {"id", "hand_id", "seq", "prev_signature", "signature", "created_at"}

    def clones(target: Hand) -> list[Any]:
        return [model(**{f.attname: getattr(r, f.attname) for f in model._meta.concrete_fields
                         if f.attname not in skip}, hand=target) for r in source]

    ours_hand, theirs_hand = _copy_of(hand, 98), _copy_of(hand, 99)
    ours = model.insert_signed(clones(ours_hand))
    assert all(r.pk is not None and not r._state.adding for r in ours)
    theirs = model.objects.bulk_create(clones(theirs_hand))
    assert _stored(ours) == _stored(theirs)
    stored = model.objects.filter(hand__in=[ours_hand, theirs_hand])
    assert stored.count() == 2 * len(source)
    assert all(r.signature_valid() for r in stored)
