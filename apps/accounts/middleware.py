"""Records when a signed-in player was last seen, cheaply.

The user row is loaded by the authentication middleware anyway: only when its
``last_seen`` is a minute old or more does :func:`~apps.accounts.services.user_last_seen_update`
write it, in one conditional ``UPDATE``, so a player clicking about costs one write a
minute, not one per request.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from .models import User
from .services import LAST_SEEN_EVERY, user_last_seen_update


class LastSeenMiddleware:
    """Sets ``User.last_seen`` to now at most once every :data:`LAST_SEEN_EVERY`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if isinstance(user, User) and user.is_authenticated:
            now = timezone.now()
            if user.last_seen is None or now - user.last_seen >= LAST_SEEN_EVERY:
                user_last_seen_update(user_id=user.pk, now=now)
                user.last_seen = now
        return self.get_response(request)
