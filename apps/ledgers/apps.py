from django.apps import AppConfig


class LedgersConfig(AppConfig):
    """Ledgers: per-club score books settled from finished matches."""

    name = "apps.ledgers"
    label = "ledgers"
    verbose_name = "账本"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the ledger key's system check."""
        from . import checks  # noqa: F401, PLC0415  (registers on import)
