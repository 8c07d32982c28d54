from django.apps import AppConfig


class TableConfig(AppConfig):
    """The table page at ``/rooms/<code>/play/`` and its static client."""

    name = "apps.table"
    label = "table"
    verbose_name = "牌桌"
    default_auto_field = "django.db.models.BigAutoField"
