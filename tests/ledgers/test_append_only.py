"""Ledger rows can be neither updated nor deleted: not by the ORM, the admin or raw SQL
(raw deletes: ``test_integrity.py::test_the_database_refuses_deletes``)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.models import AppendOnlyError, HandResult, LedgerEntry, MatchResult
from tests.support.factories import Table

pytestmark = pytest.mark.django_db
MODELS = (LedgerEntry, HandResult, MatchResult)


@pytest.mark.parametrize("model", MODELS)
def test_the_orm_refuses_updates_and_deletes(finished_table: Table, model: type) -> None:
    row = model.objects.first()
    assert row is not None
    row.points = 12345
    with pytest.raises(AppendOnlyError):
        row.save()
    with pytest.raises(AppendOnlyError):
        row.delete()
    with pytest.raises(AppendOnlyError):
        model.objects.filter(pk=row.pk).update(points=1)
    with pytest.raises(AppendOnlyError):
        model.objects.filter(pk=row.pk).delete()
    with pytest.raises(AppendOnlyError):
        model.objects.all().delete()
    with pytest.raises(AppendOnlyError):
        model.objects.bulk_update([row], ["points"])
    assert model.objects.get(pk=row.pk).points != 12345


def test_bulk_inserted_rows_are_signed_and_existing_rows_refused(finished_table: Table) -> None:
    # Settlement lines are inserted in bulk: each gets its signature, as save() would give.
    rows = list(LedgerEntry.objects.filter(kind=LedgerEntry.Kind.SETTLEMENT))
    assert rows and all(row.signature_valid() for row in rows)
    with pytest.raises(AppendOnlyError):
        LedgerEntry.objects.bulk_create([rows[0]])
    copy = LedgerEntry.objects.get(pk=rows[0].pk)
    copy.pk, copy._state.adding, copy.line_no, copy.signature = None, True, 999, ""
    (inserted,) = LedgerEntry.objects.bulk_create([copy])
    assert LedgerEntry.objects.get(pk=inserted.pk).signature_valid()


@pytest.mark.parametrize("model", MODELS)
def test_a_database_trigger_refuses_raw_updates(finished_table: Table, model: type) -> None:
    row = model.objects.first()
    table = model._meta.db_table
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET points = points + 1 WHERE id = %s", [row.pk])
    assert model.objects.get(pk=row.pk).points == row.points


@pytest.mark.parametrize("model", MODELS)
def test_the_admin_shows_rows_read_only(finished_table: Table, model: type) -> None:
    admin = User.objects.create_superuser("root", password="x")
    client = Client()
    client.force_login(admin)
    row = model.objects.first()
    base = f"/admin/ledgers/{model._meta.model_name}/"
    assert client.get(base).status_code == 200
    page = client.get(f"{base}{row.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    data = {"points": 999, "_save": "1"}
    assert client.post(f"{base}{row.pk}/change/", data).status_code == 403
    assert client.get(f"{base}{row.pk}/delete/").status_code == 403
    assert client.post(f"{base}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{base}add/").status_code == 403
    assert model.objects.filter(pk=row.pk, points=row.points).exists()
