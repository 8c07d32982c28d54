"""``seq`` required and unique per club in each table; the append-only triggers back,
now refusing DELETE on SQLite too (and DELETE of a chain head on both).

On SQLite, adding these constraints rebuilds the tables, which drops their triggers: so
the triggers are created after them. Test runs empty SQLite tables with ``DELETE``
between transactional tests: ``tests/conftest.py`` drops these triggers around that, as
PostgreSQL's ``TRUNCATE`` passes row triggers by.
"""

from importlib import import_module

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

triggers = import_module("apps.ledgers.migrations.0002_append_only_triggers")
fields = import_module("apps.ledgers.migrations.0007_chain_fields")
HEAD = "ledgers_ledgerhead"
CONSTRAINTS = {
    "ledgerentry": "ledger_entry_chain_seq",
    "handresult": "ledger_hand_result_chain_seq",
    "matchresult": "ledger_match_result_chain_seq",
    "checkout": "ledger_checkout_chain_seq",
}
PG_HEAD = (
    f"CREATE TRIGGER {HEAD}_no_delete BEFORE DELETE ON {HEAD} "
    f"FOR EACH ROW EXECUTE FUNCTION ledgers_refuse_change();",
    f"DROP TRIGGER IF EXISTS {HEAD}_no_delete ON {HEAD};",
)


def sqlite_triggers() -> list[tuple[str, str]]:
    """(create, drop) of each SQLite trigger: UPDATE and DELETE of ledger rows, DELETE of a
    chain head."""
    rows = [triggers._sqlite(t, op) for t in fields.TABLES for op in ("UPDATE", "DELETE")]
    return [*rows, triggers._sqlite(HEAD, "DELETE")]


def sqlite_delete_triggers(tables: list[str]) -> list[tuple[str, str]]:
    """(create, drop) of the DELETE triggers on those of ``tables`` that have one."""
    return [triggers._sqlite(t, "DELETE") for t in (*fields.TABLES, HEAD) if t in tables]


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for sql, _ in sqlite_triggers():
            schema_editor.execute(sql)
    elif vendor == "postgresql":
        schema_editor.execute(triggers.PG_FUNCTION, None)
        for table in fields.TABLES:
            schema_editor.execute(triggers._postgres(table)[0])
        schema_editor.execute(PG_HEAD[0])


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for _, sql in sqlite_triggers():
            schema_editor.execute(sql)
    elif vendor == "postgresql":
        for table in fields.TABLES:
            schema_editor.execute(triggers._postgres(table)[1])
        schema_editor.execute(PG_HEAD[1])


class Migration(migrations.Migration):

    dependencies = [("ledgers", "0008_chain_existing_rows")]

    operations = [
        *(
            operation
            for model_name, constraint in CONSTRAINTS.items()
            for operation in (
                migrations.AlterField(
                    model_name=model_name, name="seq",
                    field=models.PositiveBigIntegerField(editable=False, verbose_name="链序号"),
                ),
                migrations.AlterField(
                    model_name=model_name, name="prev_signature",
                    field=models.CharField(blank=True, default="", editable=False, max_length=64, verbose_name="上一行签名"),
                    preserve_default=False,
                ),
                migrations.AddConstraint(
                    model_name=model_name,
                    constraint=models.UniqueConstraint(fields=("club", "seq"), name=constraint),
                ),
            )
        ),
        migrations.RunPython(create, drop),
    ]
