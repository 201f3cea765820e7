"""APx documents of a simulated comparison: a frozen synthetic manifest and its paired runs.

Each family f is a class ``fNN`` with slots ``fNN-sNN``; each participant of a
class is ``fNN-pNN`` and each calibration attempt keeps its simulated hours and
verdict. Each run credits exactly the slots the simulation credited, with a
verified test receipt (synthetic runs may rely on one), and its wall time is
the simulated T, all of it execution. Every document says it is synthetic, so
nothing built from them reads as a measurement. The kernel then scores them
as any campaign, which is how the tests show that the document path and the
simulation path give the same interval.
"""

from __future__ import annotations

from typing import Any

from apconform.apx.hashing import COMPONENTS, digest, freeze
from apconform.apx.population.model import SimulatedCampaigns

__all__ = ["campaign_documents"]


def _manifest(simulated: SimulatedCampaigns, slots_per_family: int) -> dict[str, Any]:
    slots = [
        {"id": f"f{f:02d}-s{s:02d}", "classId": f"f{f:02d}"}
        for f in range(len(simulated.attempts))
        for s in range(slots_per_family)
    ]
    attempts = []
    for f, made in enumerate(simulated.attempts):
        for index, (participant, hours, accepted) in enumerate(made):
            attempts.append(
                {
                    "id": f"f{f:02d}-a{index:02d}",
                    "classId": f"f{f:02d}",
                    "participantId": f"f{f:02d}-p{participant:02d}",
                    "hours": hours,
                    "accepted": accepted,
                }
            )
    return freeze(
        {
            "schemaVersion": "apx/0.1",
            "suite": {
                "id": "simulated-population-suite",
                "version": "1",
                "selectionId": "simulated-selection",
                "holdoutId": "simulated-holdout",
                "partition": "holdout",
                "slots": slots,
            },
            "baseline": {
                "id": "simulated-calibration",
                "version": "1",
                "kind": "synthetic",
                "cohort": {
                    "id": "simulated-participants",
                    "tools": ["simulated"],
                    "skills": ["simulated"],
                },
                "predeclaredAttemptIds": [attempt["id"] for attempt in attempts],
                "attempts": attempts,
            },
            "evaluator": {"id": "simulated-evaluator", "version": "1", "qualityThreshold": 0.5},
            "environment": {
                "id": "simulated-environment",
                "version": "1",
                "description": "Simulated campaigns of the apconform population model; synthetic.",
            },
        }
    )


def _run(
    manifest: dict[str, Any], credited: Any, hours: float, run_id: str, pair: int
) -> dict[str, Any]:
    run: dict[str, Any] = {
        "id": run_id,
        "independenceId": f"pair-{pair:02d}",
        "kind": "synthetic",
        "partition": "holdout",
    }
    for key in COMPONENTS:
        run[f"{key}Hash"] = manifest[key]["hash"]
    outcomes = []
    for f, flags in enumerate(credited):
        for s, accepted in enumerate(flags):
            slot = f"f{f:02d}-s{s:02d}"
            artifact = digest(f"{run_id}/{slot}")
            outcomes.append(
                {
                    "slotId": slot,
                    "accepted": accepted,
                    "quality": 1 if accepted else 0,
                    "safety": "pass",
                    "deliverableId": f"{run_id}/{slot}",
                    "artifactHash": artifact,
                    "provenance": [
                        {
                            "id": "test",
                            "kind": "test-receipt",
                            "verification": "verified",
                            "hash": artifact,
                        }
                    ],
                }
            )
    run.update(
        {
            "wallHours": hours,
            "agentRuntimeHours": hours,
            "humanReviewHours": 0,
            "assistanceMode": "autonomous",
            "costUSD": 0,
            "wallBreakdown": {
                "executionHours": hours,
                "retryHours": 0,
                "reviewHours": 0,
                "blockingWaitHours": 0,
                "otherHours": 0,
            },
            "policyViolations": [],
            "outcomes": outcomes,
        }
    )
    return run


def campaign_documents(simulated: SimulatedCampaigns) -> tuple[dict[str, Any], dict[str, Any]]:
    """The frozen manifest and the comparison {pairs} of a simulation made with ``record``."""
    if not simulated.credited:
        raise ValueError("simulate with record=True to build documents")
    parent, candidate = simulated.credited
    slots_per_family = len(parent[0][0])
    manifest = _manifest(simulated, slots_per_family)
    design = simulated.design
    pairs = [
        {
            "parent": _run(manifest, parent[r], design.parent.hours[r], f"p{r:02d}", r),
            "candidate": _run(manifest, candidate[r], design.candidate.hours[r], f"c{r:02d}", r),
        }
        for r in range(design.pairs)
    ]
    return manifest, {"pairs": pairs}
