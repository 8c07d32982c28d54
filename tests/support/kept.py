"""Rows built once and shared by the tests of a module that run one after another.

A played match is the costliest set-up of the ledger tests (a whole match through the real
services, seconds for every test that asks for one). A module fixture ``_kept_<name>``
(:func:`keep`) builds such rows for the function fixture ``<name>`` once per module, inside
a transaction of their own that stays open while the module's tests asking for ``<name>``
run. Each test's own transaction (pytest-django's ``db``) is a savepoint inside it, so what a
test writes is rolled back at its end as before, and every test starts from the same rows.

The rows are rolled back as soon as the next test does not ask for them (the hooks in
``tests/conftest.py``), so no other test ever sees them; within a module the tests asking
for the same kept fixtures run together (:func:`group`). A test that asks for rows already
rolled back (in another order of the tests) builds its own, as if nothing were kept.

Only tests in a transaction of their own may share rows: a ``transactional_db`` test commits
for real, and ``tests/conftest.py`` fails one that would run while kept rows are open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from django.db import transaction

from tests.support.backends import in_memory_backends
from tests.support.factories import Table

T = TypeVar("T")

OPEN: list[Keeper] = []
"""The kept rows open now, innermost last."""


class Keeper:
    """The rows of one kept fixture of one module, in their own (nested) transaction."""

    def __init__(self, name: str, module: str, blocker: Any) -> None:
        self.name, self.module, self.blocker = name, module, blocker
        self.value: Any = None
        self._atomic: Any = None

    @property
    def open(self) -> bool:
        return self._atomic is not None

    def build(self, make: Callable[[], Any]) -> None:
        with self.blocker.unblock():
            self._atomic = transaction.atomic()
            self._atomic.__enter__()
            OPEN.append(self)
            try:
                with in_memory_backends():
                    self.value = make()
            except BaseException:
                self.close()
                raise

    def close(self) -> None:
        """Roll the rows back, and any kept after them first."""
        if not self.open:
            return
        while OPEN and OPEN[-1] is not self:
            OPEN[-1].close()
        with self.blocker.unblock():
            OPEN.remove(self)
            transaction.set_rollback(True)
            self._atomic.__exit__(None, None, None)
        self._atomic = None

    def __repr__(self) -> str:
        return f"{self.module}:{self.name}"


def keep(request: pytest.FixtureRequest, blocker: Any, make: Callable[[], Any]
         ) -> Iterator[Keeper]:
    """The body of a module fixture ``_kept_<name>`` keeping what ``make()`` builds for the
    function fixture ``<name>`` (the name tells :func:`uses` which tests ask for it)."""
    name = request.fixturename.removeprefix("_kept_")
    held = Keeper(name, request.module.__name__, blocker)
    held.build(make)
    yield held
    held.close()


def kept_value(held: Keeper, make: Callable[[], T], fresh: Callable[[T], T]) -> T:
    """What the keeper holds, read again by ``fresh`` (so that no test sees what another did
    to the Python objects), or (its rows already rolled back) ``make()`` anew."""
    return fresh(held.value) if held.open else make()


def kept_table(held: Keeper, make: Callable[[], Table]) -> Table:
    """The kept table read again, or (its rows already rolled back) a new one."""
    return kept_value(held, make, fresh_table)


def uses(item: pytest.Item) -> tuple[str, ...]:
    """The kept fixtures that ``item`` asks for."""
    return tuple(sorted(n[len("_kept_"):] for n in getattr(item, "fixturenames", ())
                        if n.startswith("_kept_")))


def group(items: list[pytest.Item]) -> None:
    """Within each run of consecutive tests of one module, those asking for the same kept
    fixtures next to each other (the ones asking for none last); nothing else moves."""
    runs: list[list[pytest.Item]] = []
    for item in items:
        if runs and runs[-1][0].module is getattr(item, "module", None):
            runs[-1].append(item)
        else:
            runs.append([item])
    items[:] = [item for run in runs
                for item in sorted(run, key=lambda i: (not uses(i), uses(i)))]


def release(nextitem: pytest.Item | None) -> None:
    """Roll back the kept rows that the next test does not ask for."""
    wanted = set(uses(nextitem)) if nextitem is not None else set()
    module = getattr(nextitem, "module", None)
    for held in list(OPEN):
        if held.name not in wanted or module is None or held.module != module.__name__:
            held.close()


def fresh_table(table: Table) -> Table:
    """The same table with its rows read again, so that no test sees what another test did
    to its Python objects."""
    from apps.accounts.models import User
    from apps.clubs.models import Club, Room

    def again(user: User) -> User:
        return User.objects.get(pk=user.pk)

    return Table(
        club=Club.objects.get(pk=table.club.pk), room=Room.objects.get(pk=table.room.pk),
        users=[again(u) for u in table.users], admin=again(table.admin),
        spectator=again(table.spectator), outsider=again(table.outsider),
        other_owner=again(table.other_owner), other_room=Room.objects.get(pk=table.other_room.pk),
    )
