"""The embedded Redis helper shared by ``manage.py serve`` and the test suite."""

from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from apps.core.embedded_redis import embedded_redis, free_port, port_is_free


def test_starts_answers_ping_and_stops(tmp_path: Path) -> None:
    port = free_port()
    with embedded_redis(tmp_path, port) as url:
        assert url == f"redis://127.0.0.1:{port}/0"
        assert not port_is_free(port)
        client = redis.Redis.from_url(url)
        assert client.ping()
        client.close()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, retry=Retry(NoBackoff(), 0)).ping()
