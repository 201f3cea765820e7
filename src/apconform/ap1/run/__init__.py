"""Running a sealed plan: the wire format, request building, the endpoint adapter with retries and
rate limiting, the tool loop of one execution, progress, and the engine.

May import ``seal``, ``transcript``, ``inputs``, ``calculator`` and the base modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.run.endpoint import Endpoint as Endpoint
    from apconform.ap1.run.engine import RunOptions as RunOptions
    from apconform.ap1.run.engine import RunResult as RunResult
    from apconform.ap1.run.engine import run_sealed as run_sealed
    from apconform.ap1.run.scripted import run_scripted as run_scripted

__getattr__ = lazy_exports(__name__)
