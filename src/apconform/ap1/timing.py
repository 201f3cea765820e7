"""Clock helpers and the request-rate limiter shared by every worker."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from decimal import Decimal

__all__ = ["RateLimiter", "elapsed_text", "utc_now"]


def utc_now() -> str:
    """UTC now as RFC 3339 with microseconds and a Z."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def elapsed_text(started: float) -> str:
    """Seconds since ``started`` (a perf_counter reading) as a decimal string, in milliseconds."""
    elapsed = max(0, round((time.perf_counter() - started) * 1000))
    return str(Decimal(elapsed).scaleb(-3))


class RateLimiter:
    """At most ``per_second`` request starts per second across all threads (None: no limit)."""

    def __init__(self, per_second: Decimal | None) -> None:
        self.interval = None if per_second is None else 1 / float(per_second)
        self._next = 0.0
        self._lock = threading.Lock()

    def acquire(self, stop: threading.Event) -> None:
        if self.interval is None:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            stop.wait(start - now)
