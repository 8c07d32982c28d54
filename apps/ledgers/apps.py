from django.apps import AppConfig


class LedgersConfig(AppConfig):
    """Ledgers: per-club score books settled from finished matches."""

    name = "apps.ledgers"
    label = "ledgers"
    verbose_name = "账本"
    default_auto_field = "django.db.models.BigAutoField"
