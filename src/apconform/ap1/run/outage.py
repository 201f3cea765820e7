"""Endpoint failures are not outcomes: telling them apart, and when to stop a run for them.

An execution whose failing round never reached the model (every attempt
failed in transport: refused connection, reset, timeout) or was refused access
(HTTP 401, 403 or 404) says nothing about the model. The engine records it in
full as ``cell-deferred`` instead of as the cell's outcome, so a resume
executes the cell again, and it stops the run (resumably) once
:class:`EndpointWatch` has seen ``limit`` such executions in a row: an endpoint
that is down, unreachable or refusing the key would otherwise turn the whole
plan into UNMEASURED cells within seconds. Server errors (5xx), rate limits and
unreadable bodies are answers of the endpoint and stay outcomes (UNMEASURED
with their cause), as the retry rules say.
"""

from __future__ import annotations

import threading

from apconform.ap1.transcript.deferral import (
    ACCESS_STATUSES,
    TRANSPORT_OUTCOMES,
    endpoint_failure,
)

__all__ = [
    "ACCESS_STATUSES",
    "DEFAULT_FAILURE_LIMIT",
    "TRANSPORT_OUTCOMES",
    "EndpointWatch",
    "endpoint_failure",
]

DEFAULT_FAILURE_LIMIT = 5


class EndpointWatch:
    """Counts executions that failed at the endpoint in a row; says when the run must stop."""

    def __init__(self, limit: int = DEFAULT_FAILURE_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the endpoint failure limit must be at least 1")
        self.limit = limit
        self.in_a_row = 0
        self.stop_reason: str | None = None
        self._lock = threading.Lock()

    def observe(self, cause: str | None) -> str | None:
        """Count one finished execution (``cause`` from :func:`endpoint_failure`); return the
        reason to stop the run when this one makes ``limit`` failures in a row."""
        with self._lock:
            if cause is None:
                self.in_a_row = 0
                return None
            self.in_a_row += 1
            if self.in_a_row >= self.limit and self.stop_reason is None:
                self.stop_reason = (
                    f"stopped early: {self.in_a_row} executions in a row failed at the endpoint "
                    f"(last: {cause}); resume the run once the endpoint answers"
                )
                return self.stop_reason
            return None
