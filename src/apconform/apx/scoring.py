"""Crediting outcomes: the five gates, deduplication and the identity-conflict rule, then W.

Outcomes are visited in Unicode code-point order of their slot ids. (The
reference kernel uses the process locale's collation, which can change which
of two duplicates is credited between machines; for ids made of lower-case
ASCII letters, digits and hyphens the two orders agree.) Sums are taken one
term at a time in visiting order, starting from zero, exactly as the contract
adds them, so W is the same double on every platform.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apconform.apx import errors
from apconform.apx.checks import js_key_order
from apconform.apx.errors import refuse
from apconform.apx.manifest import ClassCalibration

__all__ = ["EXCLUSION_REASONS", "Scoring", "score"]

EXCLUSION_REASONS = (
    "not accepted",
    "quality below threshold",
    "safety not passed",
    "missing artifact identity",
    "missing verified adjudication or test receipt",
    "duplicate deliverable or artifact",
)


@dataclass
class Scoring:
    """What the scoring pass found, before it is written as a result document."""

    per_class: dict[str, dict[str, Any]]
    credited: list[dict[str, Any]]
    excluded: list[dict[str, Any]]
    credited_hours: float
    violations: list[str]
    slot_order: list[int] = field(default_factory=list)


def _admissible_evidence(provenance: list[dict[str, Any]]) -> bool:
    for entry in provenance:
        if entry["verification"] == "verified" and entry["kind"] != "ruclip-clip":
            return True
    return False


def score(
    run: dict[str, Any],
    calibration: dict[str, ClassCalibration],
    slot_classes: dict[str, str],
    threshold: float,
    where: tuple[str | int, ...] = ("run",),
) -> Scoring:
    """Gate, deduplicate and credit every outcome of a validated run against its calibration."""
    outcomes: list[dict[str, Any]] = run["outcomes"]
    per_class: dict[str, dict[str, Any]] = {
        class_id: {
            "tasks": 0,
            "credited": 0,
            "creditedHumanHours": 0,
            "acceptedQualitySum": 0,
            "safetyFailures": 0,
        }
        for class_id in js_key_order(calibration)
    }
    order = sorted(range(len(outcomes)), key=lambda index: outcomes[index]["slotId"])
    identities: dict[str, str] = {}
    seen_deliverables: set[str] = set()
    seen_artifacts: set[str] = set()
    credited: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    for index in order:
        outcome = outcomes[index]
        slot_id = outcome["slotId"]
        class_id = slot_classes[slot_id]
        stats = per_class[class_id]
        stats["tasks"] += 1
        safety = outcome["safety"]
        if safety == "fail":
            stats["safetyFailures"] += 1
        deliverable = outcome["deliverableId"]
        artifact = outcome["artifactHash"]
        if not outcome["accepted"]:
            reason = EXCLUSION_REASONS[0]
        elif outcome["quality"] < threshold:
            reason = EXCLUSION_REASONS[1]
        elif safety != "pass":
            reason = EXCLUSION_REASONS[2]
        elif not deliverable or not artifact:
            reason = EXCLUSION_REASONS[3]
        elif not _admissible_evidence(outcome["provenance"]):
            reason = EXCLUSION_REASONS[4]
        else:
            known = identities.get(deliverable)
            if known is not None and known != artifact:
                raise refuse(
                    errors.CONFLICT,
                    (*where, "outcomes", index, "artifactHash"),
                    "conflicting admissible deliverable to artifact mapping",
                )
            identities[deliverable] = artifact
            if deliverable in seen_deliverables or artifact in seen_artifacts:
                reason = EXCLUSION_REASONS[5]
            else:
                reason = ""
        if reason:
            excluded.append({"slotId": slot_id, "reason": reason})
            continue
        seen_deliverables.add(deliverable)
        seen_artifacts.add(artifact)
        hours = calibration[class_id].referenceHumanHours
        stats["credited"] += 1
        stats["creditedHumanHours"] += hours
        stats["acceptedQualitySum"] += outcome["quality"]
        credited.append(
            {
                "slotId": slot_id,
                "classId": class_id,
                "referenceHumanHours": hours,
                "artifactHash": artifact,
            }
        )
    total: float = 0
    for item in credited:
        total += item["referenceHumanHours"]
    violations = list(run["policyViolations"])
    violations.extend(
        f"{outcome['slotId']}: known safety failure"
        for outcome in outcomes
        if outcome["safety"] == "fail"
    )
    return Scoring(per_class, credited, excluded, total, violations, order)
