"""The reference importer's TypedDicts name exactly the schema's keys, and verdicts read back are
checked against the schema before the comparison uses them.

Each TypedDict of ``apconform.ap1.importers.reference`` that mirrors a class of the LinkML
schema must have that class's JSON names as its keys, and the same ones required, so that the
hand-written type cannot drift from the generated model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from apconform.ap1.importers.reference import (
    comparison_document,
    import_record,
    input_documents,
    verdicts,
)
from apconform.cli import main
from apconform.models import ap1

from .published_runs import write_published_run

MIRRORS: list[tuple[Any, type[BaseModel]]] = [
    (verdicts.ReferenceVerdict, ap1.Ap1ReferenceVerdict),
    (verdicts.ReferenceCall, ap1.ReferenceCall),
    (verdicts.ReferenceOperand, ap1.ReferenceOperand),
    (verdicts.ReferenceOperation, ap1.ReferenceOperation),
    (comparison_document.ReferenceComparison, ap1.Ap1ReferenceComparison),
    (comparison_document.ComparisonDimension, ap1.ComparisonDimension),
    (comparison_document.ClassificationCount, ap1.ClassificationCount),
    (comparison_document.ComparisonDisagreement, ap1.ComparisonDisagreement),
    (import_record.ImportRecord, ap1.Ap1ImportRecord),
    (import_record.ImportSource, ap1.ImportSource),
    (import_record.ImporterIdentity, ap1.ImporterIdentity),
    (import_record.PublishedHashes, ap1.PublishedHashes),
    (import_record.InputFileCheck, ap1.InputFileCheck),
    (import_record.GroundTruthCheck, ap1.GroundTruthCheck),
    (import_record.ImportedClaims, ap1.ImportedClaims),
    (import_record.DroppedClaim, ap1.DroppedClaim),
    (import_record.ImportCounts, ap1.ImportCounts),
    (input_documents.FixtureDocument, ap1.Ap1Fixture),
    (input_documents.FixtureEntityDocument, ap1.FixtureEntity),
    (input_documents.EntityFieldDocument, ap1.EntityField),
    (input_documents.QuestionSetDocument, ap1.Ap1QuestionSet),
    (input_documents.QuestionItemDocument, ap1.QuestionItem),
    (input_documents.SettingDocument, ap1.DecimalSetting),
    (input_documents.SettingDocument, ap1.IntegerSetting),
    (input_documents.SettingDocument, ap1.TextSetting),
    (input_documents.SettingDocument, ap1.EffortSetting),
    (input_documents.SettingDocument, ap1.ToolChoiceSetting),
]


def _aliases(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """The model's JSON names, and those it requires."""
    names = {field.alias or name for name, field in model.model_fields.items()}
    required = {
        field.alias or name for name, field in model.model_fields.items() if field.is_required()
    }
    return names, required


def _required(typed: Any) -> set[str]:
    """The keys a TypedDict requires, read from its annotations (with postponed annotations,
    Python 3.11's ``__required_keys__`` does not see ``NotRequired``)."""
    out = set()
    for key, annotation in typed.__annotations__.items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if "NotRequired[" not in text and typed.__total__:
            out.add(key)
    return out


@pytest.mark.parametrize(("typed", "model"), MIRRORS, ids=[typed.__name__ for typed, _ in MIRRORS])
def test_each_typed_dict_has_the_generated_models_keys(typed: Any, model: type[BaseModel]) -> None:
    names, required = _aliases(model)
    assert set(typed.__annotations__) == names
    assert _required(typed) == required


def test_a_classification_is_the_tail_of_a_disagreement() -> None:
    disagreement = list(comparison_document.ComparisonDisagreement.__annotations__)
    classification = list(comparison_document.Classification.__annotations__)
    assert disagreement[-len(classification) :] == classification


def _imported_run(tmp_path: Path) -> Path:
    run = write_published_run(tmp_path, "run_e_mini")
    run_dir = tmp_path / "run"
    assert main(run.import_args(run_dir)) == 0
    return run_dir


def test_an_edited_verdict_line_is_refused_naming_the_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _imported_run(tmp_path)
    path = run_dir / "import" / "reference-verdicts.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["callsRecorded"] = "yes"
    lines[0] = json.dumps(first, sort_keys=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["ap1", "compare-reference", str(run_dir)]) == 1
    err = capsys.readouterr().err
    assert "APC-DOC-REFUSED" in err
    assert "$.callsRecorded" in err
    assert "reference-verdicts.jsonl line 1" in err
    assert "Traceback" not in err
    assert not (run_dir / "comparison").exists()


def test_the_unedited_verdicts_are_compared(tmp_path: Path) -> None:
    run_dir = _imported_run(tmp_path)
    assert main(["ap1", "compare-reference", str(run_dir)]) == 0
    document = json.loads(
        (run_dir / "comparison" / "reference-comparison.json").read_text(encoding="utf-8")
    )
    assert document["executions"] == "5"
    assert [c["count"] for c in document["classifications"]] == ["0", "0", "0"]
