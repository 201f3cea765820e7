"""More report sections: operand provenance, operation correctness, answers and reproducibility."""

from __future__ import annotations

from collections import Counter
from typing import Any

from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.rates import rate
from apconform.ap1.scoring.reproducibility import D2_MINIMUM_RUNS, mechanism_class
from apconform.ap1.scoring.sections import CONDITIONS, counts, item_ids, total

__all__ = [
    "answers_section",
    "operation_section",
    "provenance_section",
    "reproducibility_section",
]

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


def _provenance_numbers(counter: Counter[str]) -> dict[str, Any]:
    grounded = counter["OPERANDS-GROUNDED"]
    originated = counter["OPERAND-ORIGINATED"]
    unobservable = counter["OPERANDS-UNOBSERVABLE"]
    return {
        "invocations": counts(counter),
        "originatedRate": rate(originated, grounded + originated, failures=True),
        "unobservable": str(unobservable),
        "observable": str(grounded + originated),
    }


def provenance_section(acc: Accumulator, inputs: ScoringInputs) -> dict[str, Any]:
    """D7.2(a): per invocation, per execution, per operand step, per item; the audit listing."""
    operands = total(acc, "operands")
    steps = []
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
        "audit": acc.audit,
    }


def _operation_numbers(counter: Counter[str]) -> dict[str, Any]:
    correct, wrong = counter["OPERATION-CORRECT"], counter["WRONG-OPERATION"]
    return {"calls": counts(counter), "wrongRate": rate(wrong, correct + wrong, failures=True)}


def operation_section(acc: Accumulator, inputs: ScoringInputs) -> dict[str, Any]:
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


def answers_section(acc: Accumulator, inputs: ScoringInputs) -> dict[str, Any]:
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
    notes = []
    for condition in CONDITIONS:
        for name, setting in inputs.inputs.config.condition(condition).sampling.items():
            if isinstance(setting, dict) and setting.get("omit") == "platform-rejected":
                notes.append(f"{name} ({condition}): {setting.get('detail', '')}")
    if not notes:
        return None
    return "D2 is capped at OBSERVED-ONLY: the platform rejected " + "; ".join(notes)


def reproducibility_section(acc: Accumulator, inputs: ScoringInputs) -> dict[str, Any]:
    """D2 per item, condition and surface, the parameter echo and its findings."""
    cap = _cap(inputs)
    cells = []
    for item in item_ids(inputs, acc):
        for condition in CONDITIONS:
            cell = acc.cells.get((item, condition))
            if cell is None:
                continue
            executed = sum(cell.echo.values())
            verified = executed > 0 and cell.echo["VERIFIED"] == executed
            for surface in _SURFACES:
                distinct = len(cell.surfaces[surface])
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
    findings = [
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
