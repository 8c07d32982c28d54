from django.apps import AppConfig


class ClubsConfig(AppConfig):
    """Clubs (亲友圈): private groups of players who play together."""

    name = "apps.clubs"
    label = "clubs"
    verbose_name = "亲友圈"
    default_auto_field = "django.db.models.BigAutoField"
