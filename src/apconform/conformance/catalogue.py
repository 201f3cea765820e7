"""The operation catalogue and the vector browser: what an implementer writes an adapter from.

:func:`operation_entries` gathers, per operation, its contract (summary,
input and answer classes, refusal codes), the clauses its vectors serve and a
worked example taken from a real vector; the documentation's catalogue pages
are generated from it. :func:`select_vectors` and :func:`vector_detail` are
what ``apconform vectors list`` and ``apconform vectors show`` print.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from apconform.conformance.clauses import ClauseIndex
from apconform.conformance.contracts import operation_contract
from apconform.conformance.operations import operation_names
from apconform.conformance.vectors import LoadedVector
from apconform.core.canonical import canonical_text

__all__ = [
    "OperationEntry",
    "operation_entries",
    "render_vector_detail",
    "render_vector_list",
    "select_vectors",
    "vector_detail",
    "vector_summary",
]


def vector_summary(item: LoadedVector) -> dict[str, Any]:
    """The listing entry of one vector (no input, no expectation)."""
    vector = item.vector
    summary: dict[str, Any] = {
        "id": vector.id,
        "protocol": vector.protocol,
        "protocolVersion": vector.protocolVersion,
        "operation": vector.operation,
        "clauses": list(vector.clauses),
        "description": vector.description,
        "expectedKind": vector.expected.kind,
    }
    if vector.tags is not None:
        summary["tags"] = list(vector.tags)
    return summary


def select_vectors(
    vectors: Iterable[LoadedVector],
    *,
    operation: str | None = None,
    clause: str | None = None,
    protocol: str | None = None,
) -> list[LoadedVector]:
    """The vectors matching every given filter, in id order."""
    return sorted(
        (
            item
            for item in vectors
            if (operation is None or item.vector.operation == operation)
            and (clause is None or clause in item.vector.clauses)
            and (protocol is None or item.vector.protocol == protocol)
        ),
        key=lambda item: item.id,
    )


def vector_detail(item: LoadedVector, clauses: ClauseIndex) -> dict[str, Any]:
    """One vector as its file holds it, with the quote of every clause it cites."""
    quoted = []
    for clause_id in item.vector.clauses:
        clause = clauses.get(clause_id)
        entry: dict[str, Any] = {"id": clause_id}
        if clause is not None:
            entry.update(level=clause.level, status=clause.status, quote=clause.quote)
        quoted.append(entry)
    return {"file": item.path.name, "vector": item.document, "clauses": quoted}


def render_vector_list(items: list[LoadedVector]) -> str:
    """One line per vector: id, operation, expected kind, clauses and what it checks."""
    if not items:
        return "no vector matches\n"
    width = max(len(item.id) for item in items)
    op_width = max(len(item.vector.operation) for item in items)
    lines = [
        f"{item.id:<{width}}  {item.vector.operation:<{op_width}}  "
        f"{item.vector.expected.kind:<7}  {','.join(item.vector.clauses)}  "
        f"{item.vector.description}"
        for item in items
    ]
    lines.append(f"{len(items)} vector(s)")
    return "\n".join(lines) + "\n"


def render_vector_detail(detail: dict[str, Any]) -> str:
    """The vector as indented JSON, then each clause it cites with its quoted text."""
    import json

    vector = detail["vector"]
    lines = [
        f"{vector['id']} ({vector['operation']}, expects {vector['expected']['kind']})",
        f"  {vector['description']}",
        "",
        "Clauses:",
    ]
    for clause in detail["clauses"]:
        if "quote" in clause:
            lines.append(f"  {clause['id']} ({clause['level']}): {clause['quote']}")
        else:
            lines.append(f"  {clause['id']}: not in the clause registry")
    lines += ["", json.dumps(vector, indent=2, ensure_ascii=False)]
    return "\n".join(lines) + "\n"


@dataclass
class OperationEntry:
    """Everything the catalogue says about one operation."""

    name: str
    summary: str
    input_class: str
    answer_class: str
    refusals: tuple[str, ...]
    clauses: list[str] = field(default_factory=list)
    vectors: int = 0
    refusal_vectors: int = 0
    refused_codes: list[str] = field(default_factory=list)
    example: LoadedVector | None = None
    refusal_example: LoadedVector | None = None


def _size(item: LoadedVector) -> tuple[int, str]:
    return len(canonical_text(item.vector.input)), item.id


def operation_entries(vectors: Iterable[LoadedVector]) -> list[OperationEntry]:
    """One entry per registered operation, with its vectors' clauses and worked examples.

    The answer example is the vector with the smallest input among those
    expecting an exact answer (else a partial one); the refusal example is the
    smallest refusal vector.
    """
    by_operation: dict[str, list[LoadedVector]] = {}
    for item in vectors:
        by_operation.setdefault(item.vector.operation, []).append(item)
    entries = []
    for name in operation_names():
        contract = operation_contract(name)
        if contract is None:
            raise ValueError(f"operation {name} has no contract in the schemas")
        items = by_operation.get(name, [])
        refusals = [item for item in items if item.vector.expected.kind == "refusal"]
        exact = [item for item in items if item.vector.expected.kind == "exact"]
        partial = [item for item in items if item.vector.expected.kind == "partial"]
        answers = exact or partial
        entries.append(
            OperationEntry(
                name=name,
                summary=contract.summary,
                input_class=contract.input_model.__name__,
                answer_class=contract.answer_model.__name__,
                refusals=contract.refusals,
                clauses=sorted({c for item in items for c in item.vector.clauses}),
                vectors=len(items),
                refusal_vectors=len(refusals),
                refused_codes=sorted({str(item.vector.expected.errorCode) for item in refusals}),
                example=min(answers, key=_size) if answers else None,
                refusal_example=min(refusals, key=_size) if refusals else None,
            )
        )
    return entries
