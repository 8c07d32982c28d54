"""Chain the rows already written: per club, in the order they were written
(``created_at``, then table and id), each re-signed with ``LEDGER_SIGNING_KEY`` over its
content, its ``seq`` and the signature before it; then each club's head.

A row whose old signature (``SECRET_KEY`` or a fallback, as rows were signed before)
does not match its content was changed before this upgrade: it keeps that signature, so
``ledger_verify`` still reports it (签名不符) instead of this migration vouching for it.
Run it with the ``SECRET_KEY`` that signed the rows.
"""

import json
from collections import defaultdict
from datetime import UTC, date, datetime
from typing import Any

from django.conf import settings
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.utils.crypto import constant_time_compare, salted_hmac

from apps.ledgers.signing import head_message, ledger_sign, row_message

OLD_SALT = "apps.ledgers.row"
# The signed fields of each model as of this migration (the models' SIGNED_FIELDS).
SIGNED_FIELDS = {
    "ledgerentry": (
        "kind", "club", "room", "match", "hand", "line_no", "variant", "payer", "payee",
        "payer_seat", "payee_seat", "category", "points", "base_stake", "amount", "ruling",
        "note", "reason", "corrects", "created_by", "occurred_at",
    ),
    "handresult": (
        "club", "room", "match", "hand", "variant", "user", "seat", "points", "amount", "won",
        "occurred_at",
    ),
    "matchresult": (
        "club", "room", "match", "variant", "user", "seat", "points", "amount", "hands_played",
        "big_winner", "occurred_at",
    ),
    "checkout": (
        "club", "previous", "period_start", "period_end", "since", "through", "balances",
        "payments", "created_by",
    ),
}


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _values(obj: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    return {
        name: _plain(getattr(obj, obj._meta.get_field(name).attname)) for name in fields
    }


def _intact(obj: Any, values: dict[str, Any]) -> bool:
    content = json.dumps(values, sort_keys=True, ensure_ascii=False)
    return any(
        constant_time_compare(
            obj.signature,
            salted_hmac(OLD_SALT, content, secret=key, algorithm="sha256").hexdigest(),
        )
        for key in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)
    )


def chain(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    alias = schema_editor.connection.alias
    clubs: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for order, name in enumerate(SIGNED_FIELDS):
        model = apps.get_model("ledgers", name)
        for obj in model.objects.using(alias).order_by("pk").iterator():
            clubs[obj.club_id].append((obj.created_at, order, obj.pk, name, model, obj))
    head_model = apps.get_model("ledgers", "LedgerHead")
    changed = 0
    for club_id, rows in sorted(clubs.items()):
        rows.sort(key=lambda row: row[:3])
        last = ""
        for seq, (*_, name, model, obj) in enumerate(rows, start=1):
            values = _values(obj, SIGNED_FIELDS[name])
            if _intact(obj, values):
                obj.signature = ledger_sign(row_message(name, seq, last, values))
            else:
                changed += 1
            model.objects.using(alias).filter(pk=obj.pk).update(
                seq=seq, prev_signature=last, signature=obj.signature
            )
            last = obj.signature
        head_model.objects.using(alias).create(
            club_id=club_id, seq=len(rows), last=last,
            signature=ledger_sign(head_message(club_id, len(rows), last)),
        )
    if changed:
        print(f"\n  账本: {changed} 行的旧签名与内容不符，保留原签名，ledger_verify 会报告")


class Migration(migrations.Migration):

    dependencies = [("ledgers", "0007_chain_fields")]

    operations = [migrations.RunPython(chain, migrations.RunPython.noop)]
