from django.apps import AppConfig


class CoreConfig(AppConfig):
    """App-agnostic plumbing: the ``serve`` launcher and ``seed_demo``."""

    name = "apps.core"
    label = "core"
    verbose_name = "平台核心"
