import unicodedata
from datetime import timedelta
from typing import Any

from confusable_homoglyphs import categories, confusables
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from knox.models import AbstractAuthToken

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


# Scripts a name may mix freely: a letter of another script (Cyrillic а, Greek ο …) that
# looks like a letter of these is read as that letter.
NAME_SCRIPTS = ("LATIN", "COMMON", "HAN", "HIRAGANA", "KATAKANA")


def name_key(name: str) -> str:
    """What makes two shown names the same to a reader: case and full/half width ignored
    (NFKC, then casefold, then NFKC again), a letter of another script that looks like a
    Latin one (Unicode's confusables, via ``confusable_homoglyphs``) read as it, surrounding
    spaces dropped."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(_look_alike(ch) for ch in folded).strip()


def _look_alike(char: str) -> str:
    if categories.alias(char) in NAME_SCRIPTS:
        return char
    for homoglyph in confusables.confusables_data.get(char, ()):
        if all(categories.alias(c) in NAME_SCRIPTS for c in homoglyph["c"]):
            return str(homoglyph["c"]).casefold()
    return char


class ComputerLevel(models.TextChoices):
    """How a computer seat plays (:data:`majiang.advisor.LEVELS`); 高手 (``expert``) is to
    come: adding it here is a choices change, the field stays."""

    EASY = "easy", "简单"
    STANDARD = "standard", "标准"


COMPUTER_NAME_PREFIX = "电脑·"
COMPUTER_GIVEN_NAMES = ("小梅", "阿竹", "小兰", "阿菊")
"""The computer seats' given names, by slot (1–4): 电脑·小梅 … 电脑·阿菊."""


def computer_display_name(slot: int) -> str:
    """The 昵称 of a club's computer account number ``slot`` (1–4), e.g. 电脑·小梅."""
    return f"{COMPUTER_NAME_PREFIX}{COMPUTER_GIVEN_NAMES[(slot - 1) % len(COMPUTER_GIVEN_NAMES)]}"


class User(AbstractUser):  # type: ignore[django-manager-missing]
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
    computer_level = models.CharField(
        "电脑水平", max_length=10, choices=ComputerLevel.choices, blank=True, default="",
        help_text="电脑玩家的水平，名字后标明，如“电脑·小梅（标准）”；真人为空",
    )

    bot_owner = models.ForeignKey(
        "self", verbose_name="机器人主人", null=True, blank=True, on_delete=models.CASCADE,
        related_name="bots",
        help_text="机器人账号：由这个玩家创建，只用 API 令牌登录，名字后标明（机器人）",
    )

    def __str__(self) -> str:
        name = self.display_name or self.username
        if self.bot_owner_id:
            return f"{name}（机器人）"
        if self.is_computer and self.computer_level:
            return f"{name}（{self.get_computer_level_display()}）"
        return name

    @property
    def short_name(self) -> str:
        """The name where room is short (a replay's seat tab): a computer's given name
        (小梅 of 电脑·小梅), else the 昵称 (or the username)."""
        return (self.display_name or self.username).removeprefix(COMPUTER_NAME_PREFIX)

    @property
    def is_bot(self) -> bool:
        return self.bot_owner_id is not None

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


class ApiToken(AbstractAuthToken):  # type: ignore[misc]
    """A personal API token (django-rest-knox): only its SHA-512 digest and its first
    characters are stored; the token itself is shown once, when it is made.

    Every token may read; ``play`` lets it act too (write through the API, move at the
    table). It belongs to its ``user``: the person who made it, or one of their bots.
    """

    # knox's fields, named in Chinese for the admin.
    digest = models.CharField("令牌摘要", max_length=128, primary_key=True)
    token_key = models.CharField("令牌开头", max_length=25, db_index=True)
    user = models.ForeignKey(User, verbose_name="账号", on_delete=models.CASCADE,
                             related_name="auth_token_set")
    created = models.DateTimeField("创建时间", auto_now_add=True)
    expiry = models.DateTimeField("过期时间", null=True, blank=True)
    name = models.CharField("名称", max_length=40)
    play = models.BooleanField("可以下牌", default=False)
    made_by = models.ForeignKey(
        User, verbose_name="创建人", on_delete=models.CASCADE, related_name="tokens_made"
    )
    last_used = models.DateTimeField("最后使用", null=True, blank=True)

    class Meta:
        verbose_name = "API 令牌"
        verbose_name_plural = "API 令牌"
        ordering = ("-created",)

    @property
    def scopes(self) -> list[str]:
        return ["read", "play"] if self.play else ["read"]
