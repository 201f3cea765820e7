"""More APx golden vectors: refusals, hashing, bounds, the bootstrap, promotion and importers."""

from __future__ import annotations

import json
from typing import Any

from vectorlib import (
    MODES,
    V,
    _case,
    campaign,
    drop_run,
    exact,
    measured,
    partial,
    refrozen,
    refusal,
    set_outcome,
    set_run,
)

from apconform.apx import freeze
from apconform.apx.hashing import digest
from apconform.apx.tutorial import tutorial_manifest

Doc = dict[str, Any]
EVAL, CMP = "apx.evaluate", "apx.compare"


def _number(label: str, low: str, high: str) -> str:
    return f"{V}{label} must be finite in [{low}, {high}]"


def run_refusals() -> None:
    cost = _number("costUSD", "0", "1000000000000")
    rows: list[tuple[str, list[str], Any, str, str, str]] = [
        (
            "cost-negative",
            ["APX-VAL-5", "APX-VAL-4"],
            set_run(costUSD=-1),
            "APX-VAL-NUMBER",
            cost,
            "A negative cost",
        ),
        (
            "cost-null",
            ["APX-VAL-5"],
            set_run(costUSD=None),
            "APX-VAL-NUMBER",
            cost,
            "A null (unknown) cost is not scored as zero",
        ),
        (
            "cost-missing",
            ["APX-VAL-5"],
            drop_run("costUSD"),
            "APX-VAL-NUMBER",
            cost,
            "A missing cost",
        ),
        (
            "wall-zero",
            ["APX-VAL-5", "APX-VAL-4"],
            set_run(wallHours=0),
            "APX-VAL-NUMBER",
            _number("wallHours", "1e-9", "1000000"),
            "Zero wall time",
        ),
        (
            "runtime-negative",
            ["APX-VAL-5"],
            set_run(agentRuntimeHours=-1),
            "APX-VAL-NUMBER",
            _number("agentRuntimeHours", "0", "1000000000"),
            "Negative agent runtime",
        ),
        (
            "quality-above-one",
            ["APX-VAL-12"],
            set_outcome(0, quality=1.1),
            "APX-VAL-NUMBER",
            _number("outcome.quality", "0", "1"),
            "Quality 1.1",
        ),
        (
            "quality-below-zero",
            ["APX-VAL-12"],
            set_outcome(0, quality=-0.1),
            "APX-VAL-NUMBER",
            _number("outcome.quality", "0", "1"),
            "Quality -0.1",
        ),
        (
            "mode-missing",
            ["APX-VAL-4"],
            drop_run("assistanceMode"),
            "APX-VAL-ENUM",
            f"{V}assistanceMode must be one of {MODES}",
            "A missing assistance mode",
        ),
        (
            "autonomous-with-review",
            ["APX-VAL-9"],
            set_run(assistanceMode="autonomous"),
            "APX-RUN-AUTONOMOUS",
            f"{V}autonomous mode cannot hide human review; use evaluation-only or supervised",
            "Autonomous mode with 0.05 human hours",
        ),
        (
            "review-below-elapsed",
            ["APX-VAL-9"],
            set_run(humanReviewHours=0.01),
            "APX-RUN-REVIEW-HOURS",
            f"{V}humanReviewHours cannot be less than elapsed reviewHours",
            "0.01 human hours against 0.05 elapsed review hours",
        ),
        (
            "policy-violations-missing",
            ["APX-VAL-4"],
            drop_run("policyViolations"),
            "APX-VAL-ARRAY",
            f"{V}policyViolations must contain 0..100 entries",
            "A missing policyViolations array",
        ),
        (
            "artifact-hash-short",
            ["APX-VAL-12", "APX-VAL-4"],
            set_outcome(0, artifactHash="abc"),
            "APX-VAL-DIGEST",
            f"{V}artifactHash must be a SHA-256 lowercase hex digest",
            "artifactHash 'abc'",
        ),
        (
            "run-id-blank",
            ["APX-DOC-3", "APX-VAL-4"],
            set_run(id="  \ufeff "),
            "APX-VAL-STRING",
            f"{V}run.id must be a nonempty string <= 256 characters",
            "A run id of white space only (ECMAScript trim removes U+FEFF too)",
        ),
        (
            "run-id-astral-257",
            ["APX-DOC-3"],
            set_run(id="\U0001f600" * 129),
            "APX-VAL-STRING",
            f"{V}run.id must be a nonempty string <= 256 characters",
            "A run id of 129 astral characters (258 UTF-16 code units, over the 256 limit; "
            "valid by the apx-run JSON Schema, whose maxLength counts 129 code points)",
        ),
        (
            "partition-mismatch",
            ["APX-HASH-4"],
            set_run(partition="selection"),
            "APX-RUN-PARTITION",
            f"{V}run partition mismatch",
            "A selection run on a holdout suite",
        ),
    ]
    for component in ("suite", "baseline", "evaluator", "environment"):
        rows.append(
            (
                f"forged-{component}-hash",
                ["APX-HASH-4"],
                set_run(**{f"{component}Hash": "0" * 64}),
                "APX-RUN-HASH",
                f"{V}run {component}Hash mismatch",
                f"A forged {component}Hash",
            )
        )
    for name, clauses, change, code, message, what in rows:
        _case(
            "validation",
            f"apx-refuse-{name}",
            clauses,
            EVAL,
            f"{what} is refused with the contract's message.",
            campaign(change),
            refusal(code, message),
        )
    _case(
        "validation",
        "apx-accept-run-id-astral-256",
        ["APX-DOC-3"],
        EVAL,
        "128 astral characters are exactly 256 UTF-16 code units: accepted.",
        campaign(set_run(id="\U0001f600" * 128)),
        partial(runId="\U0001f600" * 128),
    )

    def breakdown(change: Any) -> Any:
        def edit(_: Doc, run: Doc) -> None:
            change(run["wallBreakdown"])

        return edit

    _case(
        "validation",
        "apx-refuse-wall-segment-missing",
        ["APX-VAL-10"],
        EVAL,
        "A breakdown without blockingWaitHours is refused.",
        campaign(breakdown(lambda w: w.pop("blockingWaitHours"))),
        refusal("APX-VAL-NUMBER", _number("wallBreakdown.blockingWaitHours", "0", "1000000")),
    )
    _case(
        "validation",
        "apx-refuse-wall-sum",
        ["APX-VAL-10"],
        EVAL,
        "Execution hours of 10 in a 0.5-hour window do not sum to wallHours.",
        campaign(breakdown(lambda w: w.update(executionHours=10))),
        refusal("APX-RUN-WALL-SUM", f"{V}wallBreakdown does not sum to total"),
    )

    def pop(_: Doc, run: Doc) -> None:
        run["outcomes"].pop()

    coverage = f"{V}outcomes must include every frozen task slot, including failures"
    _case(
        "validation",
        "apx-refuse-missing-slot",
        ["APX-VAL-11"],
        EVAL,
        "A frozen slot without an outcome cannot vanish.",
        campaign(pop),
        refusal("APX-RUN-COVERAGE", coverage),
    )
    _case(
        "validation",
        "apx-refuse-unknown-slot",
        ["APX-VAL-11"],
        EVAL,
        "An outcome for a slot the suite does not have is refused.",
        campaign(set_outcome(0, slotId="unknown-task")),
        refusal("APX-RUN-COVERAGE", coverage),
    )
    _case(
        "validation",
        "apx-refuse-duplicate-slot",
        ["APX-VAL-11"],
        EVAL,
        "Two outcomes for one slot are refused.",
        campaign(set_outcome(1, slotId="finance-1")),
        refusal("APX-VAL-DUPLICATE", f"{V}outcome slot IDs contains duplicates"),
    )

    def relabel(_: Doc, run: Doc) -> None:
        run["outcomes"][0]["provenance"][0]["kind"] = "human-adjudication"

    _case(
        "validation",
        "apx-refuse-reviewer-missing",
        ["APX-VAL-12"],
        EVAL,
        "A human adjudication must name its reviewer.",
        campaign(relabel),
        refusal(
            "APX-VAL-STRING", f"{V}evidence.reviewerId must be a nonempty string <= 256 characters"
        ),
    )

    def duplicate_evidence(_: Doc, run: Doc) -> None:
        entries = run["outcomes"][0]["provenance"]
        entries.append(dict(entries[0]))

    _case(
        "validation",
        "apx-refuse-duplicate-evidence",
        ["APX-VAL-12"],
        EVAL,
        "Two evidence entries with one id are refused.",
        campaign(duplicate_evidence),
        refusal("APX-VAL-DUPLICATE", f"{V}evidence IDs within outcome contains duplicates"),
    )

    def null_outcome(_: Doc, run: Doc) -> None:
        run["outcomes"][1] = None

    _case(
        "validation",
        "apx-refuse-null-outcome",
        ["APX-VAL-3"],
        EVAL,
        "A null outcome is a clear refusal, never an internal error.",
        campaign(null_outcome),
        refusal("APX-VAL-OBJECT", f"{V}outcome must be an object"),
    )

    def many_faults(_: Doc, run: Doc) -> None:
        del run["assistanceMode"]
        run["costUSD"] = -1
        run["outcomes"][0]["quality"] = 1.1

    _case(
        "validation",
        "apx-refuse-first-of-many",
        ["APX-VAL-1", "APX-VAL-2"],
        EVAL,
        "With a missing assistance mode, a negative cost and quality 1.1, the first "
        "violation is the assistance mode, as the contract's check order has it.",
        campaign(many_faults),
        refusal("APX-VAL-ENUM", f"{V}assistanceMode must be one of {MODES}"),
    )
    _case(
        "validation",
        "apx-accept-unknown-members",
        ["APX-DOC-2"],
        EVAL,
        "Members the contract does not define are ignored in a run, an outcome and evidence.",
        campaign(_unknown_run_members),
        partial(AP=9),
        tolerant=True,
    )


