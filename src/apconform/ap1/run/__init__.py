"""Running a sealed plan: the wire format, request building, the endpoint adapter with retries and
rate limiting, the tool loop of one execution, progress, and the engine.

May import ``seal``, ``transcript``, ``inputs``, ``calculator`` and the base modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.run.endpoint import Endpoint
    from apconform.ap1.run.engine import RunOptions, RunResult, run_sealed
    from apconform.ap1.run.scripted import run_scripted

__all__ = [
    "Endpoint",
    "RunOptions",
    "RunResult",
    "run_scripted",
    "run_sealed",
]

_EXPORTS = {
    "RunOptions": "apconform.ap1.run.engine",
    "RunResult": "apconform.ap1.run.engine",
    "run_sealed": "apconform.ap1.run.engine",
    "Endpoint": "apconform.ap1.run.endpoint",
    "run_scripted": "apconform.ap1.run.scripted",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
