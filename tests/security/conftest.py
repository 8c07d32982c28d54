"""Fixtures of the security tests: real Redis (channel layer) and a private timer queue."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from config.celery import app as celery_app

from . import cases

TEST_QUEUE = f"security-test-{uuid.uuid4().hex[:8]}"
"""This session's Celery queue: no worker consumes it, so no timer fires behind a test."""


@pytest.fixture(autouse=True, scope="session")
def _live_services(redis_url: str) -> Iterator[str]:
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = TEST_QUEUE
    yield redis_url
    celery_app.conf.task_default_queue = previous


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show how many cases the property and fuzz tests generated."""
    cases.write_summary(terminalreporter)
