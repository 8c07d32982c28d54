"""Writes of the accounts app."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate, login
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from .models import ApiToken, User

LAST_SEEN_EVERY = timedelta(minutes=1)
"""``last_seen`` is written at most this often per player."""


def user_last_seen_update(*, user_id: int, now: datetime | None = None) -> bool:
    """Record that the player was seen now, unless that was already recorded within
    :data:`LAST_SEEN_EVERY`; return whether a row was written.

    One conditional ``UPDATE`` (no read): cheap enough to call on every request, or from a
    table connection's heartbeat.
    """
    now = now or timezone.now()
    return bool(
        User.objects.filter(pk=user_id)
        .filter(Q(last_seen__isnull=True) | Q(last_seen__lt=now - LAST_SEEN_EVERY))
        .update(last_seen=now)
    )


class LoginRefusedError(Exception):
    """The username and password do not match (``locked``: too many failures, django-axes
    refuses this username at this address for now)."""

    def __init__(self, message: str, *, locked: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.locked = locked


LOGIN_WRONG = "用户名或密码不正确"
LOGIN_DISABLED = "这个账号已被停用，不能登录；请联系圈主或网站管理员"


def login_disabled(*, username: str, password: str) -> bool:
    """Whether a refused login is a deactivated account's, with its right password: only
    then is the player told the account is disabled (a wrong guess learns nothing)."""
    user = User.objects.filter(username=username, is_active=False, is_computer=False).first()
    return user is not None and user.check_password(password)
LOGIN_LOCKED = "登录失败次数过多，请 {minutes} 分钟后再试"


def lockout_message() -> str:
    """The Chinese answer to a login django-axes refuses (the form's and the API's)."""
    cooloff = settings.AXES_COOLOFF_TIME
    minutes = max(1, round(cooloff.total_seconds() / 60)) if cooloff else 15
    return LOGIN_LOCKED.format(minutes=minutes)


def session_login(*, request: HttpRequest, username: str, password: str) -> User:
    """Log the player in on this request's session, through the same django-axes checks
    as the login form (``authenticate`` counts a failure by username and address, and
    refuses while that pair is locked). Raises :class:`LoginRefusedError`."""
    user = authenticate(request, username=username, password=password)
    if getattr(request, "axes_locked_out", False):
        raise LoginRefusedError(lockout_message(), locked=True)
    if not isinstance(user, User) or user.is_computer:
        if login_disabled(username=username, password=password):
            raise LoginRefusedError(LOGIN_DISABLED)
        raise LoginRefusedError(LOGIN_WRONG)
    login(request, user)
    return user


class AccountRefusedError(Exception):
    """A bot or token change refused; ``field`` is the input it concerns (or ``None``)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message, self.field = message, field


def bot_create(*, owner: User, username: str, display_name: str = "") -> User:
    """A bot account of ``owner``'s: it has no password (it signs in with a token of its
    owner's making) and its name is marked（机器人）everywhere."""
    if owner.is_bot or owner.is_computer:
        raise AccountRefusedError("机器人账号不能再创建机器人")
    bot = User(username=username, display_name=display_name, bot_owner=owner)
    bot.set_unusable_password()
    bot.save()
    return bot


def token_create(*, actor: User, name: str, play: bool, account: User | None = None,
                 ) -> tuple[ApiToken, str]:
    """A personal API token for ``actor`` or one of their bots (``account``); returns the
    token row and the token's text, which is shown this once and stored only as a digest."""
    account = actor if account is None else account
    if actor.pk not in (account.pk, account.bot_owner_id):
        raise AccountRefusedError("只能为自己或自己的机器人创建令牌", "account")
    if actor.is_bot:
        raise AccountRefusedError("机器人账号不能创建令牌")
    name = name.strip()
    if not name:
        raise AccountRefusedError("请给令牌起个名字", "name")
    return ApiToken.objects.create(  # type: ignore[no-any-return]
        user=account, expiry=None, name=name[:40], play=play, made_by=actor
    )


def token_revoke(*, actor: User, token_key: str) -> None:
    """Revoke one of the tokens ``actor`` made (for themselves or a bot): it stops working
    at once, on the API and on sockets opened after."""
    deleted, _ = ApiToken.objects.filter(made_by=actor, token_key=token_key).delete()
    if not deleted:
        raise AccountRefusedError("没有这个令牌")
