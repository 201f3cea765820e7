"""Writing the apx-result/0.1 document: the contract's members, then what the specification adds.

The members up to ``limitation`` are the contract's, in its order, with its
values. After them come the measurements the APx 0.1 specification requires
and the contract leaves out: the evidence grade, the currency, verified
reference workdays (W/8), runtime days, the wall-time breakdown, per-class
AP and credited hours, task coverage, the conditioned-claim sentence of
section 3, and an explanation whenever APx is null.
"""

from __future__ import annotations

from typing import Any

from apconform.apx import text
from apconform.apx.checks import js_number
from apconform.apx.manifest import ManifestFacts
from apconform.apx.metrics import power_metrics
from apconform.apx.run import WALL_SEGMENTS
from apconform.apx.scoring import EXCLUSION_REASONS, Scoring

__all__ = ["build_result"]


def _copy(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


def build_result(facts: ManifestFacts, run: dict[str, Any], scoring: Scoring) -> dict[str, Any]:
    """The result document of a validated, scored run."""
    manifest = facts.manifest
    suite, baseline = manifest["suite"], manifest["baseline"]
    evaluator = manifest["evaluator"]
    wall = run["wallHours"]
    human = run["humanReviewHours"]
    cost = run["costUSD"]
    credited_hours = scoring.credited_hours
    power, exponent = power_metrics(credited_hours, wall)
    eligible = not scoring.violations
    synthetic = baseline["kind"] == "synthetic" or run["kind"] == "synthetic"
    protocol = baseline.get("protocol")
    protocol_id = protocol.get("id") if type(protocol) is dict else None
    declared = len(run["outcomes"])
    document: dict[str, Any] = {
        "schemaVersion": "apx-result/0.1",
        "version": text.KERNEL_VERSION,
        "runId": run["id"],
        "suiteHash": suite["hash"],
        "baselineHash": baseline["hash"],
        "evaluatorHash": evaluator["hash"],
        "environmentHash": manifest["environment"]["hash"],
        "suiteId": suite["id"],
        "baselineId": baseline["id"],
        "baselineCohort": _copy(baseline["cohort"]),
        "calibrationProtocolId": protocol_id,
        "assurance": text.ASSURANCE,
        "status": "synthetic" if synthetic else "pilot",
        "eligibility": "ELIGIBLE" if eligible else "INELIGIBLE",
        "certified": False,
        "AP": power if eligible else None,
        "APx": exponent if eligible else None,
        "diagnostic": {
            "AP": power,
            "APx": exponent,
            "note": text.NOTE_ELIGIBLE if eligible else text.NOTE_INELIGIBLE,
        },
        "creditedHumanHours": credited_hours,
        "acceptance": len(scoring.credited) / declared,
        "acceptedSlots": len(scoring.credited),
        "declaredSlots": declared,
        "rawAcceptedSlots": sum(1 for outcome in run["outcomes"] if outcome["accepted"]),
        "rawRuntimeDays": run["agentRuntimeHours"] / 8,
        "supervisionHours": human,
        "humanLeverage": credited_hours / human if human > 0 else None,
        "costUSD": cost,
        "costPerCreditedHumanHour": cost / credited_hours if credited_hours > 0 else None,
        "wallHours": wall,
        "assistanceMode": run["assistanceMode"],
        "perClass": scoring.per_class,
        "credited": scoring.credited,
        "excluded": scoring.excluded,
        "policyViolations": scoring.violations,
        "limitation": text.RESULT_LIMITATION,
    }
    grade = "synthetic" if synthetic else "declared-measured"
    document["evidenceGrade"] = grade
    document["costCurrency"] = "USD"
    document["verifiedReferenceWorkdays"] = credited_hours / 8
    document["runtimeDays"] = run["agentRuntimeHours"] / 8
    document["wallBreakdown"] = {name: run["wallBreakdown"][name] for name in WALL_SEGMENTS}
    document["classPower"] = _class_power(facts, scoring, wall, eligible)
    document["coverage"] = _coverage(scoring, declared)
    document["claim"] = _claim(manifest, run, document)
    document["explanation"] = _explanation(document, len(scoring.violations))
    return document


def _class_power(
    facts: ManifestFacts, scoring: Scoring, wall: float, eligible: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for class_id, stats in scoring.per_class.items():
        calibration = facts.calibration[class_id]
        power, exponent = power_metrics(stats["creditedHumanHours"], wall)
        out[class_id] = {
            "referenceHumanHours": calibration.referenceHumanHours,
            "baselineAttempts": calibration.attempts,
            "baselineAcceptedAttempts": calibration.accepted,
            "declaredSlots": stats["tasks"],
            "creditedSlots": stats["credited"],
            "creditedHumanHours": stats["creditedHumanHours"],
            "AP": power if eligible else None,
            "APx": exponent if eligible else None,
        }
    return out


def _coverage(scoring: Scoring, declared: int) -> dict[str, Any]:
    by_reason = dict.fromkeys(EXCLUSION_REASONS, 0)
    for item in scoring.excluded:
        by_reason[item["reason"]] += 1
    return {
        "declaredSlots": declared,
        "creditedSlots": len(scoring.credited),
        "excludedSlots": len(scoring.excluded),
        "excludedByReason": by_reason,
        "declaredClasses": len(scoring.per_class),
        "creditedClasses": sum(1 for stats in scoring.per_class.values() if stats["credited"]),
    }


def _number(value: float | None) -> str:
    return "null" if value is None else js_number(value)


def _claim(manifest: dict[str, Any], run: dict[str, Any], result: dict[str, Any]) -> str:
    """The conditioned claim of specification section 3, filled in from the documents."""
    suite, baseline = manifest["suite"], manifest["baseline"]
    evaluator, environment = manifest["evaluator"], manifest["environment"]
    subject = f"Run {run['id']} (campaign {run['independenceId']})"
    if result["eligibility"] == "INELIGIBLE":
        diagnostic = result["diagnostic"]
        figures = (
            "has no official AP or APx because it is INELIGIBLE (diagnostic only: AP "
            f"{_number(diagnostic['AP'])}, APx {_number(diagnostic['APx'])})"
        )
    elif result["APx"] is None:
        figures = "achieved AP 0, APx undefined (no accepted work)"
    else:
        figures = f"achieved AP {_number(result['AP'])}, APx {_number(result['APx'])}"
    return (
        f"{subject} {figures}, on workload {suite['id']} version {suite['version']} "
        f"({suite['partition']} partition, {result['declaredSlots']} task slots in "
        f"{len(result['perClass'])} classes), against cohort {baseline['cohort']['id']} "
        f"(baseline {baseline['id']} version {baseline['version']}, {baseline['kind']}), "
        f"under evaluator {evaluator['id']} version {evaluator['version']} (quality threshold "
        f"{_number(evaluator['qualityThreshold'])}), environment {environment['id']} version "
        f"{environment['version']}, assistance mode {run['assistanceMode']}, and budgets of "
        f"{_number(run['costUSD'])} USD and {_number(run['humanReviewHours'])} human hours, "
        f"during a window of {_number(run['wallHours'])} elapsed hours, with evidence grade "
        f"{result['evidenceGrade']}; a single campaign states no uncertainty interval (a paired "
        "comparison does)."
    )


def _explanation(result: dict[str, Any], violations: int) -> str | None:
    if result["eligibility"] == "INELIGIBLE":
        return (
            f"The official AP and APx are null: the run is INELIGIBLE because of {violations} "
            "policy violation(s) or known safety failure(s), listed in policyViolations. The "
            "diagnostic figures are kept for inspection and cannot be published as a score."
        )
    if result["APx"] is None:
        return (
            f"No slot earned credit ({result['declaredSlots']} declared, 0 credited), so AP is "
            "0 and APx, the base-2 logarithm of AP, is undefined and reported as null. "
            "Unknown inputs would have produced no score at all, not zero work."
        )
    return None
