"""Structured logs: one JSON object per line on stderr, for the access log and for errors.

Records carry their data in ``extra={"fields": {...}}``; the formatter merges
those fields into the line. Request and response bodies are never logged.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

__all__ = ["JsonFormatter", "NotYetReady", "logging_config"]


class NotYetReady(logging.Filter):
    """Drop uvicorn's "Uvicorn running on ..." line: it is logged when the socket is bound,
    seconds before a worker accepts connections; ``apconform serve`` prints its own ready
    line when one does."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Uvicorn running on")


class JsonFormatter(logging.Formatter):
    """Format a record as one line of JSON: time, level, logger, message and the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        seconds = int(record.created)
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def logging_config(level: str = "info", *, access_log: bool = True) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the server: JSON lines on stderr for every logger."""
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "stream": "ext://sys.stderr",
        "filters": ["not-yet-ready"],
    }
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "apconform.api.logs.JsonFormatter"}},
        "filters": {"not-yet-ready": {"()": "apconform.api.logs.NotYetReady"}},
        "handlers": {"stderr": handler},
        "loggers": {
            "apconform.api": {"handlers": ["stderr"], "level": upper, "propagate": False},
            "apconform.api.access": {
                "handlers": ["stderr"],
                "level": "INFO" if access_log else "WARNING",
                "propagate": False,
            },
            "uvicorn": {"handlers": ["stderr"], "level": upper, "propagate": False},
            "uvicorn.error": {"level": upper},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