def _unknown_run_members(_: Doc, run: Doc) -> None:
    run["notes"] = {"operator": "night shift"}
    run["outcomes"][0]["reviewNote"] = "looked fine"
    run["outcomes"][0]["provenance"][0]["uri"] = "file:///receipts/1"


def manifest_refusals() -> None:
    def edit_hours(manifest: Doc, _: Doc) -> None:
        manifest["baseline"]["attempts"][0]["hours"] = 100

    def edit_threshold(manifest: Doc, _: Doc) -> None:
        manifest["evaluator"]["qualityThreshold"] = 0.1

    for name, change, message in (
        ("baseline", edit_hours, "baseline frozen hash mismatch"),
        ("evaluator", edit_threshold, "evaluator frozen hash mismatch"),
    ):
        _case(
            "manifest",
            f"apx-refuse-edited-{name}",
            ["APX-HASH-3"],
            EVAL,
            f"Editing the frozen {name} without refreezing is detected by its hash.",
            campaign(change),
            refusal("APX-MAN-HASH", V + message),
        )

    def schema(manifest: Doc, _: Doc) -> None:
        manifest["schemaVersion"] = "apx/0.2"

    _case(
        "manifest",
        "apx-refuse-schema-version",
        ["APX-DOC-1"],
        EVAL,
        "An unknown manifest version fails closed.",
        campaign(schema),
        refusal("APX-MAN-VERSION", f"{V}unsupported schemaVersion"),
    )

    def suite_extra(manifest: Doc, _: Doc) -> None:
        manifest["suite"]["title"] = "Toy tutorial"

    _case(
        "manifest",
        "apx-accept-unknown-suite-member",
        ["APX-DOC-2", "APX-HASH-2"],
        EVAL,
        "An unknown suite member is accepted and covered by the suite hash once refrozen.",
        refrozen(suite_extra),
        partial(AP=9),
        tolerant=True,
    )
    _case(
        "manifest",
        "apx-refuse-unknown-member-unfrozen",
        ["APX-DOC-2", "APX-HASH-3"],
        EVAL,
        "The same member added without refreezing changes the suite's digest.",
        campaign(suite_extra),
        refusal("APX-MAN-HASH", f"{V}suite frozen hash mismatch"),
    )
    rows = [
        (
            "attempt-omitted",
            ["APX-VAL-7"],
            _pop_attempt,
            "APX-MAN-ATTEMPTS",
            "baseline attempts must match every predeclared attempt, including failures",
            "Dropping the last failed attempt",
        ),
        (
            "class-uncalibrated",
            ["APX-CAL-2", "APX-CAL-1", "APX-CAL-3"],
            _fail_success,
            "APX-CAL-UNDEFINED",
            "baseline class financial-reconciliation has no accepted attempts; cannot calibrate",
            "A class whose only success becomes a failure",
        ),
        (
            "tools-missing",
            ["APX-VAL-7"],
            _drop_tools,
            "APX-VAL-ARRAY",
            "cohort.tools must contain 1..100 entries",
            "A cohort without tools",
        ),
        (
            "split-ids-equal",
            ["APX-VAL-6"],
            _same_split,
            "APX-MAN-SPLIT",
            "selection and holdout IDs must be separate",
            "selectionId equal to holdoutId",
        ),
        (
            "class-outside-suite",
            ["APX-VAL-7"],
            _outside_class,
            "APX-MAN-CLASS",
            "baseline contains a class outside the suite",
            "An attempt of a class no slot has",
        ),
        (
            "slot-ids-duplicate",
            ["APX-VAL-6"],
            _duplicate_slot,
            "APX-VAL-DUPLICATE",
            "suite.slots contains duplicates",
            "Two slots with one id",
        ),
        (
            "slot-id-reserved",
            ["APX-VAL-4"],
            _reserved_slot,
            "APX-VAL-RESERVED-ID",
            "slot.id uses a reserved identifier",
            "A slot id __proto__",
        ),
    ]
    for reserved in ("__proto__", "constructor", "prototype"):
        rows.append(
            (
                f"class-{reserved.strip('_')}",
                ["APX-VAL-4"],
                _reserved_class(reserved),
                "APX-VAL-RESERVED-ID",
                "slot.classId uses a reserved identifier",
                f"A class id {reserved}",
            )
        )
    for name, clauses, change, code, message, what in rows:
        _case(
            "manifest",
            f"apx-refuse-{name}",
            clauses,
            EVAL,
            f"{what}, refrozen, is refused.",
            refrozen(change),
            refusal(code, V + message),
        )

    def zero_task_set(manifest: Doc, _: Doc) -> None:
        suite = manifest["suite"]
        suite["taskSetHash"] = "0" * 64
        suite["hash"] = digest({k: v for k, v in suite.items() if k != "hash"})

    _case(
        "manifest",
        "apx-refuse-task-set-hash",
        ["APX-HASH-3"],
        EVAL,
        "A zeroed taskSetHash under a recomputed suite hash is still caught.",
        campaign(zero_task_set),
        refusal("APX-MAN-TASKSET", f"{V}taskSetHash mismatch"),
    )
    manifest = tutorial_manifest()
    _case(
        "manifest",
        "apx-validate-manifest-demo",
        ["APX-CAL-1", "APX-CAL-2", "APX-CAL-3", "APX-HASH-3"],
        "apx.validate_manifest",
        "The demo manifest is valid; each class has H = (1 + 0.5) / 1 = 1.5.",
        {"manifest": manifest},
        exact(
            {
                "valid": True,
                "calibration": {
                    name: {"referenceHumanHours": 1.5, "attempts": 2, "accepted": 1}
                    for name in (
                        "financial-reconciliation",
                        "source-prioritization",
                        "output-verification",
                    )
                },
            }
        ),
    )
    manifest = tutorial_manifest()
    manifest["baseline"]["attempts"].append(
        {"id": "h-0-3", "classId": "financial-reconciliation", "hours": 2, "accepted": True}
    )
    manifest["baseline"]["predeclaredAttemptIds"].append("h-0-3")
    _case(
        "manifest",
        "apx-calibration-failures-count",
        ["APX-CAL-1", "APX-CAL-3"],
        "apx.validate_manifest",
        "Attempts 1 h (accepted), 0.5 h (failed) and 2 h (accepted) give H = 3.5 / 2 = 1.75.",
        {"manifest": freeze(manifest)},
        partial(
            pointers={
                "/calibration/financial-reconciliation": {
                    "referenceHumanHours": 1.75,
                    "attempts": 3,
                    "accepted": 2,
                }
            }
        ),
    )


