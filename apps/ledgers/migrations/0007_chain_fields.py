"""The chain's columns (``seq``, ``prev_signature``) and each club's chain head.

The append-only triggers are dropped here: 0008 writes every existing row's place in its
club's chain, and 0009 puts the triggers back (DELETE refused on SQLite too).
"""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

triggers = import_module("apps.ledgers.migrations.0002_append_only_triggers")
TABLES = (*triggers.TABLES, "ledgers_checkout")
CHAINED = ("ledgerentry", "handresult", "matchresult", "checkout")


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "sqlite":
            schema_editor.execute(triggers._sqlite(table, "UPDATE")[1])
        elif vendor == "postgresql":
            schema_editor.execute(triggers._postgres(table)[1])


def restore(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(triggers.PG_FUNCTION, None)
    for table in TABLES:
        if vendor == "sqlite":
            schema_editor.execute(triggers._sqlite(table, "UPDATE")[0])
        elif vendor == "postgresql":
            schema_editor.execute(triggers._postgres(table)[0])


class Migration(migrations.Migration):

    dependencies = [
        ("clubs", "0002_chinese_verbose_names"),
        ("ledgers", "0006_chinese_verbose_names"),
    ]

    operations = [
        migrations.RunPython(drop, restore),
        migrations.CreateModel(
            name="LedgerHead",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seq", models.PositiveBigIntegerField(default=0, verbose_name="末行序号")),
                ("last", models.CharField(blank=True, max_length=64, verbose_name="末行签名")),
                ("signature", models.CharField(blank=True, max_length=64, verbose_name="签名")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="更新时间")),
                ("club", models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name="+", to="clubs.club", verbose_name="亲友圈")),
            ],
            options={"verbose_name": "账本链头", "verbose_name_plural": "账本链头"},
        ),
        *(
            operation
            for model_name in CHAINED
            for operation in (
                migrations.AddField(
                    model_name=model_name, name="seq",
                    field=models.PositiveBigIntegerField(editable=False, null=True, verbose_name="链序号"),
                ),
                migrations.AddField(
                    model_name=model_name, name="prev_signature",
                    field=models.CharField(blank=True, editable=False, max_length=64, null=True, verbose_name="上一行签名"),
                ),
            )
        ),
    ]
