"""Shared fixtures for the platform tests."""

import copy
import datetime as dt
import gc
import os
from collections.abc import Iterator
from importlib import import_module
from typing import Any

import pytest
import time_machine
from channels.layers import channel_layers
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings

from apps.core.embedded_redis import embedded_redis
from tests.support import kept
from tests.support.backends import in_memory_backends
from tests.support.celery_app import celery_repoint


def pytest_configure(config: pytest.Config) -> None:
    """This process borrows no PostgreSQL connections from a pool.

    Channels' test communicators switch off the connection clean-up around every database
    call (to keep test transactions open), so each worker thread of a test's event loop
    would keep the connection it borrowed until the pool ran dry. Without the pool, such a
    connection closes when its thread ends. The servers that tests start (daphne, Celery)
    use the pool as in production.
    """
    settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        # A test database need not survive a power cut: no fsync at every commit, which
        # was most of a move's time in the fast tier.
        settings.DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA synchronous=OFF"


@pytest.fixture(scope="session", autouse=True)
def _sqlite_flush_passes_the_ledger_triggers() -> Iterator[None]:
    """Between transactional tests Django empties SQLite tables with ``DELETE``, which the
    ledger's triggers refuse: the flush drops them and creates them again, in its own
    transaction (PostgreSQL's ``TRUNCATE`` passes row triggers by)."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        yield
        return
    from django.db.backends.sqlite3.base import DatabaseWrapper

    chain = import_module("apps.ledgers.migrations.0009_chain_constraints")
    operations = DatabaseWrapper.ops_class
    sql_flush = operations.sql_flush

    def flush(self: Any, style: Any, tables: Any, **kwargs: Any) -> list[str]:
        guarded = chain.sqlite_delete_triggers(list(tables))
        return [*(drop for _, drop in guarded), *sql_flush(self, style, tables, **kwargs),
                *(create for create, _ in guarded)]

    operations.sql_flush = flush
    yield
    operations.sql_flush = sql_flush


@pytest.fixture(scope="session", autouse=True)
def _close_abandoned_connections(request: pytest.FixtureRequest) -> Iterator[None]:
    """On PostgreSQL, free the connections of the test threads that have ended (see
    :func:`pytest_configure`) before the test database is dropped: they hold reference
    cycles, which only the cyclic collector frees, and a database still in use cannot be
    dropped."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        yield
        return
    request.getfixturevalue("django_db_setup")  # set up before, so torn down after this
    yield
    gc.collect()


REAL_SERVICES = frozenset({"redis_url", "_live_services", "live_env", "celery_worker"})
"""Fixtures that start or reach a real Redis or server process: their tests are ``services``."""


DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend-tests", action="store_true",
        help="only the tests whose outcome can depend on DATABASE_URL or REDIS_URL: those "
             "that use the database or a real service, but not one of their own "
             "(CI's PostgreSQL + Redis pass)",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses a real service ``services`` (the fast tier leaves them
    out), and run the browser tests last (after pytest-django's own ordering): Playwright's
    sync API keeps an event loop running in the main thread until the session ends, and no
    async test can run after it. With ``--backend-tests``, leave out the tests that touch
    neither the database nor a service (the rules engine's, for one), and those that bring
    their own (``own_backends``): they cannot tell PostgreSQL and Redis from the embedded
    pair."""
    for item in items:
        if REAL_SERVICES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)
    if config.getoption("--backend-tests"):
        uses_backends = [item for item in items if not item.get_closest_marker("own_backends")
                         and (item.get_closest_marker("services")
                              or item.get_closest_marker("django_db")
                              or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())))]
        config.hook.pytest_deselected(items=[i for i in items if i not in uses_backends])
        items[:] = uses_backends
    kept.group(items)
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that commits (``transactional_db``) must not run inside kept rows
    (:mod:`tests.support.kept`): it would commit into their open transaction."""
    marker = item.get_closest_marker("django_db")
    commits = "transactional_db" in getattr(item, "fixturenames", ()) or bool(
        marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])))
    if kept.OPEN and commits:
        pytest.fail(f"{item.nodeid} commits while the kept rows of {kept.OPEN} are open")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test's own teardown, roll back the kept rows the next test does not ask for."""
    try:
        return (yield)
    finally:
        kept.release(nextitem)


