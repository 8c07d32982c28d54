"""Django settings, driven by environment variables (django-environ).

With no environment variables set this is a development setup: DEBUG on, SQLite at
``var/db.sqlite3`` and Redis at the embedded launcher's well-known URL
(``redis://127.0.0.1:6390/0``, see ``apps.core.embedded_redis``).

Environment variables:
    DEBUG, SECRET_KEY (required when DEBUG is off), LEDGER_SIGNING_KEY and
    LEDGER_SIGNING_KEY_FALLBACKS (the ledger's own key, see ``apps.ledgers.signing``),
    ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS,
    DATABASE_URL (e.g. ``postgres://user@host:5432/db``), REDIS_URL,
    SECURE_SSL_REDIRECT, SECURE_HSTS_SECONDS (HSTS preload only from a year), DATABASE_POOL_SIZE,
    TRUSTED_PROXIES (the reverse proxy's addresses), API_READS_PER_MINUTE,
    API_WRITES_PER_MINUTE, EMAIL_URL (console by default), DEFAULT_FROM_EMAIL,
    PASSWORD_RESET_TIMEOUT.
"""

import os
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import django_stubs_ext
import environ
from csp.constants import NONCE, NONE, SELF
from redis.connection import parse_url as parse_redis_url

from apps.core.embedded_redis import EMBEDDED_REDIS_URL
from apps.ledgers.signing import DEVELOPMENT_KEY as DEVELOPMENT_LEDGER_KEY
from apps.matches.pacing import COMPUTER_PAUSE_MS, SWEEP_SECONDS

# Django's generic classes (ModelAdmin, ModelForm, CreateView ...) accept the type parameters
# that django-stubs gives them: ModelAdmin[Club] at runtime as for mypy.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY") if not DEBUG else env(
    "SECRET_KEY", default="django-insecure-dev-only-key-do-not-use-in-production"
)
# Ledger rows are signed with a key of their own, so that rotating SECRET_KEY leaves them
# valid; the fallbacks verify rows signed before a rotation of this key. The development
# default is refused when DEBUG is off (apps.ledgers.checks).
LEDGER_SIGNING_KEY = env("LEDGER_SIGNING_KEY", default=DEVELOPMENT_LEDGER_KEY)
LEDGER_SIGNING_KEY_FALLBACKS = env.list("LEDGER_SIGNING_KEY_FALLBACKS", default=[])
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "knox",
    "apps.core",
    "apps.accounts",
    "apps.clubs",
    "apps.matches",
    "apps.ledgers",
    "apps.table",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "apps.accounts.middleware.LastSeenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "csp.middleware.CSPMiddleware",
]

# Content-Security-Policy (django-csp): scripts and styles only from this site's static
# files; an inline script carries the request's nonce. No inline event
# handlers, no ``javascript:`` links. WebSockets go to this host ('self' covers ws/wss).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        # Inline style attributes stay allowed: the pages colour avatars and tiles with
        # them. Scripts, the injection that matters, are held to this site and the nonce.
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue up (BEGIN IMMEDIATE) instead of failing: SQLite's stand-in for the
    # select_for_update that serialises a match's actions on PostgreSQL. The test database
    # is a file so that Celery and daphne subprocesses started by tests can open it.
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
else:
    # Under ASGI every request and every move runs in a thread of its own, so connections
    # are not kept per thread (CONN_MAX_AGE 0) but borrowed from psycopg's pool, as Django
    # recommends. A call waits at most 3 s for a connection: with the database unreachable
    # a move is refused as unavailable then, rather than hanging. One test database per
    # test run (process), so concurrent runs on one server never collide (pytest-xdist
    # appends its worker suffix to this name).
    #
    # After a database restart the pool's idle connections are dead. The pool checks a
    # connection before lending it (Django hands CONN_HEALTH_CHECKS to psycopg's pool as
    # ``check_connection``; one round trip), but waits 1 s, then 2 s … before checking the
    # next idle one: so it keeps one idle connection, not more (min_size 1), and the wait
    # (3 s) covers one dead connection and a fresh connect. Its background reconnection
    # backs off the same way and would leave the first pages after a longer outage waiting
    # beyond that: it gives up after 2 s (reconnect_timeout), and the next request that needs
    # a connection makes a fresh attempt at once.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": env.int("DATABASE_POOL_SIZE", default=20), "timeout": 3,
        "reconnect_timeout": 2,
    }
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    # Ours says "too short" in Chinese: Django 5.2's zh_Hans catalogue lacks that message.
    {"NAME": "apps.accounts.validators.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# 忘记密码 mails: printed to the console unless EMAIL_URL names a server, for example
# ``smtp+tls://user:password@smtp.example.com:587`` (django-environ's email URL).
_email = env.email_url("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _email.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS"))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL"))
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="麻将亲友圈 <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=60 * 60 * 24 * 3)

