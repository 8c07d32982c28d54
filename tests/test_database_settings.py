"""PostgreSQL connection options from the environment (``config/settings.py``): statements
are bound on the server and prepared after ``DATABASE_PREPARE_THRESHOLD`` runs, or never."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

CODE = ("from django.conf import settings as s; o = s.DATABASES['default']['OPTIONS']; "
        "print(o.get('server_side_binding'), o.get('prepare_threshold'))")


def _options(**env: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", CODE], cwd=settings.BASE_DIR,
        env={**{k: v for k, v in os.environ.items() if k != "DATABASE_PREPARE_THRESHOLD"},
             "DATABASE_URL": "postgres://u@db.invalid:5432/app", **env},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_postgresql_statements_are_prepared_after_five_runs_by_default() -> None:
    assert _options() == "True 5"


def test_preparing_can_be_turned_off_for_a_transaction_pooler() -> None:
    assert _options(DATABASE_PREPARE_THRESHOLD="0") == "True None"
    assert _options(DATABASE_PREPARE_THRESHOLD="2") == "True 2"

