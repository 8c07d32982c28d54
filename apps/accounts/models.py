from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. ``display_name`` is what other players see at the table (Chinese allowed)."""

    display_name = models.CharField("昵称", max_length=32, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.username
