"""Django's PostgreSQL backend with a health check that costs no round trip
(:mod:`.base`). ``config/settings.py`` selects it for every ``postgres://`` URL."""
