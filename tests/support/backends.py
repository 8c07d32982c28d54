"""The in-process stand-ins for Redis that tests outside the ``services`` tier use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import fakeredis
from channels.layers import channel_layers
from django.test import override_settings

IN_MEMORY_LAYER = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@contextmanager
def in_memory_backends() -> Iterator[None]:
    """A new in-memory channel layer and a fakeredis for presence while the block runs."""
    from apps.matches import presence

    channel_layers.backends.clear()
    fake = fakeredis.FakeRedis()
    with override_settings(CHANNEL_LAYERS=IN_MEMORY_LAYER), \
            mock.patch.object(presence, "_redis", lambda: fake):
        yield
    channel_layers.backends.clear()
