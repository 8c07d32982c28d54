from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """Matches: tables, hands and the live game driven by the ``majiang`` rules package."""

    name = "apps.matches"
    label = "matches"
    verbose_name = "对局"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the receivers: match start when a room is all ready, and the re-arming
        of timers when a Celery worker starts."""
        from . import receivers, recovery  # noqa: F401, PLC0415  (they connect on import)
