"""The hand-written record types of the transcript, the seal, the inputs and the mock endpoint
cannot drift from the schema: each TypedDict that mirrors a class of the LinkML schema names
exactly that class's JSON members, the optional ones as NotRequired (issue 28)."""

from __future__ import annotations

from typing import NotRequired, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from apconform.ap1.calculator.evaluator import CALCULATOR_LIMITS, CalculatorLimits
from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.seal import records as seal_records
from apconform.ap1.transcript import records as transcript_records
from apconform.models import ap1 as models

MIRRORS: list[tuple[type, type[BaseModel]]] = [
    (transcript_records.TranscriptRecord, models.Ap1TranscriptRecord),
    (transcript_records.WrittenRecord, models.Ap1TranscriptRecord),
    (transcript_records.ExecutionJson, models.ExecutionRecord),
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
