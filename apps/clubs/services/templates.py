"""Rule templates: saved variant + settings, kept by the owner and admins."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.accounts.models import ComputerLevel, User

from ..errors import InvalidInputError
from ..models import Club, RuleTemplate
from .common import MANAGERS, require_role, settings_validated

NAME_MAX = RuleTemplate._meta.get_field("name").max_length or 40
FORBIDDEN = "只有圈主和管理员可以管理规则模板"


def _check_name(club: Club, name: str, exclude_pk: int | None = None) -> str:
    name = name.strip()
    if not name:
        raise InvalidInputError({"name": "名称不能为空"})
    if len(name) > NAME_MAX:
        raise InvalidInputError({"name": f"名称不能超过 {NAME_MAX} 个字"})
    same_name = RuleTemplate.objects.filter(club=club, name=name)
    if exclude_pk is not None:
        same_name = same_name.exclude(pk=exclude_pk)
    if same_name.exists():
        raise InvalidInputError({"name": "已有同名的规则模板"})
    return name


def _check_level(level: str) -> str:
    if level not in ComputerLevel.values:
        raise InvalidInputError({"computer_level": "电脑水平应为简单或标准"})
    return level


def rule_template_create(
    *, club: Club, actor: User, name: str, variant: str, settings: dict[str, Any] | None,
    allow_computers: bool = False, computers_fill: bool = False,
    computer_level: str = ComputerLevel.STANDARD,
) -> RuleTemplate:
    """Save a new template; ``settings`` are completed with defaults and validated. The
    computer options: rooms opened from it allow 电脑补位 (``allow_computers``), 快速开房
    fills every seat but the opener's with computers (``computers_fill``), at
    ``computer_level``."""
    with transaction.atomic():
        require_role(club, actor, MANAGERS, FORBIDDEN)
        return RuleTemplate.objects.create(
            club=club,
            name=_check_name(club, name),
            variant=variant,
            settings=settings_validated(variant, settings),
            allow_computers=allow_computers or computers_fill,
            computers_fill=computers_fill,
            computer_level=_check_level(computer_level),
            created_by=actor,
        )


def rule_template_update(
    *,
    template: RuleTemplate,
    actor: User,
    name: str | None = None,
    variant: str | None = None,
    settings: dict[str, Any] | None = None,
    allow_computers: bool | None = None,
    computers_fill: bool | None = None,
    computer_level: str | None = None,
) -> RuleTemplate:
    """Change a template (arguments left as None stay unchanged). Rooms already opened
    from it keep their own copy of the rules."""
    with transaction.atomic():
        template = RuleTemplate.objects.select_for_update().get(pk=template.pk)
        require_role(template.club, actor, MANAGERS, FORBIDDEN)
        if name is not None:
            template.name = _check_name(template.club, name, exclude_pk=template.pk)
        if variant is not None or settings is not None:
            new_variant = variant if variant is not None else template.variant
            if settings is None:  # switching variant without settings: start from defaults
                settings = template.settings if new_variant == template.variant else {}
            template.settings = settings_validated(new_variant, settings)
            template.variant = new_variant
        if allow_computers is not None:
            template.allow_computers = allow_computers
        if computers_fill is not None:
            template.computers_fill = computers_fill
        template.allow_computers = template.allow_computers or template.computers_fill
        if computer_level is not None:
            template.computer_level = _check_level(computer_level)
        template.save()
    return template


def rule_template_delete(*, template: RuleTemplate, actor: User) -> None:
    """Delete a template; rooms opened from it keep their rules."""
    with transaction.atomic():
        require_role(template.club, actor, MANAGERS, FORBIDDEN)
        template.delete()
