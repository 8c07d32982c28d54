"""Database triggers that refuse UPDATE and DELETE on the ledger tables.

The last line of defence behind the ORM and the read-only admin: raw SQL cannot change
a ledger row without first dropping these triggers. PostgreSQL refuses row UPDATE and
DELETE (``TRUNCATE``, which test teardown uses, is a table privilege to withhold from the
application's role in production). SQLite refuses UPDATE only: Django empties SQLite
tables between tests with ``DELETE FROM``, which a DELETE trigger would break; a deleted
settlement row is still found by ``manage.py ledger_verify``. Other vendors get none.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

TABLES = ("ledgers_ledgerentry", "ledgers_handresult", "ledgers_matchresult")


def _sqlite(table: str, op: str) -> tuple[str, str]:
    name = f"{table}_no_{op.lower()}"
    return (
        f"CREATE TRIGGER {name} BEFORE {op} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'ledger rows are append-only'); END;",
        f"DROP TRIGGER IF EXISTS {name};",
    )


PG_FUNCTION = """
CREATE OR REPLACE FUNCTION ledgers_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ledger rows are append-only (% on %)', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
"""


def _postgres(table: str) -> tuple[str, str]:
    name = f"{table}_append_only"
    return (
        f"CREATE TRIGGER {name} BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION ledgers_refuse_change();",
        f"DROP TRIGGER IF EXISTS {name} ON {table};",
    )


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for table in TABLES:
            schema_editor.execute(_sqlite(table, "UPDATE")[0])
    elif vendor == "postgresql":
        schema_editor.execute(PG_FUNCTION, None)  # no params: keep the % of RAISE
        for table in TABLES:
            schema_editor.execute(_postgres(table)[0])


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for table in TABLES:
            schema_editor.execute(_sqlite(table, "UPDATE")[1])
    elif vendor == "postgresql":
        for table in TABLES:
            schema_editor.execute(_postgres(table)[1])
        schema_editor.execute("DROP FUNCTION IF EXISTS ledgers_refuse_change();")


class Migration(migrations.Migration):

    dependencies = [("ledgers", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