@pytest.fixture(scope="session", autouse=True)
def local_cache() -> Iterator[None]:
    """Tests use a per-process cache: the Redis one is configuration, and its ``clear()``
    would flush a database that the test Redis may share."""
    with override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    ):
        yield


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing() -> Iterator[None]:
    """New passwords are hashed with MD5 in the test process: tests create hundreds of users,
    and PBKDF2 at its production cost took about 0.3 s each (three of the four seconds of
    a ledger table's set-up). The production hashers stay listed, so their hashes still
    verify; ``tests/security/test_web.py`` checks what production settings hash with."""
    fast = "django.contrib.auth.hashers.MD5PasswordHasher"
    with override_settings(PASSWORD_HASHERS=[fast, *settings.PASSWORD_HASHERS]):
        yield


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Every test starts with an empty cache (rate-limit counters included), and with no
    match state cached by the tests before it in this process: a test database rolled back
    hands out the same match IDs again, which a live database never does, and an entry left
    for another test's match of the same ID and version would be taken for this one's."""
    from apps.matches import state

    cache.clear()
    state.state_forget_all()


@pytest.fixture(autouse=True)
def _fresh_channel_layer(request: pytest.FixtureRequest) -> Iterator[None]:
    """A new channel-layer instance per test: each async test runs its own event loop, and
    a layer whose receive lock was left held by a previous loop's cancelled consumer would
    fail with "bound to a different event loop" (or hang the loop's teardown).

    Outside the ``services`` tier the layer is Channels' in-memory one and presence's Redis
    is fakeredis: the same code paths, no server. ``services`` tests use a real Redis
    (:func:`redis_url`)."""
    if request.node.get_closest_marker("services"):
        channel_layers.backends.clear()
        yield
        channel_layers.backends.clear()
    else:
        with in_memory_backends():
            yield


@pytest.fixture
def clock() -> Iterator[Any]:
    """Live play's clock, stopped at an evening's moment; move it with ``clock.shift`` or
    :mod:`tests.support.clock`."""
    with time_machine.travel(dt.datetime(2026, 12, 5, 19, 30, tzinfo=dt.UTC), tick=False) as t:
        yield t


@pytest.fixture(scope="session", autouse=True)
def _timers_in_memory() -> Iterator[None]:
    """The match timers that moves send (:mod:`apps.matches.timers`) go to Celery's
    in-memory transport, where no worker takes them: tests move the clock and sweep
    themselves. Tests with real processes re-point Celery at Redis (:func:`redis_url`)."""
    previous = celery_repoint(broker_url="memory://")
    yield
    celery_repoint(**previous)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a live Redis: ``REDIS_URL`` if set, else an embedded server for the session.

    The Celery app is re-pointed at it, and in the embedded case the channel layer too.
    """
    if "REDIS_URL" in os.environ:
        url = os.environ["REDIS_URL"]
        celery_repoint(broker_url=url)
        yield url
        return
    with embedded_redis(tmp_path_factory.mktemp("redis")) as url:
        layers = copy.deepcopy(settings.CHANNEL_LAYERS)
        hosts = layers["default"]["CONFIG"]["hosts"]
        # Keep the host's options (socket_timeout); change the address.
        hosts[0] = {**hosts[0], "address": url} if isinstance(hosts[0], dict) else url
        with override_settings(
            REDIS_URL=url, CHANNEL_LAYERS=layers, CELERY_BROKER_URL=url, CELERY_RESULT_BACKEND=url
        ):
            celery_repoint(broker_url=url, result_backend=url)
            yield url
