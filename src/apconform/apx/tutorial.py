"""The deterministic tutorial campaign: three toy tasks, a synthetic baseline, one frozen manifest.

The toy tasks really run (a reconciliation, a ranking, running totals) and
their outputs become the artifacts; everything human in the campaign (the
baseline hours, the cohort, the workflow time and cost) is synthetic and
labelled so. With the default arguments the campaign is the one the APx
reference kernel ships as its demo, so its digests and its result (AP 9,
APx log2 9) can be compared with that kernel's.
"""

from __future__ import annotations

from typing import Any

from apconform.apx.hashing import COMPONENTS, digest, freeze

__all__ = [
    "NOTICE",
    "measure_run",
    "measured_tutorial",
    "toy_checks",
    "tutorial_campaign",
    "tutorial_manifest",
    "tutorial_pairs",
    "tutorial_run",
]

NOTICE = (
    "SYNTHETIC TUTORIAL: the three toy tasks really ran; the human calibration, workflow "
    "duration, costs and agent runtime are synthetic. This is no evidence of any human "
    "productivity claim."
)

_SLOTS = (
    ("finance-1", "financial-reconciliation"),
    ("research-1", "source-prioritization"),
    ("software-1", "output-verification"),
)


def toy_checks() -> list[dict[str, Any]]:
    """Run the three toy tasks; each check records its slot, its output and whether it passed."""
    cents = 0
    for amount in (1900, 3250, -125, 700, -225):
        cents += amount
    records: list[dict[str, Any]] = [
        {"id": "secondary", "primary": False, "date": 3},
        {"id": "older-primary", "primary": True, "date": 1},
        {"id": "current-primary", "primary": True, "date": 2},
    ]
    ranked = sorted(records, key=lambda record: (not record["primary"], -record["date"]))
    ranking = [record["id"] for record in ranked]
    totals: list[int] = []
    running = 0
    for step in (2, -1, 4, 0):
        running += step
        totals.append(running)
    return [
        {"slotId": "finance-1", "result": {"cents": cents}, "passed": cents == 5500},
        {
            "slotId": "research-1",
            "result": {"ranking": ranking},
            "passed": ranking == ["current-primary", "older-primary", "secondary"],
        },
        {
            "slotId": "software-1",
            "result": {"runningTotals": totals},
            "passed": totals == [2, 1, 5, 5],
        },
    ]


def tutorial_manifest(*, partition: str = "holdout") -> dict[str, Any]:
    """The frozen tutorial manifest: 3 slots in 3 classes, each calibrated to 1.5 hours."""
    slots = [{"id": slot_id, "classId": class_id} for slot_id, class_id in _SLOTS]
    attempts = []
    for index, (_, class_id) in enumerate(_SLOTS):
        attempts.append({"id": f"h-{index}-1", "classId": class_id, "hours": 1, "accepted": True})
        attempts.append(
            {"id": f"h-{index}-2", "classId": class_id, "hours": 0.5, "accepted": False}
        )
    return freeze(
        {
            "schemaVersion": "apx/0.1",
            "suite": {
                "id": "apx-toy-tutorial",
                "version": "0.1.0",
                "selectionId": "tutorial-selection-v1",
                "holdoutId": "tutorial-holdout-v1",
                "partition": partition,
                "slots": slots,
            },
            "baseline": {
                "id": "illustrative-human-reference",
                "version": "0.1.0",
                "kind": "synthetic",
                "cohort": {
                    "id": "not-a-measured-human-cohort",
                    "tools": ["illustrative calculator and editor"],
                    "skills": ["illustrative general knowledge"],
                },
                "predeclaredAttemptIds": [attempt["id"] for attempt in attempts],
                "attempts": attempts,
            },
            "evaluator": {
                "id": "deterministic-toy-checks",
                "version": "0.1.0",
                "qualityThreshold": 0.8,
            },
            "environment": {
                "id": "tutorial-local",
                "version": "0.1.0",
                "description": (
                    "Dependency-free Node toy runners. Synthetic workflow costs and durations. "
                    "Not a rUv measurement."
                ),
            },
        }
    )


