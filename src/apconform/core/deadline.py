"""A time limit that long computations check between their steps.

A thread cannot be stopped from outside: when the HTTP API stops waiting for
an operation (its request timeout), the thread running it would go on and
keep the worker busy. The API runs every operation under ``call_within``;
computations whose work can run for seconds (the power analysis's
simulations) call ``check_deadline`` between steps and stop with
``DEADLINE_PASSED`` once nobody waits for them. Without a deadline (the
command line, the library) ``check_deadline`` does nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from apconform.core.errors import ApconformError, define_code

__all__ = ["DEADLINE_PASSED", "call_within", "check_deadline"]

T = TypeVar("T")

DEADLINE_PASSED = define_code(
    "APC-DEADLINE",
    "The work was stopped at its caller's time limit",
    "Send a smaller input (fewer simulations, a narrower search), run it with the "
    "command line, or ask the operator to raise the request timeout.",
    exit_status=2,
    http_status=503,
)

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("apconform_deadline", default=None)
"""(monotonic time at which the work must stop, the limit in seconds) or None."""


def call_within(seconds: float, func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` with a deadline ``seconds`` from now for ``check_deadline``."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    try:
        return func(*args)
    finally:
        _DEADLINE.reset(token)


def check_deadline() -> None:
    """Raise ``DEADLINE_PASSED`` when the deadline of ``call_within`` has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() >= deadline[0]:
        raise ApconformError(
            DEADLINE_PASSED, f"the work was stopped after its time limit of {deadline[1]:g} seconds"
        )
