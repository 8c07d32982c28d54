"""``check --deploy`` (every check, in fact) refuses a ledger key equal to ``SECRET_KEY``:
rotating ``SECRET_KEY`` after a leak would turn every row into 签名不符 (issue 48)."""

from __future__ import annotations

from typing import Any

from apps.ledgers.checks import ledger_key_check

KEY = "a-production-key-" + "x" * 40


def test_a_ledger_key_equal_to_secret_key_is_refused(settings: Any) -> None:
    settings.DEBUG, settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = False, KEY, []
    settings.LEDGER_SIGNING_KEY = KEY
    assert [e.id for e in ledger_key_check()] == ["ledgers.E003"]
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "another-" + "y" * 40, [KEY]
    assert [e.id for e in ledger_key_check()] == ["ledgers.E003"]
    settings.SECRET_KEY_FALLBACKS = []
    assert ledger_key_check() == []
