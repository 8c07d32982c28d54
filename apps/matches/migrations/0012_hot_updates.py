"""HOT updates of the match row (PostgreSQL).

An ordinary move updates the match row (version, views, deadline, timer_due, …). When no
index names a column whose value changed, and the row's new version fits on its page,
PostgreSQL writes it there as a heap-only tuple (HOT): no new entry in any index, and the
old version is pruned from the page by the next access. ``match_due_sweep`` indexed
``(status, timer_due)``, and ``timer_due`` changes on almost every move, so almost no
update was HOT. It gives way to a partial index on the matches in play (``status`` changes
once per match, at its end); the sweep filters those few rows by ``timer_due``.

The table also leaves room on each page for the new versions (``fillfactor``, PostgreSQL
only; SQLite has no such setting). See ``FILLFACTOR``. The setting applies to pages written
from now on; existing pages are left as they are.
"""

from typing import Any

from django.db import migrations, models

FILLFACTOR = 80
"""Percent of each page that inserts fill. A match row in play measured 0.77–1.04 kB
(``pg_column_size``, over a hand and its end), so the 20% kept free (1.6 kB of an 8 kB
page) holds a new version of the largest row: what an update needs, since each access of
the page first prunes the versions no transaction can see any more. At the default 100 a
page of matches started together is full, and the first update of each row moves it to
another page. The load benchmark's HOT share of match-row updates (one daphne, 100 tables
at full speed, 10 s, a PostgreSQL 15 server of its own): 1.6% with ``match_due_sweep`` at
fillfactor 100; without it 99.8% at 100, 100% at 80 and at 70. A lower setting would only
make every finished match's row take more room for good. What no setting prevents: while any
transaction on the server (in any database) stays open, the versions newer than it cannot
be pruned, a page fills up with them, and updates stop being HOT until it ends.
"""


def fillfactor_set(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE matches_match SET (fillfactor = {FILLFACTOR})")


def fillfactor_reset(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE matches_match RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0007_room_rematch_deadline'),
        ('matches', '0011_per_viewer_versions'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='match',
            name='match_due_sweep',
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('status', 'playing')), fields=['status'],
                               name='match_playing'),
        ),
        migrations.RunPython(fillfactor_set, fillfactor_reset),
    ]
