"""The hand-written record types of the transcript, the seal, the inputs and the mock endpoint
cannot drift from the schema: each TypedDict that mirrors a class of the LinkML schema names
exactly that class's JSON members, the optional ones as NotRequired (issue 28)."""

from __future__ import annotations

from pathlib import Path
from typing import NotRequired, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from apconform.ap1.calculator.evaluator import CALCULATOR_LIMITS, CalculatorLimits
from apconform.ap1.inputs.files import example_paths, load_inputs
from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.seal import records as seal_records
from apconform.ap1.seal.build import build_seal
from apconform.ap1.transcript import execution_record
from apconform.ap1.transcript import records as transcript_records
from apconform.ap1.transcript.chain import TranscriptWriter
from apconform.ap1.transcript.verify import ProblemJson, verify_transcript
from apconform.models import ap1 as models
from apconform.models import ap1_operations

MIRRORS: list[tuple[type, type[BaseModel]]] = [
    (transcript_records.TranscriptRecord, models.Ap1TranscriptRecord),
    (transcript_records.WrittenRecord, models.Ap1TranscriptRecord),
    (execution_record.ExecutionRecord, models.ExecutionRecord),
    (transcript_records.TranscriptHead, models.Ap1TranscriptHead),
    (transcript_records.RunOriginJson, models.RunOrigin),
    (seal_records.SealRecord, models.Ap1Seal),
    (seal_records.InstrumentJson, models.InstrumentIdentity),
    (seal_records.SealedTextJson, models.SealedText),
    (seal_records.InputDigestJson, models.InputDigest),
    (seal_records.DeclaredRulesJson, models.DeclaredRules),
    (seal_records.QuantisationJson, models.QuantisationPolicy),
    (seal_records.ArithmeticJson, models.ArithmeticPolicy),
    (CalculatorLimits, models.CalculatorLimits),
    (seal_records.ItemConstantsJson, models.ItemConstants),
    (seal_records.DeclaredConstantJson, models.DeclaredConstant),
    (seal_records.RunPlanJson, models.RunPlan),
    (seal_records.EvidenceJson, models.EvidenceDeclaration),
    (ProblemJson, ap1_operations.TranscriptFault),
]


def json_names(model: type[BaseModel]) -> set[str]:
    """The model's members as they are spelled in JSON (aliases where there are any)."""
    return {field.alias or name for name, field in model.model_fields.items()}


def required_json_names(model: type[BaseModel]) -> set[str]:
    return {
        field.alias or name for name, field in model.model_fields.items() if field.is_required()
    }


def keys(typed: type) -> set[str]:
    return set(get_type_hints(typed, include_extras=True))


def required_keys(typed: type) -> set[str]:
    """The keys not marked NotRequired (read from the hints: the module uses string annotations)."""
    hints = get_type_hints(typed, include_extras=True)
    return {key for key, hint in hints.items() if get_origin(hint) is not NotRequired}


@pytest.mark.parametrize(
    ("typed", "model"), MIRRORS, ids=[f"{t.__name__}-{m.__name__}" for t, m in MIRRORS]
)
def test_the_typed_dict_names_the_schema_class_members(typed: type, model: type[BaseModel]) -> None:
    assert keys(typed) == json_names(model)
    assert required_keys(typed) == required_json_names(model)


def test_an_unhashed_record_is_a_record_without_its_hash() -> None:
    assert keys(transcript_records.UnhashedRecord) == json_names(models.Ap1TranscriptRecord) - {
        "sha256"
    }


def test_the_sealed_inputs_are_named_as_the_schema_names_them() -> None:
    # the seal's "inputs" member is built over SEALED_NAMES (names spelled in one place only)
    assert set(SEALED_NAMES) == json_names(models.SealedInputs)


def test_a_key_more_or_less_on_either_side_is_caught() -> None:
    class Fewer(transcript_records.RunOriginJson, total=False):
        extra: str

    assert keys(Fewer) != json_names(models.RunOrigin)
    assert keys(transcript_records.TranscriptHead) != json_names(models.Ap1TranscriptRecord)


def test_the_calculator_limits_validate_as_the_seal_declares_them() -> None:
    models.CalculatorLimits.model_validate(CALCULATOR_LIMITS)
    assert list(CALCULATOR_LIMITS) == [
        "maxExpressionChars",
        "maxNestingDepth",
        "maxExponent",
        "maxAdjustedExponent",
        "functions",
    ]


def test_a_seal_is_built_in_the_order_its_type_names_its_members() -> None:
    record = build_seal(load_inputs(example_paths()), sealed_at="2026-01-01T00:00:00Z")
    models.Ap1Seal.model_validate(record)
    assert list(record) == [k for k in get_type_hints(seal_records.SealRecord) if k != "signature"]


def test_a_written_record_reads_back_as_the_record_written(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    stopped: dict[str, object] = {"reason": "stopped", "cellsRecorded": "0", "cellsRemaining": "1"}
    with TranscriptWriter(path, "ab" * 32) as writer:
        written = writer.append("run-stopped", stopped)
    header = list(get_type_hints(transcript_records.UnhashedRecord))[:6]
    assert header[0] == "schemaVersion" and header[-1] == "prevSha256"
    assert list(written) == [*header, "runStopped", "sha256"]
    report = verify_transcript(path)
    assert report.problems == []
    assert report.records == [written]
