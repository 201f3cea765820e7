"""The vector linter: every rule a vector suite must meet, every fault listed at once.

Checks: each file loads (bounded) and validates against the vector JSON
Schema and the model; its id equals its file name and is unique; it lives in
its protocol's folder; every cited clause exists and is active; its operation
has a reference implementation; its input meets the operation's input
schema and an exact expectation its answer schema; the documents inside its
input (the operation's ``inputs=`` map) validate against their schemas, or
else the vector is negative; no trivial answer (``{}`` or ``null``) passes it;
and every active MUST clause has a positive and a negative vector or an
``[untestable: reason]`` mark.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.conformance.clauses import ClauseIndex
from apconform.conformance.compare import match_answer, resolve_pointer
from apconform.conformance.contracts import CATALOGUE_PAGE, answer_problems, input_problems
from apconform.conformance.coverage import clause_coverage
from apconform.conformance.operations import input_documents, operation_names
from apconform.conformance.runner import is_negative
from apconform.conformance.vectors import LoadedVector, load_vector
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.files import load_path
from apconform.core.schemas import document_names, json_schema_validator

__all__ = ["Finding", "lint_vectors"]

LINT_OPERATION = define_code(
    "APC-LINT-OPERATION",
    "A vector's operation has no reference implementation",
    "Register the operation with @operation in the protocol's operations module.",
    exit_status=1,
)
LINT_INPUT = define_code(
    "APC-LINT-INPUT",
    "A positive vector carries an input document that breaks its schema",
    "Fix the document, or make the vector negative (expect a refusal or tag it negative).",
    exit_status=1,
)
LINT_CONTRACT = define_code(
    "APC-LINT-CONTRACT",
    "A vector's input, or its exact expectation, breaks its operation's schema",
    "Compare the value with the operation's entry in the operation catalogue "
    f"({CATALOGUE_PAGE}); fix the vector, or the operation's LinkML classes if they are wrong.",
    exit_status=1,
)
LINT_COVERAGE = define_code(
    "APC-LINT-COVERAGE",
    "A MUST clause lacks a positive or a negative vector",
    "Add the missing vector, or mark the clause [untestable: reason] in its specification text.",
    exit_status=1,
)
LINT_SCHEMA = define_code(
    "APC-LINT-SCHEMA",
    "A vector breaks the vector JSON Schema",
    "Compare the vector with schemas/jsonschema/vector.schema.json.",
    exit_status=1,
)
LINT_WEAK = define_code(
    "APC-LINT-WEAK",
    "A trivial answer ({} or null) passes a vector",
    "Make the expectation demand something a trivial answer lacks, for example with a "
    "matcher that says present: true, so an implementation that answers nothing fails.",
    exit_status=1,
)
_ABSENT = resolve_pointer({}, "/absent")
_TRIVIAL_ANSWERS: tuple[Any, ...] = ({}, None)


def _weak_findings(rel: str, vector: LoadedVector) -> list[Finding]:
    expected, rules = vector.vector.expected, vector.vector.comparison
    if expected.kind == "refusal":
        return []
    return [
        Finding(
            rel,
            LINT_WEAK.code,
            "$.expected",
            f"an answer of {'{}' if answer == {} else 'null'} passes this vector, so it "
            "proves nothing about an implementation that answers nothing",
        )
        for answer in _TRIVIAL_ANSWERS
        if not match_answer(expected, answer, rules)
    ]


@dataclass(frozen=True)
class Finding:
    """One lint fault: where (file, path inside it) and what."""

    file: str
    code: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.code} at {self.path}: {self.message}"


def _schema_findings(rel: str, document: Any) -> list[Finding]:
    validator = json_schema_validator("vector")
    return [
        Finding(rel, LINT_SCHEMA.code, "$/" + "/".join(map(str, e.absolute_path)), e.message)
        for e in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    ]


def _input_findings(rel: str, vector: LoadedVector) -> list[Finding]:
    findings = []
    known = set(document_names())
    for pointer, document in sorted(input_documents(vector.vector.operation).items()):
        found = resolve_pointer(vector.vector.input, pointer)
        if found is _ABSENT or document not in known:
            continue
        errors = list(json_schema_validator(document).iter_errors(found))
        if errors and not is_negative(vector):
            first = min(errors, key=lambda e: list(e.absolute_path))
            where = "/".join(map(str, first.absolute_path))
            findings.append(
                Finding(
                    rel,
                    LINT_INPUT.code,
                    f"$.input{pointer}",
                    f"the {document} document breaks its schema at /{where}: {first.message} "
                    f"({len(errors)} violation(s)) in a positive vector",
                )
            )
    return findings


def _contract_findings(rel: str, vector: LoadedVector) -> list[Finding]:
    """The input must meet the operation's input schema; an exact answer its answer schema."""
    item = vector.vector
    found = [(f"$.input{p[1:]}", "input", p) for p in input_problems(item.operation, item.input)]
    if item.expected.kind == "exact":
        found += [
            (f"$.expected.document{p[1:]}", "answer", p)
            for p in answer_problems(item.operation, item.expected.document)
        ]
    return [
        Finding(
            rel,
            LINT_CONTRACT.code,
            where.split(":", 1)[0],
            f"breaks the {side} schema of {item.operation}: {problem.split(': ', 1)[-1]}",
        )
        for where, side, problem in found
    ]


def lint_vectors(
    root: Path, clauses: ClauseIndex, *, protocols: list[str] | None = None
) -> tuple[list[LoadedVector], list[Finding]]:
    """Lint every vector file under root; return the vectors that loaded and every finding."""
    findings: list[Finding] = []
    loaded: dict[str, LoadedVector] = {}
    operations = set(operation_names())
    for path in sorted(root.rglob("*.json")):
        parts = path.relative_to(root).parts
        if len(parts) < 2 or (protocols is not None and parts[0] not in protocols):
            continue
        rel = path.relative_to(root).as_posix()
        try:
            document = load_path(path)
        except ApconformError as error:
            findings.append(Finding(rel, error.code, error.path or "$", error.message))
            continue
        findings.extend(_schema_findings(rel, document))
        try:
            vector = load_vector(path, clauses, vectors_root=root)
        except DocumentRefused as refused:
            findings.extend(Finding(rel, v.code, v.path, v.message) for v in refused.violations)
            continue
        if vector.id in loaded:
            other = loaded[vector.id].path.relative_to(root).as_posix()
            findings.append(
                Finding(rel, "APC-VEC-ID", "$.id", f"id {vector.id} is also used by {other}")
            )
            continue
        loaded[vector.id] = vector
        if vector.vector.operation not in operations:
            findings.append(
                Finding(
                    rel,
                    LINT_OPERATION.code,
                    "$.operation",
                    f"operation {vector.vector.operation} has no reference implementation",
                )
            )
        findings.extend(_input_findings(rel, vector))
        findings.extend(_weak_findings(rel, vector))
        if vector.vector.operation in operations:
            findings.extend(_contract_findings(rel, vector))
    vectors = [loaded[key] for key in sorted(loaded)]
    for row in clause_coverage(vectors, clauses, protocols):
        if not row.ok:
            findings.append(
                Finding(
                    "spec/clauses.json",
                    LINT_COVERAGE.code,
                    row.clause,
                    f"{row.level} clause {row.clause} ({row.protocol}): "
                    f"{row.verdict.lower()} vector",
                )
            )
    return vectors, findings
