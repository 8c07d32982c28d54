"""Fixtures of the accounts tests."""

from typing import Any

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def fast_hashing_and_clean_cache(settings: Any) -> None:
    """Hash passwords quickly and start every test with an empty rate-limit cache."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
