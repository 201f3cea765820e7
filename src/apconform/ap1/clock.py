"""The instrument's clock: UTC timestamps for records and elapsed times as decimal text."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from decimal import Decimal

__all__ = ["elapsed_text", "utc_now"]


def utc_now() -> str:
    """UTC now as RFC 3339 with microseconds and a Z."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def elapsed_text(started: float) -> str:
    """Seconds since ``started`` (a perf_counter reading) as a decimal string, in milliseconds."""
    elapsed = max(0, round((time.perf_counter() - started) * 1000))
    return str(Decimal(elapsed).scaleb(-3))
