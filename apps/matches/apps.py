from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """Matches: tables, hands and the live game driven by the ``majiang`` rules package."""

    name = "apps.matches"
    label = "matches"
    verbose_name = "对局"
    default_auto_field = "django.db.models.BigAutoField"
