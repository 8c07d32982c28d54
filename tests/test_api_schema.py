"""Schemathesis: the server answers as its OpenAPI schema says, on every operation.

Requests generated from ``/api/schema/`` go through Django's WSGI app as a logged-in club
owner (session cookie and ``X-CSRFToken``), in a club with members, a pending join request,
a rule template, an open room, and a 自贡 match with a settled hand and its ledger rows.
Generated path IDs are half the time swapped for real ones, so the operations reach their
business rules and not only their 404s. Each response must pass schemathesis' conformance
checks: no server error, a documented status code, content type and headers, and a body
that matches the documented schema for that status (the error body for every 4xx). A
second run sends requests the schema forbids and checks that each is refused.

Every example runs in a savepoint rolled back after it (so a logout, a deleted template or
a closed room does not spill into the next one), with an empty cache (so the rate limits
do not turn the rest of the run into 429s).
"""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core import signals
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from apps.accounts.models import User
from apps.clubs.models import JoinRequest, Membership, RuleTemplate
from apps.ledgers.models import LedgerEntry
from apps.ledgers.services import ledger_adjustment_create
from apps.matches.models import Hand
from majiang.variants import VARIANTS
from tests.support import factories
from tests.support.factories import Table
from tests.support.play import play_hand, random_policy

CHECKS = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
EXAMPLES = 30
"""Examples per operation: about half a minute for the whole API on a quiet core."""

wsgi_app = get_wsgi_application()


@dataclass
class World:
    table: Table
    join_request: JoinRequest
    template: RuleTemplate
    applicant: User

    def real_ids(self) -> dict[str, Any]:
        hand = Hand.objects.filter(match__club=self.table.club, settlement__isnull=False).first()
        entry = LedgerEntry.objects.filter(club=self.table.club).first()
        assert hand is not None and entry is not None
        return {
            "club_id": self.table.club.pk,
            "template_id": self.template.pk,
            "request_id": self.join_request.pk,
            "user_id": self.table.member.pk,
            "code": self.table.room.code,
            "hand_id": hand.pk,
            "entry_id": entry.pk,
        }


@pytest.fixture
def world(db: None) -> World:
    table = factories.table("zigong")
    play_hand(table.match, random_policy(random.Random(3)))
    ledger_adjustment_create(  # a ledger row, whatever the hand's result
        club=table.club, actor=table.players[0], match_id=table.match.pk,
        payer_id=table.players[1].pk, payee_id=table.players[2].pk, points=2, reason="补记",
    )
    applicant = User.objects.create_user("applicant", display_name="申请人")
    join_request = JoinRequest.objects.create(club=table.club, user=applicant, message="带我")
    template = RuleTemplate.objects.create(
        club=table.club, name="标准", variant="duyun",
        settings=VARIANTS["duyun"].schema.defaults(), created_by=table.players[0],
    )
    assert Membership.objects.filter(club=table.club, user=table.players[0],
                                     role=Membership.Role.OWNER).exists()
    return World(table, join_request, template, applicant)


@pytest.fixture
def owner_session(world: World) -> Iterator[dict[str, str]]:
    """The owner's session cookie. Like Django's test client, keep the test's database
    connection open across requests (the handler would close it when a request ends)."""
    client = Client()
    client.force_login(world.table.players[0])
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield {django_settings.SESSION_COOKIE_NAME: client.cookies["sessionid"].value}
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def run_every_operation(
    world: World, session: dict[str, str], mode: GenerationMode
) -> dict[str, set[int]]:
    """Send each operation ``EXAMPLES`` generated requests of ``mode`` and check each
    answer; return the status codes seen per operation. Fails with every operation's
    first failure, not only the first operation's."""
    schema = schemathesis.openapi.from_dict(
        SchemaGenerator().get_schema(request=None, public=True)
    )
    negative = mode == GenerationMode.NEGATIVE
    checks = [*CHECKS, negative_data_rejection] if negative else CHECKS
    real = {} if negative else world.real_ids()  # a real ID would make an invalid one valid
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 40
    seen: dict[str, set[int]] = {}
    failures: list[str] = []

    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        # Derandomized: the same requests every run, so CI does not depend on the draw
        # (random draws found the two disagreements fixed so far; run with
        # derandomize=False to look for more).
        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck),
                  phases=[Phase.explicit, Phase.generate])
        def run(case: Any) -> None:
            negated = {where for where, info in (case.meta.components.items() if case.meta
                                                 else ()) if info.mode.is_negative}
            if negated & {ParameterLocation.COOKIE, ParameterLocation.HEADER}:
                return  # the session cookie and CSRF header are replaced by real ones below
            for name, value in real.items():
                if case.path_parameters and name in case.path_parameters and (
                    len(str(case.path_parameters[name])) % 2 == 0
                ):
                    case.path_parameters[name] = value
            token = "".join(secrets.choice(string.ascii_letters + string.digits)
                            for _ in range(32))
            # The schema declares the session cookie and the X-CSRFToken header, so
            # schemathesis generates values for them: the real ones replace those.
            case.cookies = {**session, django_settings.CSRF_COOKIE_NAME: token}
            case.headers = {**(case.headers or {}), "X-CSRFToken": token}
            cache.clear()
            with transaction.atomic():
                response = case.call(app=wsgi_app, headers={"X-CSRFToken": token})
                transaction.set_rollback(True)
            label = f"{case.method} {case.formatted_path}"
            assert response.status_code < 500, f"{label}: {response.text}"
            assert "csrf_failed" not in response.text, f"{label}: the CSRF token was refused"
            assert "not_authenticated" not in response.text or case.path.startswith(
                "/api/auth/logout/"
            ), f"{label}: the session cookie was not accepted"
            case.validate_response(response, checks=checks)
            seen.setdefault(case.operation.label, set()).add(response.status_code)

        try:
            run()
        except Unsatisfiable:
            assert negative, operation.label  # nothing to get wrong (no parameters, no body)
        except Exception as failure:  # report every operation's, not the first
            failures.append(f"{operation.label}: {failure}")

    assert not failures, "\n\n".join(failures)
    return seen


def test_every_operation_answers_as_its_schema_says(
    world: World, owner_session: dict[str, str]
) -> None:
    seen = run_every_operation(world, owner_session, GenerationMode.POSITIVE)
    # The run reached past the front door: most operations answered 2xx at least once.
    succeeded = [label for label, codes in seen.items() if any(c < 300 for c in codes)]
    assert len(succeeded) >= len(seen) // 2, seen


def test_requests_the_schema_forbids_are_refused(
    world: World, owner_session: dict[str, str]
) -> None:
    """Negative data: a body, query or path the schema rules out (too long a name, a
    member_cap of 1001, an unknown setting, a query parameter that is not declared, an
    empty date...) gets a 4xx, so the schema's limits are the server's."""
    assert run_every_operation(world, owner_session, GenerationMode.NEGATIVE)
