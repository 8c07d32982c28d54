"""Variant settings schemas: what a room may choose, and validation of a choice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from majiang.errors import SettingsError

__all__ = ["Setting", "SettingKind", "SettingsSchema"]

SettingKind = Literal["int", "bool", "choice"]
"""What a setting holds: an integer, on/off, or one of a list of choices."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One room setting.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``. An int setting is bounded by
    ``minimum``/``maximum`` or restricted to ``choices``; a choice setting takes one of
    ``choices``, which ``choice_labels`` name in Chinese (same order). ``label`` is the
    setting's Chinese name and ``description`` one line in Chinese, both shown to players;
    ``rulings`` are the IDs of the rulings the setting comes from (e.g. ``("D22",)``), shown
    only in a small 规则出处 detail.
    """

    name: str
    kind: SettingKind
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    label: str = ""
    choice_labels: tuple[str, ...] = ()
    rulings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"{self.name}: one label per choice")

    def display(self, value: Any) -> str:
        """``value`` as a club owner reads it: 开/关, a choice's Chinese name, or the number."""
        if self.kind == "bool":
            return "开" if value else "关"
        if self.choice_labels and value in self.choices:
            return self.choice_labels[self.choices.index(value)]
        return str(value)

    def _allowed(self) -> str:
        return "可选值: " + ", ".join(
            f"{choice} ({self.display(choice)})" if self.choice_labels else str(choice)
            for choice in self.choices
        )

    def validate(self, value: Any) -> Any:
        """Return ``value`` if valid for this setting, else raise ``ValueError`` in Chinese."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError("应为开或关 (true/false)")
            return value
        if self.kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError("应为整数")
            if self.choices and value not in self.choices:
                raise ValueError(self._allowed())
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"不能小于 {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"不能大于 {self.maximum}")
            return value
        if value not in self.choices or isinstance(value, bool):
            raise ValueError(self._allowed())
        return value

    def to_json(self) -> dict[str, Any]:
        """The setting's description as JSON, for forms and the API."""
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label or self.name,
            "kind": self.kind,
            "default": self.default,
            "description": self.description,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        if self.choice_labels:
            out["choice_labels"] = list(self.choice_labels)
        if self.rulings:
            out["rulings"] = list(self.rulings)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


OFFLINE_SETTINGS = (
    Setting("offline_pause_seconds", "int", 60, "全员离线多少秒后暂停计时", minimum=10,
            maximum=600, label="离线暂停"),
    Setting("offline_dissolve_seconds", "int", 600, "全员离线多少秒后解散对局", minimum=60,
            maximum=7200, label="离线解散"),
)
"""Every variant's abandoned-table settings: the clock pauses, then the match is dissolved."""


@dataclass(frozen=True, slots=True)
class SettingsSchema:
    """The settings a variant declares, in display order."""

    settings: tuple[Setting, ...]

    def __getitem__(self, name: str) -> Setting:
        for setting in self.settings:
            if setting.name == name:
                return setting
        raise KeyError(name)

    @property
    def names(self) -> Sequence[str]:
        """Setting names in order."""
        return [s.name for s in self.settings]

    def defaults(self) -> dict[str, Any]:
        """Every setting at its default."""
        return {s.name: s.default for s in self.settings}

    def validate(self, values: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete ``values`` with defaults and check them.

        Raises :class:`SettingsError` naming every unknown setting and every bad value.
        """
        values = dict(values or {})
        errors: dict[str, str] = {}
        known = set(self.names)
        for name in values:
            if name not in known:
                errors[name] = "未知的设置项"
        result = self.defaults()
        for setting in self.settings:
            if setting.name in values:
                try:
                    result[setting.name] = setting.validate(values[setting.name])
                except ValueError as exc:
                    errors[setting.name] = str(exc)
        if errors:
            raise SettingsError(errors)
        return result

    def to_json(self) -> list[dict[str, Any]]:
        """The schema as JSON."""
        return [s.to_json() for s in self.settings]
