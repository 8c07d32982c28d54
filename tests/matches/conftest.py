"""Fixtures for live-play tests: tables, WebSocket connections, real worker and daphne."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support import factories
from tests.support.celery_app import celery_repoint
from tests.support.factories import Table
from tests.support.processes import (
    ServerProcess,
    server_env,
    start_celery_worker,
)

TEST_QUEUE = f"matches-test-{uuid.uuid4().hex[:8]}"
"""This session's Celery queue, so no other worker on a shared Redis takes its timers."""


@pytest.fixture(scope="session")
def _live_services(redis_url: str) -> Iterator[str]:
    """Real Redis (channel layer and Celery broker) for the ``services`` tests here."""
    previous = celery_repoint(task_default_queue=TEST_QUEUE)
    yield redis_url
    celery_repoint(**previous)


@pytest.fixture
def make_table() -> Callable[..., Table]:
    """Build a club, four seated players, a spectator and an outsider, then start the match
    (``start=False``: leave the four seated but not ready); the engine-test game unless
    ``variant`` says otherwise (:func:`tests.support.factories.table`)."""

    def build(variant: str = "basic", **options: Any) -> Table:
        return factories.table(variant, **options)

    return build


@pytest.fixture
def celery_worker(transactional_db: None, _live_services: str) -> Iterator[ServerProcess]:
    """A real Celery worker subprocess (solo pool) on this session's queue and test DB."""
    with start_celery_worker(server_env(_live_services, queue=TEST_QUEUE), TEST_QUEUE) as worker:
        yield worker
        sys.stdout.write("celery worker output:\n" + worker.output())


@pytest.fixture
def live_env(transactional_db: None, _live_services: str) -> dict[str, str]:
    """The environment for server subprocesses: the test DB, this Redis and timer queue."""
    return server_env(_live_services, queue=TEST_QUEUE)
