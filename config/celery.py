"""The Celery application; configured from Django settings prefixed ``CELERY_``."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.autodiscover_tasks(["config"])


@task_prerun.connect  # type: ignore[untyped-decorator]  # celery ships no type information
@task_postrun.connect  # type: ignore[untyped-decorator]  # celery ships no type information
def _close_old_connections(**_: Any) -> None:
    """Treat a task like a request: drop the database connection if it is past
    ``CONN_MAX_AGE`` or unusable, keep it otherwise."""
    from django.db import close_old_connections  # noqa: PLC0415 (Django is set up by now)

    close_old_connections()
