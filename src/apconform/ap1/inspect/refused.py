"""The task's refusals: coded errors that Inspect's command line prints without a traceback.

The task is built by Inspect (``inspect eval apconform/ap1 -T run_dir=RUN``),
so its refusals reach Inspect's error handler, not apconform's. Inspect prints
an error of its prerequisite kind as its message alone; :class:`TaskRefused`
is one, and is also an :class:`~apconform.core.errors.ApconformError` with the
stable code, so a caller in Python catches it as any other refusal.
"""

from __future__ import annotations

from apconform.core.errors import ApconformError, define_code

try:  # Inspect's own kind of error for a missing prerequisite (printed without a traceback)
    from inspect_ai._util.error import PrerequisiteError as _Printed
except ImportError:  # pragma: no cover - a later Inspect moved it; the error is still coded
    _Printed = Exception  # type: ignore[assignment,misc]

__all__ = ["RUN_DIR_MISSING", "TaskRefused"]

RUN_DIR_MISSING = define_code(
    "AP1-INSPECT-RUN-DIR",
    "The AP-1 task was started without a sealed run directory",
    "Seal the inputs first (apconform ap1 seal ... --output-dir RUN), then run "
    "inspect eval apconform/ap1 -T run_dir=RUN.",
)


class TaskRefused(ApconformError, _Printed):  # type: ignore[misc]
    """A refusal of the task, worded in full (code, detail, what to do) for Inspect to print."""

    def __init__(self, error: ApconformError) -> None:
        ApconformError.__init__(
            self,
            error.error_code,
            error.message,
            path=error.path,
            hint=error.hint,
            context=error.context,
        )
        self.detail = error.message
        where = f" at {error.path}" if error.path else ""
        # Inspect prints ``message``: the whole refusal, as apconform's own commands word it.
        self.message = f"error {error.code}{where}: {error.message}\nhint: {error.hint}"

    def __str__(self) -> str:
        return self.message