# Lock a username at one address, never an address for everyone: players behind one home
# or campus network share it, and a wrong password of one must not lock out the others.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "apps.accounts.ratelimit.client_ip"
# The reverse proxies whose X-Forwarded-For hop is believed (apps.accounts.ratelimit).
# Empty: the peer's address is the client's (no proxy; daphne runs without --proxy-headers).
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "apps.accounts.lockout.lockout_response"  # Chinese, page or API
# axes' own admin pages are English (its records name themselves in English); a user's
# admin page shows their login lock instead and 解除登录锁定 clears it.
AXES_ENABLE_ADMIN = False
# Registrations allowed per client IP per hour (apps/accounts/views.py).
REGISTRATION_RATE_LIMIT = env.int("REGISTRATION_RATE_LIMIT", default=10)

LANGUAGE_CODE = "zh-hans"
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
# Chinese for what Django's and axes' own catalogs leave in English.
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

REDIS_URL = env("REDIS_URL", default=EMBEDDED_REDIS_URL)
# Redis pub/sub: a group send is one PUBLISH, and each daphne process receives it once and
# hands it to its own connections in that group. (The list-based ``core`` layer stores and
# pops a copy per connection: twice the CPU per update and higher latency, measured in
# docs/benchmarks.md.) Delivery is at most once; consumers catch up from the match log when
# they see a gap or stay quiet too long (apps/matches/consumers.py). Pub/sub channels are
# global to a Redis server, whatever the database number, so the prefix carries that number:
# deployments (or a test run and a benchmark) on different databases of one server stay
# apart, as they do for keys.
CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
    "default": {
        # channels_redis' pub/sub layer, forgetting each closed connection's channel.
        "BACKEND": "apps.core.channel_layer.PubSubChannelLayer",
        "CONFIG": {
            # redis-py's parse_url has no annotations.
            "prefix": f"asgi:db{parse_redis_url(REDIS_URL).get('db', 0)}:",  # type: ignore[no-untyped-call]
            "hosts": [
                {
                    "address": REDIS_URL,
                    # redis-py >= 8 defaults socket_timeout to 5 s; keep commands patient
                    # through a busy Redis rather than dropping the connection, but give up
                    # quickly on a Redis that cannot be reached at all.
                    "socket_timeout": 15,
                    "socket_connect_timeout": 2,
                }
            ]
        },
    },
}
# One cache for every process (the registration rate limit must be global). It lives in
# its own Redis database (``CACHE_URL``; by default the one after ``REDIS_URL``'s):
# clearing a Redis cache flushes the whole database, which must never take the channel
# layer or the Celery queues with it.
def cache_url(redis_url: str) -> str:
    """The cache's default Redis: ``redis_url``'s server, the database after its own."""
    db = int(parse_redis_url(redis_url).get("db", 0))  # type: ignore[no-untyped-call]
    return urlunsplit(urlsplit(redis_url)._replace(path=f"/{db + 1}"))


CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env("CACHE_URL", default=cache_url(REDIS_URL)),
    }
}
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="celery")
# Sending a task (a match's timer, after every move) tries Redis once: while it is away a
# move must not wait seconds for it, and the sweep acts on the timer instead. The worker's
# own reconnecting follows CELERY_BROKER_CONNECTION_* as before.
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 0}
# Celery's Django fix-up closes the database connection around every task; config/celery.py
# applies Django's own per-request rule around each task instead.
CELERY_DB_REUSE_MAX = 1_000_000
# Celery beat (embedded: the worker's --beat; at scale: one `celery -A config beat` process)
# sweeps the matches whose next due moment has passed (apps/matches/tasks.py). A schedule
# of one task every second has nothing worth keeping on disk.
# Tests that start real servers (browser, example bot) play computers at a quicker pace
# through these two; players always get apps/matches/pacing.py's values.
MATCH_SWEEP_SECONDS = env.float("MATCH_SWEEP_SECONDS", default=SWEEP_SECONDS)
MATCH_COMPUTER_PAUSE_MS = tuple(env.list("MATCH_COMPUTER_PAUSE_MS", cast=int,
                                         default=list(COMPUTER_PAUSE_MS)))
CELERY_BEAT_SCHEDULE = {"matches-sweep": {"task": "matches.sweep",
                                          "schedule": MATCH_SWEEP_SECONDS}}
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"

# Personal API tokens (django-rest-knox): ``Authorization: Bearer mj_…``, stored as digests.
KNOX_TOKEN_MODEL = "accounts.ApiToken"
# knox's own migrations create its AuthToken table even when the model is swapped out; that
# orphan table references accounts_user, so PostgreSQL refuses to truncate users without it.
# The swapped model needs no table: knox is left unmigrated.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {"AUTH_HEADER_PREFIX": "Bearer", "TOKEN_TTL": None, "TOKEN_PREFIX": "mj_"}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.core.authentication.SessionCsrfAuthentication",
        "apps.core.authentication.BearerTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "apps.core.schema.AutoSchema",
    # Per-user limits (apps/core/throttles.py); a view's ``throttle_scope`` picks its rate.
    "DEFAULT_THROTTLE_CLASSES": [
        "apps.core.throttles.WriteThrottle",
        "apps.core.throttles.ReadThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env("API_READS_PER_MINUTE", default="600") + "/min",
        "write": env("API_WRITES_PER_MINUTE", default="120") + "/min",
        "clubs": "20/hour",
        "login": env("API_LOGINS_PER_MINUTE", default="30") + "/min",  # per address
    },
    "EXCEPTION_HANDLER": "drf_standardized_errors.handler.exception_handler",
}
DRF_STANDARDIZED_ERRORS = {
    "EXCEPTION_HANDLER_CLASS": "apps.core.api_errors.ChineseExceptionHandler",
    "EXCEPTION_FORMATTER_CLASS": "apps.core.api_errors.ErrorFormatter",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "麻将亲友圈 API",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the drf-spectacular-sidecar package, served as this site's static
    # files under its CSP: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # The schema and its Swagger page are public: they describe the API, not its data.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    # apps.core.converters.DatabaseIdConverter: up to 18 digits.
    "PATH_CONVERTER_OVERRIDES": {
        "dbid": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    },
    "ENUM_NAME_OVERRIDES": {"VariantEnum": "apps.clubs.api.serializers.PLAYER_VARIANTS"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.api_errors.error_schema_hook",
        "apps.clubs.api.schema.variant_settings_hook",
        "apps.core.authentication.csrf_schema_hook",
    ],
}

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 60 * 60)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # The preload lists take a site only with a max-age of at least a year; asking for
    # preload with less is refused there and hard to undo once accepted.
    SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS >= 365 * 24 * 60 * 60
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # The routine runs of the match timers and the sweep (apps/matches/tasks.py) are not
    # logged by Celery.
    "filters": {"timers": {"()": "config.log_filters.DropTaskRuns",
                           "tasks": ["matches.timer", "matches.sweep"]}},
    "loggers": {
        name: {"filters": ["timers"]}
        for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")
    },
}
