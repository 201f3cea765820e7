"""The per-execution score document: what the scorer writes meets ap1-execution-score.

Two sources of real output are checked against both the generated JSON Schema
and the generated Pydantic models: every line of the demo's scored run (all
three statuses the demo produces), and the answers of the scoring operations
on their vectors, which reach the members the demo never writes (attestations,
percent and currency tokens, every operand finding, earlier-return
transcriptions, precision arguments, parameter mismatches).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from apconform.conformance.operations import get_operation
from apconform.conformance.vectors import load_vectors
from apconform.core.errors import ApconformError
from apconform.core.schemas import json_schema_validator
from apconform.core.validation import validate_document
from apconform.models import DOCUMENTS
from apconform.models import ap1 as models

DOCUMENT = "ap1-execution-score"


def _lines(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "report" / "executions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_the_document_is_registered_with_its_model() -> None:
    assert DOCUMENTS[DOCUMENT] == ("ap1", "Ap1ExecutionScore")


def test_every_line_of_the_demo_run_meets_the_schema_and_the_model(
    demo: tuple[Path, str],
) -> None:
    run_dir, _ = demo
    lines = _lines(run_dir)
    validator = json_schema_validator(DOCUMENT)
    for line in lines:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(line)]
        assert errors == [], line["cellKey"]
        validate_document(models.Ap1ExecutionScore, line, what=line["cellKey"])
    statuses = Counter(line["status"] for line in lines)
    assert len(lines) == 204
    assert statuses == {"EXECUTED": 189, "UNOBSERVABLE": 11, "VOID": 4}
    # each nullable member shows up both null and not null in the run
    for member in ("figure", "accuracy", "transcription", "coverage", "statusReason"):
        assert {line[member] is None for line in lines} == {True, False}, member


def _parts(operation: str, answer: Any) -> list[tuple[type[BaseModel], Any]]:
    """The pieces of a scoring operation's answer that are members of the score document."""
    if operation == "ap1.score_execution":
        return [(models.Ap1ExecutionScore, answer)]
    if operation == "ap1.score_calls":
        return [
            (models.ExecutionProvenance, answer["provenance"]),
            (models.ExecutionOperation, answer["operation"]),
        ]
    if operation == "ap1.identify_figure":
        figure = {k: v for k, v in answer.items() if k != "accuracy"}
        return [(models.ExecutionFigure, figure), (models.ExecutionAccuracy, answer["accuracy"])]
    if operation == "ap1.parse_figures":
        return [(models.FigureToken, token) for token in answer.get("tokens", [])]
    if operation == "ap1.check_transcription":
        return [(models.ExecutionTranscription, answer["transcription"])]
    single = {
        "ap1.resolve_operand": models.OperandTrace,
        "ap1.release_coverage": models.ExecutionCoverage,
        "ap1.classify_invocation": models.ExecutionInvocation,
        "ap1.parameter_echo": models.ExecutionEcho,
        "ap1.compose_answer": models.ExecutionAnswer,
    }
    return [(single[operation], answer)] if operation in single else []


def _values(value: Any, key: str) -> set[Any]:
    """Every value of ``key`` anywhere in a JSON value."""
    found: set[Any] = set()
    if isinstance(value, dict):
        for name, child in value.items():
            if name == key and not isinstance(child, (dict, list)):
                found.add(child)
            found |= _values(child, key)
    elif isinstance(value, list):
        for child in value:
            found |= _values(child, key)
    return found


def _answers() -> list[tuple[str, str, Any]]:
    out = []
    for loaded in load_vectors():
        operation = loaded.vector.operation
        if not operation.startswith("ap1."):
            continue
        try:
            answer = get_operation(operation)(loaded.vector.input)
        except ApconformError:
            continue
        out.append((loaded.id, operation, answer))
    return out


def _keys(value: Any) -> set[str]:
    """Every member name anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(child) for child in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(child) for child in value))
    return set()


def test_the_scoring_operations_answers_meet_the_member_models() -> None:
    checked: Counter[str] = Counter()
    pieces: list[Any] = []
    for vector_id, operation, answer in _answers():
        for model, piece in _parts(operation, answer):
            validate_document(model, piece, what=f"{vector_id} ({model.__name__})")
            checked[model.__name__] += 1
            pieces.append(piece)
    assert set(checked) == {
        "Ap1ExecutionScore",
        "ExecutionAccuracy",
        "ExecutionAnswer",
        "ExecutionCoverage",
        "ExecutionEcho",
        "ExecutionFigure",
        "ExecutionInvocation",
        "ExecutionOperation",
        "ExecutionProvenance",
        "ExecutionTranscription",
        "FigureToken",
        "OperandTrace",
    }
    assert sum(checked.values()) >= 150
    # the members and values the demo never writes are reached here, so their shapes are checked
    assert _values(pieces, "type") == {t.value for t in models.OperandFindingType}
    assert _values(pieces, "outcome") >= {o.value for o in models.FigureOutcome}
    assert _values(pieces, "status") >= {s.value for s in models.EchoStatus}
    assert _values(pieces, "kind") >= {k.value for k in models.AlterationKind}
    assert _values(pieces, "percent") == {True}
    assert _values(pieces, "signed") == {True, False}
    assert _keys(pieces) >= {
        "attestation",
        "currency",
        "precisionArguments",
        "matchedCall",
        "ungoverned",
        "originKinds",
        "echoed",
        "reason",
    }
