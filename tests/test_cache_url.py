"""The cache's Redis database follows ``REDIS_URL`` (issue 48): the one after it, on the
same server, so it is never the database of the channel layer and the Celery queues."""

from __future__ import annotations

from config.settings import cache_url


def test_the_cache_takes_the_database_after_redis_urls() -> None:
    assert cache_url("redis://redis:6379/0") == "redis://redis:6379/1"
    assert cache_url("redis://:pw@redis:6379/3") == "redis://:pw@redis:6379/4"
    assert cache_url("redis://127.0.0.1:6390") == "redis://127.0.0.1:6390/1"
