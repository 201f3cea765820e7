"""Loading golden vectors: bounded, schema-checked, cross-checked with the clause registry."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apconform.conformance.clauses import ClauseIndex, load_clause_registry
from apconform.conformance.compare import MessageRule, message_rule
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.conformance import Vector
from apconform.resources import data_path

__all__ = ["LoadedVector", "check_vector_document", "load_vector", "load_vectors"]

VECTOR_ID = define_code(
    "APC-VEC-ID",
    "A vector's id differs from its file name, or two vectors share an id",
    "Name the file <id>.json and keep ids unique across the suite.",
    exit_status=1,
)
VECTOR_LOCATION = define_code(
    "APC-VEC-LOCATION",
    "A vector lives outside its protocol's folder",
    "Move the file to vectors/<protocol>/<area>/<id>.json.",
    exit_status=1,
)
VECTOR_EXPECTED = define_code(
    "APC-VEC-EXPECTED",
    "A vector's expectation lacks what its kind needs",
    "exact needs document; refusal needs errorCode; partial needs matchers "
    "(each with one of equals, absent: true or present: true).",
    exit_status=1,
)
VECTOR_CLAUSE_UNKNOWN = define_code(
    "APC-VEC-CLAUSE-UNKNOWN",
    "A vector cites a clause id that is not in the clause registry",
    "Cite an id from spec/clauses.json, or add the clause to spec/ and run apconform-dev gen.",
    exit_status=1,
)
VECTOR_CLAUSE_RETIRED = define_code(
    "APC-VEC-CLAUSE-RETIRED",
    "A vector cites a retired clause",
    "Cite the clause that replaced it, or retire the vector.",
    exit_status=1,
)
VECTOR_OPERATION = define_code(
    "APC-VEC-OPERATION",
    "A vector's operation belongs to another protocol",
    "Name the operation <protocol>.<name> with the vector's own protocol.",
    exit_status=1,
)


@dataclass(frozen=True)
class LoadedVector:
    """A vector that passed every check, with the file it came from."""

    path: Path
    vector: Vector
    document: dict[str, Any]
    messages: MessageRule = field(default_factory=MessageRule)
    """Which messages the vector fixes: those its clauses quote (KIT-VEC-3)."""

    @property
    def id(self) -> str:
        return str(self.vector.id)


_NEEDS = {"exact": "document", "refusal": "errorCode", "partial": "matchers"}


def _expectation_violations(vector: Vector) -> list[Violation]:
    expected = vector.expected
    present = expected.model_fields_set
    needs = _NEEDS[expected.kind]
    out = []
    if needs not in present:
        out.append(
            Violation(
                VECTOR_EXPECTED.code,
                f"$.expected.{needs}",
                f"an expectation of kind {expected.kind} needs {needs}",
            )
        )
    for other in sorted(set(_NEEDS.values()) - {needs}):
        if other in present:
            out.append(
                Violation(
                    VECTOR_EXPECTED.code,
                    f"$.expected.{other}",
                    f"an expectation of kind {expected.kind} cannot carry {other}",
                )
            )
    for member in ("message", "path"):
        if expected.kind != "refusal" and member in present:
            out.append(
                Violation(
                    VECTOR_EXPECTED.code,
                    f"$.expected.{member}",
                    f"only a refusal can fix a {member}",
                )
            )
    for index, matcher in enumerate(expected.matchers or []):
        kinds = ("equals" in matcher.model_fields_set) + (matcher.absent is True)
        kinds += matcher.present is True
        if kinds != 1:
            out.append(
                Violation(
                    VECTOR_EXPECTED.code,
                    f"$.expected.matchers[{index}]",
                    "a matcher needs exactly one of equals, absent: true or present: true",
                )
            )
    return out


def check_vector_document(
    document: Any, file_name: str, clauses: ClauseIndex, *, what: str = "vector"
) -> Vector:
    """Check one vector document completely (schema, id, expectation, operation, clauses)."""
    vector = validate_document(Vector, document, what=what)
    violations: list[Violation] = []
    if f"{vector.id}.json" != file_name:
        violations.append(
            Violation(
                VECTOR_ID.code, "$.id", f"id {vector.id!r} differs from the file name {file_name!r}"
            )
        )
    if vector.operation.split(".", 1)[0] != vector.protocol:
        violations.append(
            Violation(
                VECTOR_OPERATION.code,
                "$.operation",
                f"operation {vector.operation} is not a {vector.protocol} operation",
            )
        )
    violations.extend(_expectation_violations(vector))
    violations.extend(_clause_violations(vector, clauses))
    if violations:
        raise DocumentRefused(violations, what=what)
    return vector


def _clause_violations(vector: Vector, clauses: ClauseIndex) -> list[Violation]:
    out = []
    for index, clause_id in enumerate(vector.clauses):
        clause = clauses.get(clause_id)
        if clause is None:
            out.append(
                Violation(
                    VECTOR_CLAUSE_UNKNOWN.code,
                    f"$.clauses[{index}]",
                    f"clause {clause_id} is not in the clause registry",
                )
            )
        elif clause.status == "retired":
            out.append(
                Violation(
                    VECTOR_CLAUSE_RETIRED.code,
                    f"$.clauses[{index}]",
                    f"clause {clause_id} is retired",
                )
            )
    return out


def load_vector(
    path: Path, clauses: ClauseIndex, *, vectors_root: Path | None = None
) -> LoadedVector:
    """Load one vector file and check it completely; raise DocumentRefused listing every fault."""
    document = load_path(path)
    what = f"vector {path}"
    violations: list[Violation] = []
    try:
        vector = check_vector_document(document, path.name, clauses, what=what)
    except DocumentRefused as refused:
        if not refused.violations or refused.violations[0].code == "APC-SCHEMA-VIOLATION":
            raise
        violations.extend(refused.violations)
        vector = Vector.model_validate(document)
    if vectors_root is not None:
        parts = path.resolve().relative_to(vectors_root.resolve()).parts
        if len(parts) < 3 or parts[0] != vector.protocol:
            location = Violation(
                VECTOR_LOCATION.code,
                "$.protocol",
                f"a {vector.protocol} vector must live in vectors/{vector.protocol}/<area>/, "
                f"not {'/'.join(parts[:-1]) or '.'}",
            )
            violations.insert(
                1 if violations and violations[0].code == VECTOR_ID.code else 0, location
            )
    if violations:
        raise DocumentRefused(violations, what=what)
    return LoadedVector(path, vector, document, message_rule(vector, clauses))


def load_vectors(
    root: Path | None = None,
    *,
    clauses: ClauseIndex | None = None,
    protocols: Iterable[str] | None = None,
) -> list[LoadedVector]:
    """Every vector under root (default: the kit's vectors/), sorted by id; ids must be unique."""
    base = root if root is not None else data_path("vectors")
    index = clauses if clauses is not None else load_clause_registry()
    wanted = set(protocols) if protocols is not None else None
    loaded: dict[str, LoadedVector] = {}
    for path in sorted(base.rglob("*.json")):
        rel = path.relative_to(base).parts
        if len(rel) < 2 or (wanted is not None and rel[0] not in wanted):
            continue
        item = load_vector(path, index, vectors_root=base)
        if item.id in loaded:
            raise DocumentRefused(
                [
                    Violation(
                        VECTOR_ID.code,
                        "$.id",
                        f"id {item.id} is used by {loaded[item.id].path} and {path}",
                    )
                ],
                what="vector suite",
            )
        loaded[item.id] = item
    return [loaded[key] for key in sorted(loaded)]
