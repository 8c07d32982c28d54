"""The ledger's own signing key: HMACs of ledger rows and of each club's chain head.

Rows are signed with ``LEDGER_SIGNING_KEY``, not ``SECRET_KEY``: rotating ``SECRET_KEY``
after a leak (sessions, password resets) must not turn every row into 签名不符. A new
ledger key signs new rows; the keys in ``LEDGER_SIGNING_KEY_FALLBACKS`` still verify the
rows signed before the rotation. ``apps.ledgers.checks`` refuses the development key in
production.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

DEVELOPMENT_KEY = "django-insecure-dev-only-ledger-key-do-not-use-in-production"
SALT = "apps.ledgers.chain"


def _keys() -> list[str]:
    return [settings.LEDGER_SIGNING_KEY, *settings.LEDGER_SIGNING_KEY_FALLBACKS]


def _hmac(message: str, key: str) -> str:
    return salted_hmac(SALT, message, secret=key, algorithm="sha256").hexdigest()


def ledger_sign(message: str) -> str:
    """The HMAC-SHA256 of ``message`` under the current ledger key."""
    return _hmac(message, settings.LEDGER_SIGNING_KEY)


def ledger_signed(message: str, signature: str) -> bool:
    """Whether ``signature`` is ``message``'s under the current key or a fallback."""
    return any(constant_time_compare(signature, _hmac(message, key)) for key in _keys())


def row_message(table: str, seq: int, previous: str, values: dict[str, Any]) -> str:
    """What a row's signature covers: its table, its place in the club's chain (``seq``
    and the signature of the row before) and its content."""
    return json.dumps(
        {"table": table, "seq": seq, "previous": previous, "row": values},
        sort_keys=True, ensure_ascii=False,
    )


def head_message(club_id: int, seq: int, last: str) -> str:
    """What a chain head's signature covers: the club, its last row's ``seq`` and
    signature."""
    return json.dumps({"club": club_id, "seq": seq, "last": last}, sort_keys=True)
