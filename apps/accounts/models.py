from datetime import timedelta

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

ONLINE_WINDOW = timedelta(minutes=5)
"""A user seen within this long is shown as online (在线)."""


class User(AbstractUser):
    """A player. ``display_name`` is what other players see at the table (Chinese allowed).

    ``last_seen`` is when the player last loaded a page or used the API, written at most once
    a minute (:func:`apps.accounts.services.user_last_seen_update`).
    """

    display_name = models.CharField("昵称", max_length=32, blank=True)
    last_seen = models.DateTimeField("最后在线", null=True, blank=True, db_index=True)

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_online(self) -> bool:
        """Seen within :data:`ONLINE_WINDOW`."""
        return self.last_seen is not None and timezone.now() - self.last_seen < ONLINE_WINDOW
