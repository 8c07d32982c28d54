"""Project-level Celery tasks."""

from celery import shared_task


@shared_task
def ping() -> str:
    """Smoke-test task: answer ``"pong"``."""
    return "pong"
