"""The expected-failures list: declared, justified and strict.

Each entry names a vector id, or a clause id standing for every vector that
cites it, with the reason the implementation fails it today. An entry that
matches no vector of the suite is refused (it would outlive the gap it was
written for), and a listed case that passes is an xpass, which fails the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from apconform.conformance.vectors import LoadedVector
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.conformance import XfailList

__all__ = ["ExpectedFailures", "load_expected_failures"]

XFAIL_UNKNOWN = define_code(
    "APC-XFAIL-UNKNOWN",
    "An expected-failures entry matches no vector of the suite",
    "Remove the entry (the case it named no longer exists) or correct the id.",
    exit_status=2,
)
XFAIL_DUPLICATE = define_code(
    "APC-XFAIL-DUPLICATE",
    "An id appears twice in the expected-failures list",
    "Keep one entry per id, with one reason.",
    exit_status=2,
)


@dataclass(frozen=True)
class ExpectedFailures:
    """Reasons by vector id and by clause id; empty when no list was given."""

    by_id: dict[str, str]
    path: Path | None = None

    def reason_for(self, vector: LoadedVector) -> str | None:
        """The reason a vector is expected to fail (its own entry first, then its clauses')."""
        if vector.id in self.by_id:
            return self.by_id[vector.id]
        for clause in vector.vector.clauses:
            if clause in self.by_id:
                return f"{clause}: {self.by_id[clause]}"
        return None


def load_expected_failures(path: Path | None, vectors: list[LoadedVector]) -> ExpectedFailures:
    """Load and check the list against the whole suite (every protocol, not only the selection)."""
    if path is None:
        return ExpectedFailures({})
    document = load_path(path)
    listed = validate_document(XfailList, document, what=f"expected-failures list {path}")
    known = {v.id for v in vectors} | {c for v in vectors for c in v.vector.clauses}
    by_id: dict[str, str] = {}
    violations = []
    for index, entry in enumerate(listed.entries):
        where = f"$.entries[{index}].id"
        if entry.id in by_id:
            violations.append(Violation(XFAIL_DUPLICATE.code, where, f"{entry.id} is listed twice"))
        elif entry.id not in known:
            violations.append(
                Violation(
                    XFAIL_UNKNOWN.code,
                    where,
                    f"{entry.id} is neither a vector id nor a clause cited by a vector",
                )
            )
        reason = entry.reason + (f" ({entry.issueUrl})" if entry.issueUrl else "")
        by_id.setdefault(entry.id, reason)
    if violations:
        raise DocumentRefused(violations, what=f"expected-failures list {path}")
    return ExpectedFailures(by_id, path)
