import unicodedata
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models


def name_key(name: str) -> str:
    """What makes two shown names the same to a reader: case and full/half width ignored
    (NFKC, then casefold, then NFKC again), surrounding spaces dropped."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip()


class User(AbstractUser):
    """A player. ``display_name`` is what other players see at the table (Chinese allowed).

    ``shown_key`` is :func:`name_key` of the name others see (:meth:`__str__`); the forms
    refuse a name whose key another user's shown name already has, so no one can appear
    under another player's name.
    """

    display_name = models.CharField("昵称", max_length=32, blank=True)
    shown_key = models.CharField("显示名比较键", max_length=150, db_index=True, default="")

    def __str__(self) -> str:
        return self.display_name or self.username

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.shown_key = name_key(str(self))
        fields = kwargs.get("update_fields")
        if fields is not None and "display_name" in fields:
            kwargs["update_fields"] = {*fields, "shown_key"}
        super().save(*args, **kwargs)
