"""Every vector passes against the reference operations, and the comparison can fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from shipped_vectors import shipped_vectors

from apconform.conformance.compare import json_equal, match_answer, match_refusal
from apconform.conformance.operations import get_operation
from apconform.conformance.vectors import LoadedVector
from apconform.core.errors import ApconformError

ALL_VECTORS = list(shipped_vectors())
KIT_VECTORS = [v for v in ALL_VECTORS if v.vector.protocol == "kit"]


def _run(vector: LoadedVector) -> list[Any]:
    operation = get_operation(vector.vector.operation)
    try:
        answer = operation(vector.vector.input)
    except ApconformError as error:
        return [
            m.to_dict()
            for m in match_refusal(vector.vector.expected, error.code, error.message, error.path)
        ]
    return [
        m.to_dict() for m in match_answer(vector.vector.expected, answer, vector.vector.comparison)
    ]


@pytest.mark.parametrize("vector", ALL_VECTORS, ids=[v.id for v in ALL_VECTORS])
def test_vector_passes(vector: LoadedVector) -> None:
    assert _run(vector) == []


def test_there_are_kit_vectors_for_every_kit_operation() -> None:
    from apconform.conformance.operations import operation_names

    kit_operations = {name for name in operation_names() if name.startswith("kit.")}
    assert {v.vector.operation for v in KIT_VECTORS} == kit_operations
    assert len(KIT_VECTORS) >= 39


def test_a_wrong_answer_is_reported_with_both_values() -> None:
    mismatches = json_equal(
        {"canonical": "[1]", "n": 1, "b": True}, {"canonical": "[1.0]", "n": 1.0, "b": 1}
    )
    assert [m.to_dict() for m in mismatches] == [
        {"path": "/b", "reason": "values differ", "expected": True, "actual": 1},
        {"path": "/canonical", "reason": "strings differ", "expected": "[1]", "actual": "[1.0]"},
    ]


def test_missing_and_unexpected_members_are_reported() -> None:
    mismatches = json_equal({"a": 1}, {"b": 1})
    assert [(m.path, m.reason) for m in mismatches] == [
        ("/a", "missing from the answer"),
        ("/b", "not expected"),
    ]


def test_wrong_refusal_code_is_reported(repo: Path) -> None:
    vector = next(v for v in KIT_VECTORS if v.id == "kit-load-depth-33")
    assert [m.reason for m in match_refusal(vector.vector.expected, "APC-JSON-NODES", None)] == [
        "refused with another error code"
    ]
