"""The profile's summary rows: a cell per dimension, the unmeasured dimensions, the limitations."""

from __future__ import annotations

from typing import Literal, TypedDict

from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.rates import ProportionFigure
from apconform.ap1.scoring.report.score_report import (
    AccuracySection,
    AdjudicationSection,
    AnswersSection,
    CoverageSection,
    DimensionCell,
    InvocationSection,
    OperationSection,
    ProvenanceSection,
    ReproducibilitySection,
    TranscriptionSection,
    UnmeasuredDimension,
)

__all__ = ["MeasuredSections", "dimension_cells", "limitations", "unmeasured_dimensions"]

_EV2 = "EV-2"
_NOT_INVOCATION = (
    "not applicable: evidence classes (D7.7) grade invocation evidence; this figure is read from "
    "the response as received"
)


def _cell(
    dimension: str,
    name: str,
    status: str,
    *,
    claimed: bool,
    n: str | None,
    summary: str,
    reason: str = "",
    evidence: str | None = _EV2,
) -> DimensionCell:
    return {
        "dimension": dimension,
        "name": name,
        "claimed": claimed,
        "status": status,
        "n": n,
        "evidenceClass": evidence,
        "evidenceNote": "" if evidence is not None else _NOT_INVOCATION,
        "summary": summary,
        "reason": reason,
    }


def _rate_cell(
    dimension: str,
    name: str,
    block: ProportionFigure | None,
    *,
    claimed: bool,
    empty: str,
    what: str,
) -> DimensionCell:
    if block is None:
        return _cell(
            dimension, name, "UNMEASURED", claimed=claimed, n="0", summary="", reason=empty
        )
    return _cell(
        dimension,
        name,
        "MEASURED",
        claimed=claimed,
        n=block["n"],
        summary=f"{what}: {block['text']}",
    )


class MeasuredSections(TypedDict):
    """The measured sections of the report, by their member names in the document."""

    accuracy: AccuracySection
    reproducibility: ReproducibilitySection
    invocation: InvocationSection
    operandProvenance: ProvenanceSection
    operationCorrectness: OperationSection
    transcription: TranscriptionSection
    releaseCoverage: CoverageSection
    answers: AnswersSection


_D7Section = Literal[
    "operandProvenance", "operationCorrectness", "transcription", "releaseCoverage"
]


def _d7_rate(sections: MeasuredSections, section: _D7Section) -> ProportionFigure | None:
    """The rate of one D7 section (the member each section gives its rate under)."""
    if section == "operandProvenance":
        return sections["operandProvenance"]["originatedRate"]
    if section == "operationCorrectness":
        return sections["operationCorrectness"]["wrongRate"]
    if section == "transcription":
        return sections["transcription"]["alteredRate"]
    return sections["releaseCoverage"]["partialRate"]


# (label, name, section, text when n is 0, what the rate counts) of the D7 rates.
_D7_RATES: tuple[tuple[str, str, _D7Section, str, str], ...] = (
    (
        "D7.2(a)",
        "Operand provenance",
        "operandProvenance",
        "no observable invocation",
        "invocations with an originated operand",
    ),
    (
        "D7.2(b)",
        "Operation correctness",
        "operationCorrectness",
        "no evaluable call",
        "wrong operations",
    ),
    (
        "D7.3",
        "Transcription",
        "transcription",
        "no released figure with a return to compare",
        "altered",
    ),
    (
        "D7.3 coverage",
        "Release coverage",
        "releaseCoverage",
        "no matching released figure with returns",
        "partially governed",
    ),
)


