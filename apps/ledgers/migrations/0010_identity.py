"""Each club's chain binds who its rows are about (:class:`~apps.ledgers.models.LedgerIdentity`).

Chains written before this get, appended after their head, an identity row for each user
their rows name, in the order the users first appear, signed with ``LEDGER_SIGNING_KEY``;
the head moves to the last one. Rows already written keep their signatures. So an identity
swapped before this upgrade is vouched for; one swapped after it is reported. Identity rows
refuse UPDATE (and DELETE on PostgreSQL; on SQLite the tests' flush must delete rows, and
a deleted identity row is found by ``ledger_verify`` as a gap in the chain).
"""

from collections import defaultdict
from datetime import UTC, datetime
from importlib import import_module
from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from apps.ledgers.signing import head_message, ledger_sign, row_message

triggers = import_module("apps.ledgers.migrations.0002_append_only_triggers")
TABLE = "ledgers_ledgeridentity"
# The user fields of each chained table as of this migration (the models' USER_FIELDS).
USER_FIELDS = {
    "ledgerentry": ("payer_id", "payee_id", "created_by_id"),
    "handresult": ("user_id",),
    "matchresult": ("user_id",),
    "checkout": ("created_by_id",),
}


def _users(name: str, obj: Any) -> list[int]:
    ids = [getattr(obj, field) for field in USER_FIELDS[name]]
    if name == "checkout":
        ids += [int(user_id) for user_id in obj.balances]
        ids += [p[side] for p in obj.payments for side in ("payer", "payee")]
    return [user_id for user_id in ids if user_id is not None]


def identify(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    alias = schema_editor.connection.alias
    named: dict[int, list[tuple[int, int]]] = defaultdict(list)  # club → [(seq, user)]
    for name in USER_FIELDS:
        for obj in apps.get_model("ledgers", name).objects.using(alias).iterator():
            named[obj.club_id] += [(obj.seq, user_id) for user_id in _users(name, obj)]
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    identity_model = apps.get_model("ledgers", "LedgerIdentity")
    head_model = apps.get_model("ledgers", "LedgerHead")
    for club_id, pairs in sorted(named.items()):
        head = head_model.objects.using(alias).get(club_id=club_id)
        users = list(dict.fromkeys(user_id for _, user_id in sorted(pairs)))
        accounts = user_model.objects.using(alias).in_bulk(users)
        for user_id in users:
            account = accounts[user_id]
            head.seq += 1
            values = {
                "club": club_id, "user": user_id, "username": account.username,
                "date_joined": account.date_joined.astimezone(UTC).isoformat(),
            }
            signature = ledger_sign(row_message("ledgeridentity", head.seq, head.last, values))
            identity_model.objects.using(alias).create(
                club_id=club_id, user_id=user_id, username=account.username,
                date_joined=account.date_joined, seq=head.seq, prev_signature=head.last,
                signature=signature,
            )
            head.last = signature
        head.signature = ledger_sign(head_message(club_id, head.seq, head.last))
        head.updated_at = datetime.now(UTC)
        head.save(update_fields=["seq", "last", "signature", "updated_at"])


def create_triggers(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(triggers._sqlite(TABLE, "UPDATE")[0])
    elif vendor == "postgresql":
        schema_editor.execute(triggers.PG_FUNCTION, None)
        schema_editor.execute(triggers._postgres(TABLE)[0])


def drop_triggers(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(triggers._sqlite(TABLE, "UPDATE")[1])
    elif vendor == "postgresql":
        schema_editor.execute(triggers._postgres(TABLE)[1])


class Migration(migrations.Migration):

    dependencies = [
        ("clubs", "0005_room_allow_computers_room_hints_room_practice"),
        ("ledgers", "0009_chain_constraints"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LedgerIdentity",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seq", models.PositiveBigIntegerField(editable=False, verbose_name="链序号")),
                ("prev_signature", models.CharField(blank=True, editable=False, max_length=64, verbose_name="上一行签名")),
                ("signature", models.CharField(editable=False, max_length=64, verbose_name="签名")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="写入时间")),
                ("username", models.CharField(max_length=150, verbose_name="用户名")),
                ("date_joined", models.DateTimeField(verbose_name="注册时间")),
                ("club", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+", to="clubs.club", verbose_name="亲友圈")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL, verbose_name="玩家")),
            ],
            options={
                "verbose_name": "账本身份",
                "verbose_name_plural": "账本身份",
                "ordering": ("seq",),
                "constraints": [
                    models.UniqueConstraint(fields=("club", "user"), name="ledger_one_identity_per_user"),
                    models.UniqueConstraint(fields=("club", "seq"), name="ledger_identity_chain_seq"),
                ],
            },
        ),
        migrations.RunPython(identify, migrations.RunPython.noop),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
