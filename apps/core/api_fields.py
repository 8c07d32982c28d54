"""Serializer fields shared by the API's inputs."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class TextField(serializers.CharField):
    """A ``CharField`` whose ``max_length`` counts what was sent, before whitespace is
    trimmed, so that the schema's ``maxLength`` is exactly the server's limit (41
    characters with a leading tab were taken as 40)."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return str(super().to_internal_value(data))