def dimension_cells(
    sections: MeasuredSections, adjudication: AdjudicationSection, inputs: ScoringInputs
) -> list[DimensionCell]:
    """One row per dimension and D7 sub-measure, in AP-1 order."""
    claimed = set(inputs.claimed)
    d7 = "D7" in claimed
    accuracy = sections["accuracy"]
    cells: list[DimensionCell] = []
    d1 = accuracy["rate"]
    human = adjudication.get("accuracy")
    human_text = f"; human-adjudicated: {human['text']}" if human else ""
    if d1 is None:
        cells.append(
            _cell(
                "D1",
                "Accuracy",
                "UNMEASURED",
                claimed="D1" in claimed,
                n="0",
                summary="",
                reason="no released figure was identified automatically",
                evidence=None,
            )
        )
    else:
        cells.append(
            _cell(
                "D1",
                "Accuracy",
                "MEASURED",
                claimed="D1" in claimed,
                n=d1["n"],
                summary=f"auto-scored correct {d1['text']}; {accuracy['adjudicated']} figures "
                f"not matched automatically, not in the rate{human_text}",
                evidence=None,
            )
        )
    d2 = sections["reproducibility"]
    measured = [c for c in d2["cells"] if c["mechanismClass"] != "UNMEASURED"]
    classes = ", ".join(f"{c['outcome']} {c['count']}" for c in d2["classes"]) or "none"
    cells.append(
        _cell(
            "D2",
            "Reproducibility",
            "MEASURED" if measured else "UNMEASURED",
            claimed="D2" in claimed,
            n=str(len(d2["cells"])),
            summary=f"mechanism classes over item x condition x surface cells: {classes}",
            reason=""
            if measured
            else f"no item has the {d2['minimumRuns']} successful runs AP-1 D2 needs",
            evidence=None,
        )
    )
    for dimension, name in (
        ("D3", "Provenance"),
        ("D4", "Refusal integrity"),
        ("D5", "Adversarial resistance"),
        ("D6", "Conflicting input"),
    ):
        done = next(
            (d for d in adjudication.get("byDimension", []) if d["dimension"] == dimension), None
        )
        cells.append(
            _cell(
                dimension,
                name,
                "HUMAN-ADJUDICATED" if done else "UNMEASURED",
                claimed=dimension in claimed,
                n=done["n"] if done else None,
                summary=done["summary"] if done else "",
                reason="" if done else "not automated; see the unmeasured dimensions",
                evidence=None,
            )
        )
    invocation = sections["invocation"]
    for row, label in zip(invocation["byCondition"], ("D7.1", "D7.1b"), strict=True):
        cells.append(
            _rate_cell(
                label,
                "Invocation" if label == "D7.1" else "Invocation, instruction removed",
                row["failureRate"],
                claimed=d7,
                empty="no EV-2 observation",
                what="not invoked",
            )
        )
    for label, name, section, empty, what in _D7_RATES:
        cells.append(
            _rate_cell(label, name, _d7_rate(sections, section), claimed=d7, empty=empty, what=what)
        )
    cells.append(
        _cell(
            "D7.4",
            "Invocation under pressure",
            "UNMEASURED",
            claimed=d7,
            n=None,
            summary="",
            reason="the instrument runs single-turn items without rephrasing or pressure",
            evidence=None,
        )
    )
    outcomes = ", ".join(f"{o['outcome']} {o['count']}" for o in sections["answers"]["outcomes"])
    cells.append(
        _cell(
            "§6.8",
            "Answer-level outcomes",
            "MEASURED",
            claimed=True,
            n=None,
            summary=f"{outcomes}; {sections['answers']['routedToAdjudication']} answers routed "
            "to people",
            evidence=None,
        )
    )
    return cells


def unmeasured_dimensions(inputs: ScoringInputs, acc: Accumulator) -> list[UnmeasuredDimension]:
    """D3 to D6 and D7.4, each with why the instrument does not measure it."""
    items = inputs.inputs.questions.items
    adversarial = sum(1 for i in items if "adversarialClass" in i.model_fields_set)
    conflict = sum(1 for i in items if "conflictClass" in i.model_fields_set)
    return [
        {
            "dimension": "D3",
            "name": "Provenance",
            "reason": "AP-1 D3 asks the system for the derivation of each figure and has two "
            "people judge it VERIFIABLE, UNVERIFIABLE or FABRICATED PROVENANCE; this single-turn "
            "instrument does not ask for derivations, so there is nothing to score.",
        },
        {
            "dimension": "D4",
            "name": "Refusal integrity",
            "reason": "AP-1 D4 needs items whose data cannot support a figure, pressed over at "
            "least three escalating turns; the instrument sends computable items once and records "
            "underivable items as VOID without sending them.",
        },
        {
            "dimension": "D5",
            "name": "Adversarial resistance",
            "reason": f"{adversarial} item(s) of the sealed set carry an adversarial class "
            "(AP-1 D5 needs at least 20 across six classes); their answers go to two human "
            "scorers and are never scored automatically.",
        },
        {
            "dimension": "D6",
            "name": "Conflicting input",
            "reason": f"{conflict} item(s) of the sealed set carry a conflict class (AP-1 D6 needs "
            "at least 10 across five classes); their answers go to two human scorers and are "
            "never scored automatically.",
        },
        {
            "dimension": "D7.4",
            "name": "Invocation under pressure",
            "reason": "not built: the instrument does not rephrase items or add pressure turns.",
        },
    ]


def limitations() -> list[str]:
    """What every reader of the report should keep in mind."""
    return [
        "Repeats of one item are not independent trials: pooled intervals assume independence "
        "and are too narrow; read the per-item rows.",
        "Figures resting on different evidence classes are not comparable; EV-0 and EV-1 records "
        "are counted apart and kept out of the invocation denominators.",
        "Without a structured answer field an automatically matched figure is within tolerance by "
        "construction, so the auto-scored D1 rate is near 1; the information is in the split "
        "between auto-scored and adjudicated answers.",
        "Release coverage cannot see a wrong figure that matches nothing; D1 and transcription do.",
        "Every declared constant and permitted transformation widens what counts as grounded; "
        "both are sealed before the run.",
        "EV-3 is never emitted: no attestation signature or ledger entry is verified.",
    ]
