"""The request-rate limiter shared by every worker of a run."""

from __future__ import annotations

import threading
import time
from decimal import Decimal

__all__ = ["RateLimiter"]


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
