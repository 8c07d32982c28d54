"""Fixtures of the accounts tests."""

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    """Hash passwords quickly."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
