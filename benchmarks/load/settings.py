"""Settings of the benchmark's processes: the platform's production settings (run with
``DEBUG=0``, see :func:`benchmarks.load.processes.server_env`) with these exceptions.

- A fast password hasher: logging 400 bots in over HTTP with PBKDF2 would take minutes and
  is not what is measured, so the benchmark's users get (and its servers accept) MD5
  password hashes.
- Cookies are not marked ``Secure`` and static files need no manifest: the bots talk plain
  HTTP to 127.0.0.1 and nothing runs ``collectstatic``.

Everything else (database, Redis, queue) comes from the environment as usual.
"""

from config.settings import *  # noqa: F403
from config.settings import STORAGES

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
