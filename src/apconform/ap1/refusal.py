"""One refusal type for AP-1 inputs: every violation listed, the first one's code on top.

It is a :class:`~apconform.core.errors.DocumentRefused`, so the CLI prints each
violation and exits 1, but its code is the code of the first violation (for
example ``AP1-DRV-UNUSED-CONSTANT``), so a vector or a caller can tell which
rule refused the input without parsing text.
"""

from __future__ import annotations

from collections.abc import Iterable

from apconform.core.errors import DocumentRefused, ErrorCode, Violation, registered_codes

__all__ = ["Ap1Refused", "violation"]


class Ap1Refused(DocumentRefused):
    """A refused AP-1 input: ``code`` is the first violation's; ``violations`` lists all."""

    def __init__(self, violations: Iterable[Violation], *, what: str) -> None:
        super().__init__(violations, what=what)
        first = self.violations[0].code
        code = next((c for c in registered_codes() if c.code == first), None)
        if code is not None:
            self.error_code = code


def violation(code: ErrorCode, path: str, message: str, hint: str = "") -> Violation:
    """A violation carrying the code's own hint unless a more precise one is given."""
    return Violation(code.code, path, message, hint or code.hint)
