"""Fixtures of the ledger tests: tables whose matches are played through the real services.

Play runs inside the test's transaction, so post-commit effects (broadcasts, Celery timers,
the matches app's round cache) never run; no Redis or worker is needed.

A module's tests that ask for the same table one after another share one played match
(:mod:`tests.support.kept`), with whatever each test writes rolled back at its end.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import factories
from tests.support.factories import Table
from tests.support.kept import Keeper, keep, kept_table
from tests.support.play import play, play_hand, random_policy


def _finished() -> Table:
    table = factories.table("duyun")
    play(table.match, random_policy(random.Random(7)))
    return table


def _one_hand() -> Table:
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    return table


@pytest.fixture(scope="module")
def _kept_finished_table(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Keeper]:
    yield from keep(request, django_db_blocker, _finished)


@pytest.fixture(scope="module")
def _kept_one_hand_table(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Keeper]:
    yield from keep(request, django_db_blocker, _one_hand)


@pytest.fixture
def finished_table(_kept_finished_table: Keeper, db: None) -> Table:
    """A 都匀 table whose whole match has been played (random legal moves, fixed seed)."""
    return kept_table(_kept_finished_table, _finished)


@pytest.fixture
def one_hand_table(_kept_one_hand_table: Keeper, db: None) -> Table:
    """A 自贡 table with its first hand settled and the match still going."""
    return kept_table(_kept_one_hand_table, _one_hand)
