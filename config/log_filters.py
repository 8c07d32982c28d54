"""Logging filters named in ``LOGGING`` (``config/settings.py``)."""

import logging


class DropTaskRuns(logging.Filter):
    """Drop Celery's routine lines about some tasks: beat's "Sending due task", the worker's
    "received" and "succeeded". The once-a-second sweep and a timer per move would otherwise
    bury the request lines; what they did shows in the match's log."""

    def __init__(self, tasks: list[str]) -> None:
        super().__init__()
        self.tasks = tasks

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep a record unless it names one of the tasks (and is not a warning or worse)."""
        message = record.getMessage()
        return record.levelno >= logging.WARNING or not any(t in message for t in self.tasks)
