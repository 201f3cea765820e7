"""The scorer's hand-written report types against the generated models of the schema (issue 28).

Every TypedDict that mirrors a class of the ``ap1-score-report`` or
``ap1-adjudication`` schema must name exactly that class's JSON members, and
make exactly its required members required: adding or removing a member on
either side fails here, so the types cannot drift from the schema.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from apconform.ap1.scoring import rates, rows
from apconform.ap1.scoring.adjudication import agreement, merged_document
from apconform.ap1.scoring.report import score_report
from apconform.models import ap1 as models

# hand-written type -> the generated model it mirrors
_MIRRORS: dict[object, type[BaseModel]] = {
    rates.ProportionFigure: models.ProportionFigure,
    agreement.AgreementResult: models.AgreementResult,
    agreement.KappaInterval: models.KappaInterval,
    agreement.MeasureDisagreement: models.Disagreement,
    merged_document.Ap1Adjudication: models.Ap1Adjudication,
    merged_document.AdjudicationScorer: models.AdjudicationScorer,
    merged_document.AdjudicatedRow: models.AdjudicatedRow,
    merged_document.RowMarks: models.ScorerMarks,
    merged_document.Settlement: models.Settlement,
    rows.NonOutcomeRow: models.NonOutcomeCell,
    rows.AuditRow: models.AuditEntry,
    rows.AlteredRow: models.AlteredRelease,
    rows.UngovernedRow: models.UngovernedRelease,
    rows.TranscriptProblem: models.TranscriptProblem,
    rows.UnreadableRow: models.UnreadableRecord,
}
# the members shared by a section's pooled, per-condition and per-item rows: no class of their own
_PARTS = {
    "AccuracyNumbers",
    "CoverageNumbers",
    "InvocationNumbers",
    "OperationNumbers",
    "ProvenanceNumbers",
    "TranscriptionNumbers",
}


def _report_types() -> list[tuple[str, object]]:
    return [
        (name, value)
        for name, value in vars(score_report).items()
        if typing.is_typeddict(value) and value.__module__ == score_report.__name__
    ]


for _name, _type in _report_types():
    if _name not in _PARTS:
        _MIRRORS[_type] = getattr(models, _name)


def _aliases(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """The model's JSON member names, and those it requires."""
    every = {f.alias or n for n, f in model.model_fields.items()}
    required = {f.alias or n for n, f in model.model_fields.items() if f.is_required()}
    return every, required


def _keys(typed: object) -> tuple[set[str], set[str]]:
    """The TypedDict's keys, and those it requires (read from the hints: the modules use
    ``from __future__ import annotations``, under which Python 3.11 does not see NotRequired)."""
    hints = typing.get_type_hints(typed, include_extras=True)
    optional = set(typed.__optional_keys__)  # type: ignore[attr-defined]
    optional |= {k for k, h in hints.items() if typing.get_origin(h) is typing.NotRequired}
    return set(hints), set(hints) - optional


@pytest.mark.parametrize(
    ("typed", "model"), list(_MIRRORS.items()), ids=lambda v: getattr(v, "__qualname__", str(v))
)
def test_a_typed_dict_names_its_schema_class_members(typed: object, model: type[BaseModel]) -> None:
    every, required = _keys(typed)
    model_every, model_required = _aliases(model)
    assert every == model_every
    assert required == model_required


def test_every_report_type_mirrors_a_schema_class() -> None:
    names = {name for name, _ in _report_types()}
    assert names - _PARTS <= set(dir(models))
    assert names >= _PARTS
    # the whole document and every section are covered
    assert {"Ap1ScoreReport", "AccuracySection", "AdjudicationSection", "ScoreIntegrity"} <= names


def test_the_shared_parts_are_members_of_the_rows_they_build() -> None:
    types = dict(_report_types())
    for part in _PARTS:
        keys, _ = _keys(types[part])
        users = [t for n, t in types.items() if n not in _PARTS and keys <= _keys(t)[0]]
        assert users, part


def test_the_measured_sections_are_the_report_members_of_the_same_name() -> None:
    from apconform.ap1.scoring.report.summary import MeasuredSections

    hints = typing.get_type_hints(MeasuredSections)
    report = typing.get_type_hints(score_report.Ap1ScoreReport)
    assert {name: report[name] for name in hints} == hints


def test_the_checks_catch_a_drift() -> None:
    """An added member on the hand-written side is caught (the comparison is not vacuous)."""

    class Drifted(score_report.OutcomeCount):
        extra: str

    assert _keys(Drifted)[0] != _aliases(models.OutcomeCount)[0]
    assert _keys(score_report.OutcomeCount)[0] == _aliases(models.OutcomeCount)[0]


def _run_records(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "transcript.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _run_documents(run_dir: Path) -> dict[str, Any]:
    docs: dict[str, Any] = {
        name: json.loads((run_dir / "inputs" / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("config", "fixture", "questions", "derivations")
    }
    docs["ap1Text"] = (run_dir / "inputs" / "ap1-text.md").read_text(encoding="utf-8")
    return docs


def test_a_scorer_bug_is_not_reported_as_an_unreadable_record(
    demo: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: a fault of the scorer itself propagates; it is not a finding about the record
    (the old rule caught every exception and listed it under unreadableRecords)."""
    from apconform.ap1.scoring import rescoring
    from apconform.ap1.scoring.api import rescore

    def broken(*_: object) -> object:
        raise KeyError("a scorer bug")

    monkeypatch.setattr(rescoring, "score_view", broken)
    run_dir, _ = demo
    with pytest.raises(KeyError, match="a scorer bug"):
        rescore(_run_records(run_dir), _run_documents(run_dir))


def test_a_record_outside_the_sealed_set_is_still_an_unreadable_record(
    demo: tuple[Path, str],
) -> None:
    from apconform.ap1.scoring.api import rescore

    run_dir, _ = demo
    records = _run_records(run_dir)
    line, record = next((n, r) for n, r in enumerate(records, 1) if r["kind"] == "execution")
    record["execution"]["itemId"] = "Q99"
    document = rescore(records, _run_documents(run_dir)).content
    assert document["unreadableRecords"] == [
        {
            "record": f"line {line}",
            "message": "AP1-SCORE-RECORD at $.itemId: item Q99 is not in the sealed question set",
        }
    ]
