"""Settings of the benchmark's processes: the platform's own, with a fast password hasher.

Logging 400 bots in over HTTP with PBKDF2 would take minutes and is not what is
measured, so the benchmark's users get (and its servers accept) MD5 password hashes.
Everything else (database, Redis, queue) comes from the environment as usual.
"""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
