"""Checking that a result document is what its kind says, before anything reads or keeps it.

Each record, report or result is validated against its generated model (the
same rules as its JSON Schema), listing every violation with its path; a
conformance report must also agree with its own footer (the cases' digest,
the counts, the numbering).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ScoreReport
from apconform.models.apx import Result
from apconform.models.conformance import ReportCase, ReportFooter, ReportHeader
from apconform.results.kinds import ResultKind
from apconform.results.records import consistency_problems

__all__ = ["RESULT_INCONSISTENT", "check_result"]

RESULT_INCONSISTENT = define_code(
    "APC-RESULT-INCONSISTENT",
    "A conformance report disagrees with its own footer",
    "Use the report exactly as apconform check wrote it; a report edited by hand no longer "
    "matches the digest and counts in its footer.",
    exit_status=1,
    http_status=422,
)

_RECORD_MODELS: dict[str, type[BaseModel]] = {
    "header": ReportHeader,
    "case": ReportCase,
    "footer": ReportFooter,
}


def _shift(violations: list[Violation], index: int) -> list[Violation]:
    """Re-root violations found in one record at ``$[index]``."""
    return [Violation(v.code, f"$[{index}]" + v.path[1:], v.message, v.hint) for v in violations]


def _check_report(records: Any) -> bytes:
    if not isinstance(records, list) or len(records) < 2:
        raise DocumentRefused(
            [Violation(RESULT_INCONSISTENT.code, "$", "a report is a header, cases and a footer")],
            what="conformance report",
        )
    violations: list[Violation] = []
    last = len(records) - 1
    for index, record in enumerate(records):
        wanted = "header" if index == 0 else "footer" if index == last else "case"
        kind = record.get("record") if isinstance(record, dict) else None
        if kind != wanted:
            violations.append(
                Violation(
                    RESULT_INCONSISTENT.code,
                    f"$[{index}].record",
                    f"expected a {wanted} record here, found {kind!r}",
                )
            )
            continue
        try:
            validate_document(_RECORD_MODELS[wanted], record)
        except DocumentRefused as refused:
            violations.extend(_shift(refused.violations, index))
    if violations:
        raise DocumentRefused(violations, what="conformance report")
    # Each record is serialised once: the report's bytes and the cases' digest share them.
    parts = [canonical_bytes(record) for record in records]
    cases_sha256 = sha256_bytes(b"[" + b",".join(parts[1:-1]) + b"]")
    violations = [
        Violation(RESULT_INCONSISTENT.code, f"$[{last}]", problem)
        for problem in consistency_problems(records, cases_sha256=cases_sha256)
    ]
    if violations:
        raise DocumentRefused(violations, what="conformance report")
    return b"[" + b",".join(parts) + b"]"


def check_result(kind: ResultKind, document: Any) -> bytes:
    """Raise ``DocumentRefused`` listing every way ``document`` is not a valid ``kind``.

    Returns the document's RFC 8785 bytes, which the check computes on the way.
    """
    if kind is ResultKind.CONFORMANCE_REPORT:
        return _check_report(document)
    if kind is ResultKind.AP1_SCORE_REPORT:
        validate_document(Ap1ScoreReport, document, what="AP-1 score report")
    else:
        validate_document(Result, document, what="APx result")
    return canonical_bytes(document)
