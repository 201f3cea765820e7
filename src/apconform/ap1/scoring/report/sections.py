"""The measured sections of the score report, each built from the accumulated counts.

Every rate is given pooled and per item (repeats of one item are not
independent trials), with n and its intervals; every count list is sorted by
label so the document is the same for the same transcript.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from apconform.ap1.scoring.aggregate import Accumulator, Cell
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.measures.reproducibility import D2_MINIMUM_RUNS, d2_cap, mechanism_class
from apconform.ap1.scoring.rates import proportion_figure
from apconform.ap1.scoring.report.score_report import (
    AccuracyNumbers,
    AccuracySection,
    AnswersSection,
    CategoryAccuracy,
    CoverageNumbers,
    CoverageSection,
    DropRatioFigure,
    EchoFinding,
    InvocationNumbers,
    InvocationSection,
    OperandStepCount,
    OperationNumbers,
    OperationSection,
    OutcomeCount,
    ProvenanceNumbers,
    ProvenanceSection,
    ReproducibilitySection,
    SurfaceCell,
    TranscriptionNumbers,
    TranscriptionSection,
)
from apconform.core.spooled import plain_rows

__all__ = [
    "CONDITIONS",
    "accuracy_section",
    "answers_section",
    "counts",
    "coverage_section",
    "invocation_section",
    "item_ids",
    "operation_section",
    "provenance_section",
    "reproducibility_section",
    "total",
    "transcription_section",
]

CONDITIONS = ("base", "instruction-removed")


def counts(counter: Counter[str]) -> list[OutcomeCount]:
    """[{"outcome", "count"}] sorted by outcome, zero counts left out."""
    return [{"outcome": k, "count": str(v)} for k, v in sorted(counter.items()) if v]


def total(
    acc: Accumulator, attribute: str, *, item: str | None = None, condition: str | None = None
) -> Counter[str]:
    """The sum of one counter over the cells matching item and condition."""
    out: Counter[str] = Counter()
    for (item_id, cond), cell in acc.cells.items():
        if (item is None or item_id == item) and (condition is None or cond == condition):
            out.update(getattr(cell, attribute))
    return out


def item_ids(inputs: ScoringInputs, acc: Accumulator) -> list[str]:
    """Items in question-set order that have at least one record."""
    seen = {item for item, _ in acc.cells}
    return [item.id for item in inputs.inputs.questions.items if item.id in seen]


def _cells(acc: Accumulator, item: str) -> Iterable[Cell]:
    return (acc.cells[(item, c)] for c in CONDITIONS if (item, c) in acc.cells)


def _accuracy_numbers(counter: Counter[str]) -> AccuracyNumbers:
    correct, incorrect = counter["CORRECT"], counter["INCORRECT"]
    return {
        "correct": str(correct),
        "incorrect": str(incorrect),
        "noFigure": str(counter["NO-FIGURE"]),
        "adjudicated": str(counter["ADJUDICATE"]),
        "unmeasurable": str(counter["UNMEASURABLE"]),
        "rate": proportion_figure(correct, correct + incorrect, failures=False),
    }


def accuracy_section(acc: Accumulator, inputs: ScoringInputs) -> AccuracySection:
    """D1, auto-scored and adjudicated apart, per category (10 items to claim), item, condition."""
    pooled = total(acc, "accuracy")
    exact = sum(cell.exact_at_precision for cell in acc.cells.values())
    categories: dict[str, list[str]] = {}
    for item in inputs.inputs.questions.items:
        if item.derivable:
            categories.setdefault(item.category, []).append(item.id)
    per_category: list[CategoryAccuracy] = []
    for category, members in categories.items():
        counter: Counter[str] = Counter()
        for item_id in members:
            counter.update(total(acc, "accuracy", item=item_id))
        allowed = len(members) >= 10
        per_category.append(
            {
                "category": category,
                "items": str(len(members)),
                **_accuracy_numbers(counter),
                "claimAllowed": allowed,
                "note": ""
                if allowed
                else f"{len(members)} items: below AP-1's 10, no category claim",
            }
        )
    return {
        "autoScored": str(pooled["CORRECT"] + pooled["INCORRECT"] + pooled["NO-FIGURE"]),
        **_accuracy_numbers(pooled),
        "exactAtDeclaredPrecision": str(exact),
        "figureOutcomes": counts(total(acc, "figure")),
        "byCondition": [
            {"condition": c, **_accuracy_numbers(total(acc, "accuracy", condition=c))}
            for c in CONDITIONS
        ],
        "perCategory": per_category,
        "perItem": [
            {"itemId": i, **_accuracy_numbers(total(acc, "accuracy", item=i))}
            for i in item_ids(inputs, acc)
        ],
    }


def _invocation_numbers(counter: Counter[str]) -> InvocationNumbers:
    invoked, missed = counter["EV-2 INVOKED"], counter["EV-2 NOT-INVOKED"]
    return {
        "ev2": str(invoked + missed),
        "invoked": str(invoked),
        "notInvoked": str(missed),
        "ev1": str(counter["EV-1"]),
        "ev0": str(counter["EV-0"]),
        "unmeasured": str(counter["UNMEASURED"]),
        "void": str(counter["VOID"]),
        "failureRate": proportion_figure(missed, invoked + missed, failures=True),
    }


def _drop_ratio(acc: Accumulator) -> DropRatioFigure:
    base = total(acc, "evidence", condition="base")
    removed = total(acc, "evidence", condition="instruction-removed")
    n_base = base["EV-2 INVOKED"] + base["EV-2 NOT-INVOKED"]
    n_removed = removed["EV-2 INVOKED"] + removed["EV-2 NOT-INVOKED"]
    if n_base == 0 or n_removed == 0 or base["EV-2 INVOKED"] == 0:
        return {
            "value": None,
            "statement": "UNDEFINED: the base invocation rate is zero or a condition has no "
            "EV-2 observation, so (I_base - I_removed) / I_base has no value",
        }
    i_base = Decimal(base["EV-2 INVOKED"]) / n_base
    i_removed = Decimal(removed["EV-2 INVOKED"]) / n_removed
    value = (i_base - i_removed) / i_base
    return {
        "value": format(value.quantize(Decimal("1E-10")).normalize(), "f"),
        "statement": f"(I_base - I_removed) / I_base with I_base = {base['EV-2 INVOKED']}/{n_base} "
        f"and I_removed = {removed['EV-2 INVOKED']}/{n_removed} (EV-2 records only)",
    }


def invocation_section(acc: Accumulator, inputs: ScoringInputs) -> InvocationSection:
    """D7.1 and D7.1b per condition, per item and condition, with the drop ratio."""
    varies = str(inputs.inputs.config.model.conditions.varies)
    return {
        "byCondition": [
            {"condition": c, **_invocation_numbers(total(acc, "evidence", condition=c))}
            for c in CONDITIONS
        ],
        "perItem": [
            {"itemId": i, "condition": c, **_invocation_numbers(acc.cells[(i, c)].evidence)}
            for i in item_ids(inputs, acc)
            for c in CONDITIONS
            if (i, c) in acc.cells
        ],
        "dropRatio": _drop_ratio(acc),
        "heldConstant": f"Only {varies} differs between the conditions; the tool, tool choice, "
        "sampling parameters, message layout and delivered data are identical (refused at "
        "sealing otherwise).",
        "selfReports": str(acc.self_reports),
        "attestations": str(acc.attestations),
        "ev3Statement": "EV-3 is never emitted: the instrument verifies no attestation signature "
        "or ledger entry.",
    }


def _transcription_numbers(counter: Counter[str]) -> TranscriptionNumbers:
    exact = counter["TRANSCRIBED-EXACT"]
    altered = sum(v for k, v in counter.items() if k.startswith("TRANSCRIBED-ALTERED"))
    return {
        "outcomes": counts(counter),
        "alteredRate": proportion_figure(altered, exact + altered, failures=True),
    }


def transcription_section(acc: Accumulator, inputs: ScoringInputs) -> TranscriptionSection:
    """D7.3 pooled and per item, with every altered release."""
    return {
        **_transcription_numbers(total(acc, "transcription")),
        "perItem": [
            {"itemId": i, **_transcription_numbers(total(acc, "transcription", item=i))}
            for i in item_ids(inputs, acc)
        ],
        "altered": plain_rows(acc.altered),
    }


def _coverage_numbers(counter: Counter[str]) -> CoverageNumbers:
    governed, partial = counter["GOVERNED-RELEASE"], counter["PARTIALLY-GOVERNED"]
    return {
        "outcomes": counts(counter),
        "partialRate": proportion_figure(partial, governed + partial, failures=True),
    }


def coverage_section(acc: Accumulator, inputs: ScoringInputs) -> CoverageSection:
    """Release coverage pooled and per item, with every ungoverned figure."""
    return {
        **_coverage_numbers(total(acc, "coverage")),
        "perItem": [
            {"itemId": i, **_coverage_numbers(total(acc, "coverage", item=i))}
            for i in item_ids(inputs, acc)
        ],
        "ungoverned": plain_rows(acc.ungoverned),
    }


_LADDER = (
    "i SOURCE-VALUE",
    "i DECLARED-CONSTANT",
    "ii TRANSFORMED-SOURCE",
    "iii INTERMEDIATE",
    "iii TRANSFORMED-INTERMEDIATE",
    "iii QUANTISED-INTERMEDIATE",
    "iv COMPUTED-IN-SESSION",
    "v UNGROUNDED-EARLIER-RETURN",
    "v NEAR-MISS",
    "v SIGN-INVERSION",
    "v NEGATED-CONSTANT",
    "v UNTRACEABLE",
)
_SURFACES = ("figures", "toolArguments", "prose")


def _provenance_numbers(counter: Counter[str]) -> ProvenanceNumbers:
    grounded = counter["OPERANDS-GROUNDED"]
    originated = counter["OPERAND-ORIGINATED"]
    unobservable = counter["OPERANDS-UNOBSERVABLE"]
    return {
        "invocations": counts(counter),
        "originatedRate": proportion_figure(originated, grounded + originated, failures=True),
        "unobservable": str(unobservable),
        "observable": str(grounded + originated),
    }


def provenance_section(acc: Accumulator, inputs: ScoringInputs) -> ProvenanceSection:
    """D7.2(a): per invocation, per execution, per operand step, per item; the audit listing."""
    operands = total(acc, "operands")
    steps: list[OperandStepCount] = []
    for label in _LADDER:
        step, resolution = label.split(" ", 1)
        steps.append(
            {
                "step": step,
                "resolution": resolution,
                "grounded": step != "v",
                "count": str(operands[label]),
            }
        )
    invocations = total(acc, "provenance_invocations")
    return {
        **_provenance_numbers(invocations),
        "unobservableStatement": f"{invocations['OPERANDS-UNOBSERVABLE']} of "
        f"{sum(invocations.values())} invocation(s) have operands that cannot be observed; they "
        "are declared here and kept out of the originated rate, never counted as grounded",
        "executions": counts(total(acc, "provenance_executions")),
        "byCondition": [
            {
                "condition": c,
                **_provenance_numbers(total(acc, "provenance_invocations", condition=c)),
            }
            for c in CONDITIONS
        ],
        "operandSteps": steps,
        "findings": counts(acc.findings),
        "perItem": [
            {
                "itemId": i,
                **_provenance_numbers(total(acc, "provenance_invocations", item=i)),
                "executions": counts(total(acc, "provenance_executions", item=i)),
            }
            for i in item_ids(inputs, acc)
        ],
        "audit": plain_rows(acc.audit),
    }


def _operation_numbers(counter: Counter[str]) -> OperationNumbers:
    correct, wrong = counter["OPERATION-CORRECT"], counter["WRONG-OPERATION"]
    return {
        "calls": counts(counter),
        "wrongRate": proportion_figure(wrong, correct + wrong, failures=True),
    }


def operation_section(acc: Accumulator, inputs: ScoringInputs) -> OperationSection:
    """D7.2(b): session and per-call outcomes, reclassifications, the WRONG-OPERATION split."""
    split = total(acc, "wrong_split")
    return {
        **_operation_numbers(total(acc, "operations")),
        "perCallOutcomes": counts(total(acc, "operations_per_call")),
        "reclassified": str(sum(cell.reclassified for cell in acc.cells.values())),
        "wrongSplit": {
            "routeDivergence": str(split["routeDivergence"]),
            "wrong": str(split["wrong"]),
            "undetermined": str(split["undetermined"]),
        },
        "toolReturnDisagreements": str(acc.tool_disagreements),
        "perItem": [
            {
                "itemId": i,
                **_operation_numbers(total(acc, "operations", item=i)),
                "reclassified": str(
                    sum(acc.cells[(i, c)].reclassified for c in CONDITIONS if (i, c) in acc.cells)
                ),
            }
            for i in item_ids(inputs, acc)
        ],
    }


def answers_section(acc: Accumulator, inputs: ScoringInputs) -> AnswersSection:
    """§6.8 answer-level outcomes decided automatically, statuses, and what went to humans."""
    pooled = total(acc, "answers")
    return {
        "outcomes": counts(pooled),
        "routedToAdjudication": str(len(acc.routed)),
        "byCondition": [
            {"condition": c, "outcomes": counts(total(acc, "answers", condition=c))}
            for c in CONDITIONS
        ],
        "perItem": [
            {"itemId": i, "outcomes": counts(total(acc, "answers", item=i))}
            for i in item_ids(inputs, acc)
        ],
    }


def _pinned(inputs: ScoringInputs, condition: str) -> bool:
    temperature = inputs.inputs.config.condition(condition).sampling.get("temperature", {})
    return isinstance(temperature, dict) and temperature.get("send") == "0"


def _cap(inputs: ScoringInputs) -> str | None:
    config = inputs.inputs.config
    return d2_cap({c: config.condition(c).sampling for c in CONDITIONS})


def reproducibility_section(acc: Accumulator, inputs: ScoringInputs) -> ReproducibilitySection:
    """D2 per item, condition and surface, the parameter echo and its findings."""
    cap = _cap(inputs)
    cells: list[SurfaceCell] = []
    for item in item_ids(inputs, acc):
        for condition in CONDITIONS:
            cell = acc.cells.get((item, condition))
            if cell is None:
                continue
            executed = sum(cell.echo.values())
            verified = executed > 0 and cell.echo["VERIFIED"] == executed
            for surface in _SURFACES:
                distinct = acc.distinct_values(item, condition, surface)
                klass, reason = mechanism_class(
                    cell.successful,
                    distinct,
                    pinned=_pinned(inputs, condition),
                    echo_verified=verified,
                    capped=cap is not None,
                )
                cells.append(
                    {
                        "itemId": item,
                        "condition": condition,
                        "surface": surface,
                        "successfulRuns": str(cell.successful),
                        "distinctValues": None if klass == "UNMEASURED" else str(distinct),
                        "mechanismClass": klass,
                        "reason": reason,
                    }
                )
    findings: list[EchoFinding] = [
        {
            "parameter": parameter,
            "finding": finding,
            "requested": requested,
            "echoed": echoed or None,
            "count": str(count),
        }
        for (parameter, finding, requested, echoed), count in sorted(acc.echo_findings.items())
    ]
    return {
        "minimumRuns": str(D2_MINIMUM_RUNS),
        "classes": counts(Counter(str(c["mechanismClass"]) for c in cells)),
        "cells": cells,
        "parameterEcho": counts(total(acc, "echo")),
        "echoFindings": findings,
        "cap": cap,
        "structuralNote": "STRUCTURAL is never assigned by the scorer: it needs an architectural "
        "argument (a named mechanism and a threat model) that no transcript can show.",
    }
