"""Every operation's input and answer schemas, proven against the whole vector corpus.

Each vector's input must meet its operation's input schema (both the
published JSON Schema and the generated Pydantic model), each exact
expectation and each answer the reference gives must meet the answer schema,
and each refusal a vector expects must be one the operation lists.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from shipped_vectors import shipped_vectors

from apconform.conformance.contracts import (
    answer_problems,
    check_input,
    contract_names,
    input_problems,
    operation_contract,
)
from apconform.conformance.operations import get_operation, operation_names
from apconform.conformance.vectors import LoadedVector
from apconform.core.errors import ApconformError, DocumentRefused, registered_codes

VECTORS = list(shipped_vectors())
IDS = [item.id for item in VECTORS]


def _model_problems(model: Any, value: Any) -> list[str]:
    try:
        model.model_validate(value)
    except Exception as exc:
        return [str(exc)]
    return []


def test_every_operation_has_a_contract_and_every_contract_an_operation() -> None:
    assert contract_names() == operation_names()
    assert len(contract_names()) == 64


def test_every_listed_refusal_is_a_registered_code() -> None:
    """Each listed code is in the generated error code table (every code the kit can raise)."""
    table = (Path(__file__).resolve().parents[2] / "docs" / "kit" / "error-codes.md").read_text(
        encoding="utf-8"
    )
    known = set(re.findall(r"^\| `([A-Z0-9-]+)` \|", table, re.MULTILINE))
    assert {code.code for code in registered_codes()} <= known
    for name in contract_names():
        contract = operation_contract(name)
        assert contract is not None
        assert set(contract.refusals) <= known, name
        assert "APC-OP-INPUT" in contract.refusals, name
        assert len(set(contract.refusals)) == len(contract.refusals), name


@pytest.mark.parametrize("item", VECTORS, ids=IDS)
def test_vector_input_meets_the_input_schema(item: LoadedVector) -> None:
    vector = item.vector
    contract = operation_contract(vector.operation)
    assert contract is not None
    assert input_problems(vector.operation, vector.input) == []
    assert _model_problems(contract.input_model, vector.input) == []


@pytest.mark.parametrize("item", VECTORS, ids=IDS)
def test_vector_expectation_and_reference_answer_meet_the_answer_schema(
    item: LoadedVector,
) -> None:
    vector = item.vector
    contract = operation_contract(vector.operation)
    assert contract is not None
    expected = vector.expected
    if expected.kind == "refusal":
        assert expected.errorCode in contract.refusals
        return
    if expected.kind == "exact":
        assert answer_problems(vector.operation, expected.document) == []
    answer = get_operation(vector.operation)(copy.deepcopy(vector.input))
    assert answer_problems(vector.operation, answer) == []
    assert _model_problems(contract.answer_model, answer) == []


def test_an_input_that_breaks_its_schema_is_refused_at_its_first_bad_member() -> None:
    with pytest.raises(DocumentRefused) as refused:
        get_operation("apx.draws")({"seed": 1, "count": "2", "pairs": 1, "extra": True})
    error = refused.value
    assert error.code == "APC-OP-INPUT"
    assert error.http_status == 422
    assert error.path == "$.count"
    assert [(v.path, v.code) for v in error.violations] == [
        ("$.count", "APC-SCHEMA-VIOLATION"),
        ("$.extra", "APC-SCHEMA-VIOLATION"),
    ]
    assert error.message.startswith("the input of apx.draws refused: ")
    assert "operation catalogue" in error.hint


def test_the_check_runs_before_the_operation() -> None:
    with pytest.raises(ApconformError) as refused:
        check_input("kit.parse", {"text": "[]", "padToBytes": -1})
    assert refused.value.path == "$.padToBytes"
