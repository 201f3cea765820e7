"""The JSON-lines report: writing it, reading it back, and checking it record by record.

A report is a header, one record per case and a footer, each a JSON object on
its own line and each valid against its own schema (``report-header``,
``report-case``, ``report-footer``). The footer's ``casesSha256`` binds the
case records: editing, dropping or reordering one is detected even without a
signature, and the counts must agree with the cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import read_file
from apconform.core.jsonload import MESSAGE_LIMITS, Limits, loads
from apconform.core.schemas import json_schema_validator
from apconform.results.outcomes import count_outcomes

__all__ = [
    "REPORT_INVALID",
    "consistency_problems",
    "read_jsonl",
    "record_problems",
    "render_jsonl",
]

REPORT_INVALID = define_code(
    "APC-REPORT-INVALID",
    "The report is not a valid apconform JSON-lines report",
    "Use the JSON-lines report (--format json) exactly as apconform check wrote it.",
    exit_status=1,
)
_MAX_REPORT_BYTES = 256 * 1_048_576
_LINE_LIMITS = Limits(
    max_bytes=4 * MESSAGE_LIMITS.max_bytes,
    max_depth=MESSAGE_LIMITS.max_depth + 2,
    max_nodes=4 * MESSAGE_LIMITS.max_nodes,
)
_SCHEMAS = {"header": "report-header", "case": "report-case", "footer": "report-footer"}


def render_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSON-lines report, each line through the bounded loader."""
    lines = read_file(
        path, max_bytes=_MAX_REPORT_BYTES, what="a JSON-lines conformance report"
    ).splitlines()
    records = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            value = loads(line, limits=_LINE_LIMITS, source=f"{path}:{number}")
            if not isinstance(value, dict):
                raise ApconformError(REPORT_INVALID, f"{path}:{number} is not a JSON object")
            records.append(value)
    return records


def record_problems(records: list[dict[str, Any]]) -> list[str]:
    """Every way the records depart from a well-formed report (empty when there is none)."""
    if not records:
        return ["the report holds no record"]
    problems = []
    kinds = [str(record.get("record")) for record in records]
    if kinds[0] != "header" or kinds[-1] != "footer" or len(records) < 2:
        problems.append("a report starts with a header record and ends with a footer record")
    if any(kind != "case" for kind in kinds[1:-1]):
        problems.append("between header and footer a report holds only case records")
    for number, record in enumerate(records, start=1):
        schema = _SCHEMAS.get(str(record.get("record")))
        if schema is None:
            problems.append(f"record {number}: unknown record kind {record.get('record')!r}")
            continue
        validator = json_schema_validator(schema)
        for error in sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path)):
            where = "/" + "/".join(str(p) for p in error.absolute_path)
            problems.append(f"record {number} ({schema}) at {where}: {error.message}")
    return problems or consistency_problems(records)


def consistency_problems(
    records: list[dict[str, Any]], *, cases_sha256: str | None = None
) -> list[str]:
    """How schema-valid records disagree with their footer (digest, counts, numbering).

    ``cases_sha256`` is the digest of the case records when the caller has it already.
    """
    problems = []
    cases, footer = records[1:-1], records[-1]
    digest = cases_sha256 if cases_sha256 is not None else sha256_hex(cases)
    if footer["casesSha256"] != digest:
        problems.append("the case records do not match the footer's casesSha256")
    if footer["counts"] != count_outcomes(cases):
        problems.append("the footer's counts do not match the case records")
    if [case["seq"] for case in cases] != list(range(1, len(cases) + 1)):
        problems.append("the case records are not numbered 1, 2, 3, ... in order")
    return problems
