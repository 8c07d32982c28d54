"""Web security: deploy checks, CSRF, cookies, WebSocket origin, hashers, rate limits,
admin for staff only."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.ledgers.signing import DEVELOPMENT_KEY

pytestmark = pytest.mark.django_db

PROD_ENV = {
    "DEBUG": "false", "SECRET_KEY": "x" * 30 + "-production-secret-key-for-tests-0123456789",
    "ALLOWED_HOSTS": "mahjong.example.com", "CSRF_TRUSTED_ORIGINS": "https://mahjong.example.com",
    "LEDGER_SIGNING_KEY": "y" * 30 + "-production-ledger-key-for-tests-0123456789",
}


def _manage(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **PROD_ENV, **extra_env}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_check_deploy_is_clean_with_production_settings() -> None:
    result = _manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout + result.stderr


def test_production_refuses_the_development_ledger_key() -> None:
    unset = {k: v for k, v in {**os.environ, **PROD_ENV}.items() if k != "LEDGER_SIGNING_KEY"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=unset,
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode != 0 and "ledgers.E001" in result.stderr, result.stderr
    rotated = _manage("check", LEDGER_SIGNING_KEY_FALLBACKS=DEVELOPMENT_KEY)
    assert rotated.returncode != 0 and "ledgers.E002" in rotated.stderr, rotated.stderr


def test_production_cookies_are_secure() -> None:
    code = ("from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, "
            "s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, s.SECURE_SSL_REDIRECT, "
            "bool(s.SECURE_HSTS_SECONDS))")
    result = _manage("shell", "-c", code)
    assert "True True True True True" in result.stdout, result.stdout + result.stderr


def test_hsts_preload_only_with_a_years_max_age() -> None:
    code = ("from django.conf import settings as s; "
            "print(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_PRELOAD)")
    assert "31536000 True" in _manage("shell", "-c", code).stdout
    month = _manage("shell", "-c", code, SECURE_HSTS_SECONDS=str(30 * 24 * 3600))
    assert "2592000 False" in month.stdout, month.stdout + month.stderr


def test_forms_need_csrf() -> None:
    client = Client(enforce_csrf_checks=True)
    for url, data in (("/accounts/login/", {"username": "a", "password": "b"}),
                      ("/accounts/register/", {"username": "a"}),
                      ("/clubs/new/", {"name": "x"}), ("/clubs/join/", {"code": "x"})):
        assert client.post(url, data).status_code == 403, url


def test_passwords_use_django_hashers() -> None:
    # Production settings, in a process of their own: the test process hashes with MD5.
    code = ("from django.contrib.auth.hashers import make_password; "
            "print(make_password('a-long-passphrase-42'))")
    result = _manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    hashed = result.stdout.strip().splitlines()[-1]
    assert hashed.split("$")[0] in ("pbkdf2_sha256", "argon2", "bcrypt_sha256", "scrypt")
    assert "a-long-passphrase-42" not in hashed


def test_login_is_rate_limited() -> None:
    User.objects.create_user("victim", password="right-password-123")
    client = Client()
    codes = [client.post("/accounts/login/", {"username": "victim", "password": f"no{i}"})
             .status_code for i in range(8)]
    assert codes[-1] in (403, 429), codes
    # Locked out even with the right password.
    response = client.post("/accounts/login/", {"username": "victim",
                                                "password": "right-password-123"})
    assert response.status_code in (403, 429)


def test_registration_is_rate_limited(redis_url: str) -> None:
    from django.core.cache import cache
    cache.clear()
    client = Client()
    codes = [client.post("/accounts/register/", {"username": f"u{i}"}).status_code
             for i in range(15)]
    assert 429 in codes, codes


def test_admin_is_staff_only() -> None:
    user = User.objects.create_user("plain")
    client = Client()
    client.force_login(user)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_websocket_origin_is_checked() -> None:
    from config.asgi import application
    comm = WebsocketCommunicator(application, "/ws/ping/",
                                 headers=[(b"origin", b"https://evil.example.net"),
                                          (b"host", b"localhost")])
    connected, _ = await comm.connect(5)
    assert not connected
    await comm.disconnect()  # the browser side closes too: the refused consumer ends now
    client = Client()
    await sync_to_async(client.force_login)(await sync_to_async(User.objects.create_user)("o"))
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    comm = WebsocketCommunicator(application, "/ws/ping/",
                                 headers=[(b"origin", b"http://localhost"),
                                          (b"host", b"localhost"), (b"cookie", cookie.encode())])
    connected, _ = await comm.connect(5)
    assert connected
    await comm.disconnect()
