from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. ``display_name`` is what other players see at the table (Chinese allowed)."""

    display_name = models.CharField("昵称", max_length=32, blank=True)
    is_computer = models.BooleanField(
        "电脑", default=False,
        help_text="亲友圈的电脑玩家账号（电脑补位、练习房），不是成员，不能登录",
    )

    def __str__(self) -> str:
        return self.display_name or self.username
