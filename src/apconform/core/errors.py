"""The error hierarchy: every failure carries a stable code, a path and what to do next.

Codes are registered once, here or in the package that owns them, so the
documentation's error table is generated from the same registry the code raises
from and can never drift from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ApconformError",
    "DocumentRefused",
    "ErrorCode",
    "UsageError",
    "Violation",
    "define_code",
    "registered_codes",
]


@dataclass(frozen=True)
class ErrorCode:
    """A stable error code with a one-line title and the default advice for the user."""

    code: str
    title: str
    hint: str
    exit_status: int = 2
    http_status: int = 400

    def __str__(self) -> str:
        return self.code


_REGISTRY: dict[str, ErrorCode] = {}


def define_code(
    code: str, title: str, hint: str, *, exit_status: int = 2, http_status: int = 400
) -> ErrorCode:
    """Register a code; registering the same code twice with other text is a programming error."""
    entry = ErrorCode(code, title, hint, exit_status, http_status)
    known = _REGISTRY.get(code)
    if known is not None and known != entry:
        raise ValueError(f"error code {code} registered twice with different text")
    _REGISTRY[code] = entry
    return entry


def registered_codes() -> list[ErrorCode]:
    """Every code registered so far, sorted by code."""
    return [_REGISTRY[key] for key in sorted(_REGISTRY)]


@dataclass(frozen=True)
class Violation:
    """One reason a document was refused: where, which rule, and in words."""

    code: str
    path: str
    message: str
    hint: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"code": self.code, "path": self.path, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        return out


class ApconformError(Exception):
    """Base of every error the kit raises on purpose.

    ``code`` is stable across releases; ``path`` locates the offending value
    (``$`` is the document root); ``hint`` tells the user what to do next.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        path: str | None = None,
        hint: str | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.error_code = code
        self.message = message
        self.path = path
        self.hint = hint if hint is not None else code.hint
        self.context: dict[str, Any] = dict(context or {})

    @property
    def code(self) -> str:
        return self.error_code.code

    @property
    def exit_status(self) -> int:
        return self.error_code.exit_status

    @property
    def http_status(self) -> int:
        return self.error_code.http_status

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.path is not None:
            out["path"] = self.path
        if self.hint:
            out["hint"] = self.hint
        return out

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.code}{where}: {self.message}"


DOCUMENT_REFUSED = define_code(
    "APC-DOC-REFUSED",
    "The document was refused; every violation is listed",
    "Fix each listed violation (its path says where) and submit the document again.",
    exit_status=1,
    http_status=422,
)

USAGE = define_code(
    "APC-USAGE",
    "The command was called with wrong arguments",
    "Run the command with --help to see its arguments.",
    exit_status=2,
)


class DocumentRefused(ApconformError):
    """A well-formed JSON document that breaks one or more rules; all violations are kept."""

    def __init__(
        self,
        violations: Iterable[Violation],
        *,
        what: str = "document",
        code: ErrorCode = DOCUMENT_REFUSED,
    ) -> None:
        self.violations = list(violations)
        if not self.violations:
            raise ValueError("DocumentRefused needs at least one violation")
        first = self.violations[0]
        more = len(self.violations) - 1
        suffix = f" (and {more} more violation{'s' if more != 1 else ''})" if more else ""
        super().__init__(
            code,
            f"{what} refused: {first.message}{suffix}",
            path=first.path,
            context={"violations": [v.to_dict() for v in self.violations]},
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["violations"] = [v.to_dict() for v in self.violations]
        return out


class UsageError(ApconformError):
    """A command-line usage mistake (exit status 2)."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(USAGE, message, hint=hint)
