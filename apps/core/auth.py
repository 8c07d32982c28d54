"""Request types of the views that only a logged-in player reaches, for type checking.

``login_required`` (pages) and DRF's ``IsAuthenticated`` (the API's default permission,
with session authentication) guarantee that ``request.user`` is a
:class:`~apps.accounts.models.User`, never an ``AnonymousUser``. Annotating such a view's
``request`` with one of these classes tells mypy so. They are never instantiated: Django
and DRF build their requests as usual, and the annotations change nothing at runtime.
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.request import Request

from apps.accounts.models import User


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a ``login_required`` view."""

    user: User


class AuthenticatedRequest(Request):
    """The request of an API view that keeps the default ``IsAuthenticated`` permission."""

    user: User
