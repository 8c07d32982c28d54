from django.apps import AppConfig
from django.core.signals import request_finished
from django.urls import register_converter

from apps.core.connections import request_connections_close
from apps.core.converters import DatabaseIdConverter


class CoreConfig(AppConfig):
    """App-agnostic plumbing: the ``serve`` launcher, ``seed_demo``, URL converters and
    closing each HTTP request's database connections."""

    name = "apps.core"
    label = "core"
    verbose_name = "平台核心"

    def ready(self) -> None:
        """Register the ``dbid`` path converter before any URLconf is loaded, and close
        each HTTP request's database connections when it ends."""
        register_converter(DatabaseIdConverter, "dbid")
        request_finished.connect(request_connections_close, dispatch_uid="core.close_connections")
