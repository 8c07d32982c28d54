"""The load benchmark: bots playing real tables against daphne, Celery, Redis and PostgreSQL.

Run it with ``python -m benchmarks.load.run --write-docs`` (see ``docs/benchmarks.md``).

- :mod:`.settings`, :mod:`.asgi`, :mod:`.instrument`, :mod:`.bare`: what the benchmark's
  server processes run (the platform plus counters and the bare-transport consumer).
- :mod:`.processes`: starting and stopping daphne and Celery workers.
- :mod:`.tables`: creating players, clubs and rooms, and starting their matches.
- :mod:`.bots`, :mod:`.transport`: the clients (game bots, bare-transport clients).
- :mod:`.scenario`: one measured run; :mod:`.run`: the whole benchmark and its report.
- :mod:`.reference`: the game against the plain design, both trees in
  one run.
"""
