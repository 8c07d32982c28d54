"""Helpers shared by the club services: role checks, settings validation, random codes."""

from __future__ import annotations

import secrets
from typing import Any

from apps.accounts.models import User
from majiang.errors import SettingsError
from majiang.variants import VARIANTS

from ..errors import ActionForbidden, ClubNotFound, InvalidInputError
from ..models import Club, Membership
from ..selectors import membership_role

Role = Membership.Role
MANAGERS = (Role.OWNER, Role.ADMIN)
NON_FIELD = "non_field_errors"
CODE_ATTEMPTS = 20


def require_member(club: Club, user: User) -> Role:
    """The user's role; a non-member is told the club does not exist."""
    role = membership_role(club, user)
    if role is None:
        raise ClubNotFound("亲友圈不存在")
    return role


def require_role(club: Club, user: User, roles: tuple[Role, ...], message: str) -> Role:
    """The user's role if it is one of ``roles``; otherwise :class:`ActionForbidden`."""
    role = require_member(club, user)
    if role not in roles:
        raise ActionForbidden(message)
    return role


BOTS_REFUSED = "这个亲友圈不允许机器人账号入圈或入座（圈主可在亲友圈设置里打开“允许机器人”）"


def require_bots_allowed(club: Club, user: User) -> None:
    """A bot account (``User.is_bot``) may join ``club`` and sit at its tables only if the
    owner allows bots (``Club.bots_allowed``); otherwise :class:`ActionForbidden`."""
    if user.is_bot and not club.bots_allowed:
        raise ActionForbidden(BOTS_REFUSED)


def settings_validated(variant_id: str, values: Any) -> dict[str, Any]:
    """The variant's complete settings from ``values``, or :class:`InvalidInputError`."""
    variant = VARIANTS.get(variant_id)
    if variant is None:
        raise InvalidInputError({"variant": f"未知的玩法: {variant_id}"})
    if values is not None and not isinstance(values, dict):
        raise InvalidInputError({"settings": "规则设置应为对象"})
    try:
        return variant.schema.validate(values)
    except SettingsError as exc:
        raise InvalidInputError({"settings": exc.errors}) from exc


def unique_code(model: type[Any], field: str, alphabet: str, length: int) -> str:
    """A random code not yet used in ``model.field``."""
    for _ in range(CODE_ATTEMPTS):
        code = "".join(secrets.choice(alphabet) for _ in range(length))
        if not model.objects.filter(**{field: code}).exists():
            return code
    raise RuntimeError(f"no free {model.__name__}.{field} after {CODE_ATTEMPTS} attempts")
