"""Garbage-collector tuning for long-lived server processes (daphne, its move processes)."""

import gc


def collector_tune() -> None:
    """Freeze what is loaded now and collect the young generation less often.

    Call once the application is loaded. What is loaded by then (Django, the apps, the
    rules package) lives as long as the process; frozen out of the cyclic collector's
    reach, it is no longer walked by every full collection: under load those came every
    half minute or so and paused the event loop for 90-170 ms, about half of it spent on
    these objects (docs/benchmarks.md).

    A move builds thousands of short-lived containers (five observations and their
    frames). With the default first threshold (700) young collections ran mid-move and
    promoted the move's live temporaries, whose growth then triggered a full collection
    every 15-20 s at 100 tables (80-110 ms pauses). Collecting the young generation every
    20,000 net allocations lets them die young; full collections become rare and young
    ones stay short.
    """
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
