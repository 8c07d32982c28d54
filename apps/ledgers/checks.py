"""System checks of the ledgers app: no production ledger signed with the development key.

Anyone can read the development key in the source, and so sign a forged row that
``ledger_verify`` would accept. Registered without a tag, it runs with every management
command that checks (``migrate`` of a deploy's release step included), not only
``check --deploy``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from .signing import DEVELOPMENT_KEY


@register()
def ledger_key_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """With DEBUG off, ``LEDGER_SIGNING_KEY`` must be set, neither it nor a fallback may be
    the development default, and it may not be ``SECRET_KEY`` (or one of its fallbacks)."""
    if settings.DEBUG:
        return []
    key = settings.LEDGER_SIGNING_KEY
    if not key or key == DEVELOPMENT_KEY:
        return [Error(
            "LEDGER_SIGNING_KEY 未设置或仍为开发默认值：生产环境的账本须用自己的密钥签名",
            hint="设置环境变量 LEDGER_SIGNING_KEY 为一个长随机串（见 docs/deploy.md）",
            id="ledgers.E001",
        )]
    if DEVELOPMENT_KEY in settings.LEDGER_SIGNING_KEY_FALLBACKS:
        return [Error(
            "LEDGER_SIGNING_KEY_FALLBACKS 含开发默认密钥：用它签名的伪造记录会被认可",
            hint="从 LEDGER_SIGNING_KEY_FALLBACKS 中删去开发默认密钥",
            id="ledgers.E002",
        )]
    if key in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS):
        return [Error(
            "LEDGER_SIGNING_KEY 与 SECRET_KEY 相同：轮换 SECRET_KEY 会让整本账签名不符，"
            "泄露 SECRET_KEY 也就泄露了账本密钥",
            hint="为 LEDGER_SIGNING_KEY 另设一个长随机串（见 docs/deploy.md）",
            id="ledgers.E003",
        )]
    return []
