from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Players' accounts: the custom user model, login and registration."""

    name = "apps.accounts"
    label = "accounts"
    verbose_name = "账户"
    default_auto_field = "django.db.models.BigAutoField"
