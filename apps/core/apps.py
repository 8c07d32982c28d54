from django.apps import AppConfig
from django.urls import register_converter

from apps.core.converters import DatabaseIdConverter


class CoreConfig(AppConfig):
    """App-agnostic plumbing: the ``serve`` launcher, ``seed_demo`` and URL converters."""

    name = "apps.core"
    label = "core"
    verbose_name = "平台核心"

    def ready(self) -> None:
        """Register the ``dbid`` path converter before any URLconf is loaded."""
        register_converter(DatabaseIdConverter, "dbid")