def _pop_attempt(manifest: Doc, _: Doc) -> None:
    manifest["baseline"]["attempts"].pop()


def _fail_success(manifest: Doc, _: Doc) -> None:
    manifest["baseline"]["attempts"][0]["accepted"] = False


def _drop_tools(manifest: Doc, _: Doc) -> None:
    del manifest["baseline"]["cohort"]["tools"]


def _same_split(manifest: Doc, _: Doc) -> None:
    manifest["suite"]["selectionId"] = manifest["suite"]["holdoutId"]


def _outside_class(manifest: Doc, _: Doc) -> None:
    baseline = manifest["baseline"]
    baseline["attempts"].append({"id": "h-x", "classId": "elsewhere", "hours": 1, "accepted": True})
    baseline["predeclaredAttemptIds"].append("h-x")


def _duplicate_slot(manifest: Doc, _: Doc) -> None:
    manifest["suite"]["slots"][1]["id"] = "finance-1"


def _reserved_slot(manifest: Doc, run: Doc) -> None:
    manifest["suite"]["slots"][0]["id"] = "__proto__"
    run["outcomes"][0]["slotId"] = "__proto__"


def _reserved_class(name: str) -> Any:
    def change(manifest: Doc, _: Doc) -> None:
        manifest["suite"]["slots"][0]["classId"] = name
        for attempt in manifest["baseline"]["attempts"][:2]:
            attempt["classId"] = name

    return change


