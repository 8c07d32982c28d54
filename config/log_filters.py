"""Logging filters named in ``LOGGING`` (``config/settings.py``)."""

import logging


class DropTaskRuns(logging.Filter):
    """Drop Celery's routine lines about one task: beat's "Sending due task", the worker's
    "received" and "succeeded". The once-a-second sweep would otherwise write three lines a
    second and bury the request lines; what the sweep did, it logs itself."""

    def __init__(self, task: str) -> None:
        super().__init__()
        self.task = task

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep a record unless it names the task (and is not a warning or worse)."""
        return record.levelno >= logging.WARNING or self.task not in record.getMessage()
