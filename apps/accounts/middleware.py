"""Records when a signed-in player was last seen, cheaply.

The user row is loaded by the authentication middleware anyway; its ``last_seen`` is
written only when it is a minute old or more, in one conditional ``UPDATE``, so a player
clicking about costs one write a minute, not one per request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from .models import User

WRITE_EVERY = timedelta(minutes=1)


class LastSeenMiddleware:
    """Sets ``User.last_seen`` to now at most once every :data:`WRITE_EVERY`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if isinstance(user, User) and user.is_authenticated:
            now = timezone.now()
            if user.last_seen is None or now - user.last_seen >= WRITE_EVERY:
                User.objects.filter(pk=user.pk).filter(
                    Q(last_seen__isnull=True) | Q(last_seen__lt=now - WRITE_EVERY)
                ).update(last_seen=now)
                user.last_seen = now
        return self.get_response(request)
