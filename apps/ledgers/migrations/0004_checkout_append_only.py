"""The 0002 triggers (refuse UPDATE, and DELETE on PostgreSQL) on the 结账 table too."""

from importlib import import_module

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

triggers = import_module("apps.ledgers.migrations.0002_append_only_triggers")
TABLE = "ledgers_checkout"


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(triggers._sqlite(TABLE, "UPDATE")[0])
    elif vendor == "postgresql":
        schema_editor.execute(triggers.PG_FUNCTION, None)
        schema_editor.execute(triggers._postgres(TABLE)[0])


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(triggers._sqlite(TABLE, "UPDATE")[1])
    elif vendor == "postgresql":
        schema_editor.execute(triggers._postgres(TABLE)[1])


class Migration(migrations.Migration):
    dependencies = [("ledgers", "0003_checkout")]
    operations = [migrations.RunPython(create, drop)]
