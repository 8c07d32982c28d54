"""The OpenAPI shapes of each variant's settings, built from the variants' own settings
schemas (``majiang.settings``, also published at ``/api/variants/``).

For each variant the players can choose, two components: ``<Id>Settings`` (a template's
complete settings, every key present) and ``<Id>SettingsInput`` (the values a request sets;
any subset). Both refuse keys the variant does not have, as the server does.
:class:`VariantSettingsField` and :class:`VariantSettingsInputField` refer to them;
:func:`variant_settings_hook` adds them to the schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from majiang.settings import Setting
from majiang.variants import player_variants


def _component(variant_id: str, *, complete: bool) -> str:
    return f"{variant_id.title()}Settings" + ("" if complete else "Input")


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def setting_schema(setting: Setting) -> dict[str, Any]:
    """One setting as a JSON schema: its type, bounds or choices, and its Chinese text."""
    out: dict[str, Any] = {
        "title": setting.label or setting.name, "description": setting.description,
        "default": setting.default,
    }
    if setting.kind == "bool":
        out["type"] = "boolean"
    elif setting.kind == "int":
        out["type"] = "integer"
        if setting.choices:
            out["enum"] = list(setting.choices)
        if setting.minimum is not None:
            out["minimum"] = setting.minimum
        if setting.maximum is not None:
            out["maximum"] = setting.maximum
    else:
        out["type"] = "string"
        out["enum"] = list(setting.choices)
    return out


def variant_settings_components() -> dict[str, dict[str, Any]]:
    """The two components of each player variant's settings."""
    out: dict[str, dict[str, Any]] = {}
    for variant in player_variants():
        properties = {s.name: setting_schema(s) for s in variant.schema.settings}
        for complete in (True, False):
            schema: dict[str, Any] = {
                "type": "object",
                "title": f"{variant.name}规则设置",
                "properties": properties,
                "additionalProperties": False,
            }
            if complete:
                schema["required"] = list(properties)
            out[_component(variant.id, complete=complete)] = schema
    return out


def _one_of(*, complete: bool) -> dict[str, Any]:
    refs = [_ref(_component(v.id, complete=complete)) for v in player_variants()]
    # Complete settings differ in their keys, so exactly one variant's matches; a partial
    # input (``{}``, or keys both variants have) may fit several.
    return {"oneOf": refs} if complete else {"anyOf": refs}


@extend_schema_field(_one_of(complete=True))
class VariantSettingsField(serializers.DictField):
    """A template's complete settings, in the shape of its variant's."""


@extend_schema_field(_one_of(complete=False))
class VariantSettingsInputField(serializers.DictField):
    """Settings a request sets: the variant's keys, each of its type (checked by the
    service, which answers each wrong value with a Chinese message under its key)."""


def variant_settings_hook(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the settings components, and let a lobby's
    empty seats be null (drf-spectacular drops ``allow_null`` of a list's items)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(variant_settings_components())
    seats = schemas.get("LobbyOutput", {}).get("properties", {}).get("seats")
    if seats is not None:
        seats["items"] = {"allOf": [seats["items"]], "nullable": True}
    return result
