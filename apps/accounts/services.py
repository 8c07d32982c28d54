"""Writes of the accounts app."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate, login
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from .models import User

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
        raise LoginRefusedError(LOGIN_WRONG)
    login(request, user)
    return user
