"""The kinds of result the kit compares and keeps, and reading a result file of any kind.

A conformance report is the JSON-lines file of ``apconform check`` and, as
one document, the JSON array of its records; an AP-1 score report and an APx
result are single JSON objects. The kind is told from the content, never from
the file name.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Any

from apconform.core.errors import ApconformError, define_code
from apconform.core.files import load_path, open_regular
from apconform.core.jsonload import Limits
from apconform.results.records import read_jsonl

__all__ = ["RESULT_LIMITS", "RESULT_UNKNOWN", "ResultKind", "detect_kind", "read_result"]

RESULT_UNKNOWN = define_code(
    "APC-RESULT-UNKNOWN",
    "The document is not a result the kit knows",
    "Give a conformance report (the JSON-lines file of apconform check), an AP-1 score "
    "report (score-report.json) or an APx result (apconform apx evaluate).",
)

RESULT_LIMITS = Limits(max_bytes=256 * 1_048_576, max_depth=64, max_nodes=50_000_000)
"""Bounds for reading a result file: results of long runs are large, but never unbounded."""


class ResultKind(StrEnum):
    """What a result document is (the LinkML enum ``ResultKind``)."""

    CONFORMANCE_REPORT = "conformance-report"
    AP1_SCORE_REPORT = "ap1-score-report"
    APX_RESULT = "apx-result"


_SCHEMA_VERSIONS = {
    "apconform-ap1-score-report/1": ResultKind.AP1_SCORE_REPORT,
    "apx-result/0.1": ResultKind.APX_RESULT,
}


def detect_kind(document: Any, *, source: str = "the document") -> ResultKind:
    """The kind of a loaded result document, or APC-RESULT-UNKNOWN naming what was found."""
    if isinstance(document, list):
        first = document[0] if document else None
        if isinstance(first, dict) and first.get("record") == "header":
            return ResultKind.CONFORMANCE_REPORT
        raise ApconformError(
            RESULT_UNKNOWN,
            f"{source} is a JSON array, but not the records of a conformance report "
            "(its first element is not a header record)",
            path="$[0]",
        )
    if isinstance(document, dict):
        version = document.get("schemaVersion")
        if isinstance(version, str) and version in _SCHEMA_VERSIONS:
            return _SCHEMA_VERSIONS[version]
        if document.get("record") == "header":
            raise ApconformError(
                RESULT_UNKNOWN,
                f"{source} holds only a report header; give the whole JSON-lines report",
            )
        raise ApconformError(
            RESULT_UNKNOWN,
            f"{source} has schemaVersion {version!r}; known: "
            + ", ".join(sorted(_SCHEMA_VERSIONS)),
            path="$.schemaVersion",
        )
    raise ApconformError(
        RESULT_UNKNOWN, f"{source} is a JSON {type(document).__name__}, not a result", path="$"
    )


def _is_json_lines(path: Path) -> bool:
    """JSON lines when the file's first line is a whole JSON object and more lines follow."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            first = handle.readline(RESULT_LIMITS.max_bytes + 1).strip()
            rest = handle.read(4096).strip()
    except OSError:
        return False  # the loader below reports the problem with its own code
    return first.startswith(b"{") and first.endswith(b"}") and rest.startswith(b"{")


def read_result(path: Path) -> tuple[ResultKind, Any]:
    """Read a result file (JSON lines or one JSON document) and tell its kind."""
    if _is_json_lines(path):
        document: Any = read_jsonl(path)
    else:
        document = load_path(path, limits=RESULT_LIMITS)
    return detect_kind(document, source=str(path)), document
