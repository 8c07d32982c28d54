import unicodedata
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

ONLINE_WINDOW = timedelta(minutes=5)
"""A user seen within this long is shown as online (在线)."""

AVATAR_COLORS = (
    ("#1f5f3f", "墨绿"),
    ("#b3261e", "朱红"),
    ("#1d4f91", "靛蓝"),
    ("#8a5a00", "琥珀"),
    ("#6a3d9a", "紫罗兰"),
    ("#00796b", "青碧"),
    ("#c2185b", "玫红"),
    ("#455a64", "石板灰"),
)
"""The avatar colours a player may pick (hex, Chinese name)."""


def name_key(name: str) -> str:
    """What makes two shown names the same to a reader: case and full/half width ignored
    (NFKC, then casefold, then NFKC again), surrounding spaces dropped."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip()


class User(AbstractUser):
    """A player. ``display_name`` is what other players see at the table (Chinese allowed);
    the avatar is the name's first character on ``avatar_color``. ``last_seen`` is when the
    player last loaded a page or used the API, written at most once a minute
    (:func:`apps.accounts.services.user_last_seen_update`).

    ``shown_key`` is :func:`name_key` of the name others see (:meth:`__str__`); the forms
    refuse a name whose key another user's shown name already has, so no one can appear
    under another player's name.
    """

    display_name = models.CharField("昵称", max_length=32, blank=True)
    shown_key = models.CharField("显示名比较键", max_length=150, db_index=True, default="")
    avatar_color = models.CharField(
        "头像颜色", max_length=7, choices=AVATAR_COLORS, blank=True, default=""
    )
    last_seen = models.DateTimeField("最后在线", null=True, blank=True, db_index=True)
    is_computer = models.BooleanField(
        "电脑", default=False,
        help_text="亲友圈的电脑玩家账号（电脑补位、练习房），不是成员，不能登录",
    )

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_online(self) -> bool:
        """Seen within :data:`ONLINE_WINDOW`."""
        return self.last_seen is not None and timezone.now() - self.last_seen < ONLINE_WINDOW

    @property
    def avatar_initial(self) -> str:
        """The character shown in the avatar: the first of the display name."""
        return str(self)[:1].upper()

    @property
    def avatar_hex(self) -> str:
        """The avatar's colour: the chosen one, else one picked from the user ID."""
        if self.avatar_color:
            return self.avatar_color
        return AVATAR_COLORS[(self.pk or 0) % len(AVATAR_COLORS)][0]

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.shown_key = name_key(str(self))
        fields = kwargs.get("update_fields")
        if fields is not None and "display_name" in fields:
            kwargs["update_fields"] = {*fields, "shown_key"}
        super().save(*args, **kwargs)