def measured_refusals() -> None:
    def relabel(manifest: Doc, run: Doc) -> None:
        manifest["baseline"]["kind"] = "measured"
        run["kind"] = "measured"

    _case(
        "measured",
        "apx-refuse-measured-without-protocol",
        ["APX-VAL-8"],
        EVAL,
        "A baseline relabelled measured and refrozen lacks its calibration protocol.",
        refrozen(relabel),
        refusal("APX-VAL-OBJECT", f"{V}measured baseline.protocol must be an object"),
    )
    binding = f"{V}measured outcome evidence binding mismatch"
    _case(
        "measured",
        "apx-refuse-run-relabelled-measured",
        ["APX-VAL-13"],
        EVAL,
        "A synthetic run relabelled measured fails at the first binding check.",
        campaign(set_run(kind="measured")),
        refusal("APX-RUN-EVIDENCE-BINDING", binding),
    )
    for member in ("slotId", "artifactHash", "evaluatorHash", "runId"):

        def unbind(_: Doc, run: Doc, member: str = member) -> None:
            run["outcomes"][0]["provenance"][0][member] = "mismatch"

        _case(
            "measured",
            f"apx-refuse-evidence-{member.lower()}-unbound",
            ["APX-VAL-13"],
            EVAL,
            f"Measured evidence whose {member} does not bind it is refused.",
            measured(unbind),
            refusal("APX-RUN-EVIDENCE-BINDING", binding),
        )
    independent = f"{V}measured outcomes require independent human adjudication in v0.1"
    for name, member, value in (
        ("not-independent", "independent", False),
        ("test-receipt", "kind", "test-receipt"),
    ):

        def edit(_: Doc, run: Doc, member: str = member, value: Any = value) -> None:
            run["outcomes"][0]["provenance"][0][member] = value

        _case(
            "measured",
            f"apx-refuse-measured-{name}",
            ["APX-VAL-13"],
            EVAL,
            f"Measured evidence with {member} {json.dumps(value)} is not independent human "
            "adjudication.",
            measured(edit),
            refusal("APX-RUN-EVIDENCE-INDEPENDENT", independent),
        )

    def flip(_: Doc, run: Doc) -> None:
        run["outcomes"][0]["provenance"][0]["decision"] = "rejected"

    _case(
        "measured",
        "apx-refuse-measured-decision",
        ["APX-VAL-13"],
        EVAL,
        "A rejecting adjudication on an accepted outcome is refused.",
        measured(flip),
        refusal("APX-RUN-EVIDENCE-DECISION", f"{V}measured outcome adjudication decision mismatch"),
    )
    _case(
        "measured",
        "apx-refuse-measured-no-evidence",
        ["APX-VAL-13"],
        EVAL,
        "An accepted measured outcome without evidence is refused.",
        measured(set_outcome(0, provenance=[])),
        refusal(
            "APX-RUN-EVIDENCE-VERIFIED",
            f"{V}measured accepted outcome requires verified independent adjudication",
        ),
    )
    rows: list[tuple[str, Any, str, str]] = [
        (
            "participant-missing",
            _attempt_edit(lambda a: a.pop("participantId")),
            "APX-MAN-PARTICIPANT",
            "measured attempt must identify a declared cohort participant",
        ),
        (
            "provenance-missing",
            _attempt_edit(lambda a: a.pop("provenanceHash")),
            "APX-VAL-DIGEST",
            "measured attempt.provenanceHash must be a SHA-256 lowercase hex digest",
        ),
        (
            "adjudication-missing",
            _attempt_edit(lambda a: a.pop("adjudication")),
            "APX-VAL-OBJECT",
            "measured attempt.adjudication must be an object",
        ),
        (
            "self-review",
            _attempt_edit(lambda a: a["adjudication"].update(reviewerId="participant-1")),
            "APX-MAN-SELF-REVIEW",
            "baseline reviewer cannot adjudicate their own attempt",
        ),
        (
            "adjudication-flipped",
            _attempt_edit(lambda a: a["adjudication"].update(decision="rejected")),
            "APX-MAN-ADJUDICATION-BINDING",
            "baseline adjudication binding mismatch",
        ),
        (
            "adjudication-not-independent",
            _attempt_edit(lambda a: a["adjudication"].update(independent=False)),
            "APX-MAN-ADJUDICATION",
            "measured baseline requires independent human adjudication",
        ),
        (
            "protocol-evaluator",
            _protocol_edit(evaluatorHash="0" * 64),
            "APX-MAN-PROTOCOL-BINDING",
            "calibration protocol evaluator binding mismatch",
        ),
        (
            "protocol-time",
            _protocol_edit(predeclaredAt="yesterday"),
            "APX-MAN-PROTOCOL-TIME",
            "calibration protocol requires a valid predeclaration timestamp",
        ),
    ]
    for name, change, code, message in rows:
        _case(
            "measured",
            f"apx-refuse-baseline-{name}",
            ["APX-VAL-8"],
            EVAL,
            f"A measured baseline with '{name.replace('-', ' ')}', refrozen, is refused.",
            measured(change, refreeze=True),
            refusal(code, V + message),
        )


def _attempt_edit(edit: Any) -> Any:
    def change(manifest: Doc, _: Doc) -> None:
        edit(manifest["baseline"]["attempts"][0])

    return change


def _protocol_edit(**members: Any) -> Any:
    def change(manifest: Doc, _: Doc) -> None:
        manifest["baseline"]["protocol"].update(members)

    return change


def more() -> None:
    from vector_cases_tail import tail

    run_refusals()
    manifest_refusals()
    measured_refusals()
    tail()


__all__ = ["more"]
