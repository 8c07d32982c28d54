"""Fixtures of the ledger tests: tables whose matches are played through the real services.

Play runs inside the test's transaction, so post-commit effects (broadcasts, Celery timers,
the matches app's round cache) never run; no Redis or worker is needed.
"""

from __future__ import annotations

import random

import pytest

from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play, play_hand, random_policy


@pytest.fixture
def finished_table(db: None) -> Table:
    """A 都匀 table whose whole match has been played (random legal moves, fixed seed)."""
    table = factories.table("duyun")
    play(table.match, random_policy(random.Random(7)))
    return table


@pytest.fixture
def one_hand_table(db: None) -> Table:
    """A 自贡 table with its first hand settled and the match still going."""
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    return table