def tutorial_run(
    manifest: dict[str, Any],
    *,
    run_id: str = "demo-1",
    independence_id: str = "campaign-1",
    wall_hours: float = 0.5,
    cost_usd: float = 0.1,
    checks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A synthetic evaluation-only run of the toy tasks, bound to ``manifest``."""
    done = toy_checks() if checks is None else checks
    run: dict[str, Any] = {
        "id": run_id,
        "independenceId": independence_id,
        "kind": "synthetic",
        "partition": manifest["suite"]["partition"],
    }
    for key in COMPONENTS:
        run[f"{key}Hash"] = manifest[key]["hash"]
    run.update(
        {
            "wallHours": wall_hours,
            "agentRuntimeHours": wall_hours * 3,
            "humanReviewHours": max(0.05, wall_hours * 0.1),
            "assistanceMode": "evaluation-only",
            "costUSD": cost_usd,
            "wallBreakdown": {
                "executionHours": wall_hours * 0.6,
                "retryHours": wall_hours * 0.1,
                "reviewHours": wall_hours * 0.1,
                "blockingWaitHours": wall_hours * 0.1,
                "otherHours": wall_hours * 0.1,
            },
            "policyViolations": [],
            "outcomes": [
                {
                    "slotId": check["slotId"],
                    "accepted": check["passed"],
                    "quality": 1 if check["passed"] else 0,
                    "safety": "pass",
                    "deliverableId": f"deliverable-{check['slotId']}",
                    "artifactHash": digest(check["result"]),
                    "provenance": [
                        {
                            "id": f"test-{check['slotId']}",
                            "kind": "test-receipt",
                            "verification": "verified",
                            "hash": digest(check),
                        }
                    ],
                }
                for check in done
            ],
        }
    )
    return run


def tutorial_campaign() -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest and run of the default tutorial campaign."""
    manifest = tutorial_manifest()
    return manifest, tutorial_run(manifest)


def measured_tutorial() -> tuple[dict[str, Any], dict[str, Any]]:
    """The tutorial campaign relabelled as measured, with every binding the rules require.

    It shows the shape of a measured baseline (protocol, participants,
    provenance, independent adjudications) and of a measured run (independent
    adjudications bound to slot, artifact, evaluator and run). The data stay
    illustrative: labelling a record measured authenticates nothing.
    """
    manifest = tutorial_manifest()
    baseline, evaluator = manifest["baseline"], manifest["evaluator"]
    baseline["kind"] = "measured"
    baseline["cohort"]["participantIds"] = ["participant-1"]
    baseline["protocol"] = {
        "id": "calibration-protocol-1",
        "version": "1",
        "predeclaredAt": "2026-09-01T00:00:00Z",
        "timeBoundary": "single-worker elapsed complete attempt including retries and wait",
        "acceptanceRule": "same frozen acceptance criteria",
        "evaluatorId": evaluator["id"],
        "evaluatorHash": evaluator["hash"],
    }
    for attempt in baseline["attempts"]:
        attempt["participantId"] = "participant-1"
        attempt["provenanceHash"] = digest(f"human-log-{attempt['id']}")
        attempt["adjudication"] = {
            "kind": "human-adjudication",
            "independent": True,
            "reviewerId": "independent-reviewer",
            "hash": digest(f"human-verdict-{attempt['id']}"),
            "attemptId": attempt["id"],
            "participantId": attempt["participantId"],
            "evaluatorId": evaluator["id"],
            "evaluatorHash": evaluator["hash"],
            "provenanceHash": attempt["provenanceHash"],
            "decision": "accepted" if attempt["accepted"] else "rejected",
        }
    manifest = freeze(manifest)
    return manifest, measure_run(manifest, tutorial_run(manifest))


def measure_run(manifest: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """``run`` labelled measured, each outcome carrying one bound, independent adjudication."""
    run["kind"] = "measured"
    for outcome in run["outcomes"]:
        outcome["provenance"] = [
            {
                "id": f"adjudication-{outcome['slotId']}",
                "kind": "human-adjudication",
                "verification": "verified",
                "independent": True,
                "decision": "accepted" if outcome["accepted"] else "rejected",
                "reviewerId": "independent-reviewer",
                "hash": digest(f"verdict-{outcome['slotId']}"),
                "slotId": outcome["slotId"],
                "artifactHash": outcome["artifactHash"],
                "evaluatorHash": manifest["evaluator"]["hash"],
                "runId": run["id"],
            }
        ]
    return run


def tutorial_pairs(
    manifest: dict[str, Any],
    parent_hours: list[float],
    candidate_hours: list[float],
    *,
    parent_cost: float = 0.1,
    candidate_cost: float = 0.1,
) -> list[dict[str, Any]]:
    """Paired tutorial campaigns: parents ``p-i`` and candidates ``c-i`` under ``pair-i``."""
    return [
        {
            "parent": tutorial_run(
                manifest,
                run_id=f"p-{index}",
                independence_id=f"pair-{index}",
                wall_hours=parent,
                cost_usd=parent_cost,
            ),
            "candidate": tutorial_run(
                manifest,
                run_id=f"c-{index}",
                independence_id=f"pair-{index}",
                wall_hours=candidate,
                cost_usd=candidate_cost,
            ),
        }
        for index, (parent, candidate) in enumerate(zip(parent_hours, candidate_hours, strict=True))
    ]
