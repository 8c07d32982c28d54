"""Project-level Celery tasks."""

from celery import shared_task


@shared_task  # type: ignore[untyped-decorator]  # celery ships no type information
def ping() -> str:
    """Smoke-test task: answer ``"pong"``."""
    return "pong"
