"""Smoke tests of the project skeleton: HTTP, auth, API schema, websockets, Celery."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from redis.connection import parse_url

from apps.accounts.models import User
from config.asgi import application
from config.celery import app as celery_app
from config.tasks import ping


def test_healthz(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}


@pytest.mark.django_db
def test_home_page_is_chinese(client: Client) -> None:
    page = client.get("/").content.decode()
    assert "<title>麻将亲友圈</title>" in page
    assert "/accounts/login/" in page
    assert "/accounts/register/" in page


@pytest.mark.django_db
def test_admin_login_page(client: Client) -> None:
    assert client.get("/admin/login/").status_code == 200


@pytest.mark.django_db
def test_openapi_schema_and_docs_are_public(client: Client) -> None:
    """The schema describes the API, not its data: a client reads it before logging in."""
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/clubs/").status_code == 403  # the data still needs a login


@pytest.mark.django_db
def test_user_has_chinese_display_name() -> None:
    User.objects.create_user("lisi", display_name="李四")
    user = User.objects.get(username="lisi")
    assert user.display_name == "李四"
    assert str(user) == "李四"
    assert User._meta.get_field("display_name").max_length == 32


@pytest.mark.django_db
def test_register_creates_user_and_logs_in(client: Client) -> None:
    response = client.post(
        "/accounts/register/",
        {
            "username": "wangwu",
            "display_name": "王五",
            "password1": "mahjong-Tiles-2025",
            "password2": "mahjong-Tiles-2025",
        },
    )
    assert response.status_code == 302
    assert User.objects.get(username="wangwu").display_name == "王五"
    assert "你好，王五" in client.get("/").content.decode()


@pytest.mark.django_db
def test_seed_demo_is_idempotent() -> None:
    call_command("seed_demo")
    call_command("seed_demo")
    names = set(User.objects.values_list("display_name", flat=True))
    assert names == {"张三", "李四", "王五", "赵六"}
    assert User.objects.get(username="zhaoliu").check_password("demo12345")


def _logged_in_cookie() -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(User.objects.create_user("pinger"))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_websocket_ping_echoes_to_a_logged_in_user_only(redis_url: str) -> None:
    origin = (b"origin", b"http://localhost")
    anonymous = WebsocketCommunicator(application, "/ws/ping/", headers=[origin])
    connected, _ = await anonymous.connect()
    assert not connected  # issue 48: it echoed for anyone
    await anonymous.disconnect()
    cookie = await sync_to_async(_logged_in_cookie)()
    communicator = WebsocketCommunicator(application, "/ws/ping/", headers=[origin, cookie])
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_to(text_data="碰")
    assert await communicator.receive_from() == "碰"
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_websocket_rejects_foreign_origin(redis_url: str) -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_channel_layer_round_trip_through_redis(redis_url: str) -> None:
    layer = get_channel_layer()
    assert isinstance(layer, RedisPubSubChannelLayer)
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "tile.discarded", "tile": "九万"})
    assert (await layer.receive(channel))["tile"] == "九万"
    await layer.flush()


@pytest.mark.asyncio
async def test_channel_layers_of_different_redis_databases_do_not_hear_each_other(
    redis_url: str,
) -> None:
    """Pub/sub ignores the database number, so the layer's prefix must carry it: a site on
    another database of the same Redis server (or a benchmark) never gets our updates."""
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    db = int(parse_url(settings.REDIS_URL).get("db", 0))
    assert config["prefix"] == f"asgi:db{db}:"
    ours = RedisPubSubChannelLayer(**config)
    theirs = RedisPubSubChannelLayer(**{**config, "prefix": f"asgi:db{int(db) + 1}:"})
    mine, other = await ours.new_channel(), await theirs.new_channel()
    await ours.group_add("match_1", mine)
    await theirs.group_add("match_1", other)
    await ours.group_send("match_1", {"type": "table.update", "v": 1})
    assert (await asyncio.wait_for(ours.receive(mine), 5))["v"] == 1
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(theirs.receive(other), 0.5)
    await ours.flush()
    await theirs.flush()


def test_celery_uses_redis_from_settings(redis_url: str) -> None:
    assert redis_url == settings.CELERY_BROKER_URL
    assert celery_app.conf.broker_url == settings.CELERY_BROKER_URL
    assert celery_app.conf.result_backend == settings.CELERY_RESULT_BACKEND
    assert celery_app.conf.broker_url.startswith("redis://")
    assert ping.apply().get() == "pong"


@pytest.mark.services
def test_celery_worker_runs_task_through_redis(redis_url: str) -> None:
    from celery.contrib.testing.worker import start_worker

    with start_worker(celery_app, perform_ping_check=False, pool="solo"):
        assert ping.delay().get(timeout=20) == "pong"
