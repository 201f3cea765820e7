"""The APx golden vectors (run this file to rewrite vectors/apx/).

Every expectation is stated by hand from the APx reference kernel's tests and
golden figures (AP 9, the promotion intervals, the refusal texts). The few
whole-document expectations are computed by this kernel and then checked
here against those figures before they are written. test_vector_files.py
fails when the committed files differ from what this file writes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from vectorlib import (
    LOG2_9,
    ROOT,
    VECTORS,
    V,
    _case,
    campaign,
    exact,
    measured,
    partial,
    refusal,
    render,
    set_outcome,
    set_run,
)

from apconform.apx import evaluate_document, freeze
from apconform.apx.hashing import digest
from apconform.apx.tutorial import (
    tutorial_campaign,
    tutorial_manifest,
    tutorial_run,
)

Doc = dict[str, Any]
NUMBER, STRING, ARRAY = "APX-VAL-NUMBER", "APX-VAL-STRING", "APX-VAL-ARRAY"
EVAL, CMP = "apx.evaluate", "apx.compare"
ZERO_WORK = (
    "No slot earned credit (3 declared, 0 credited), so AP is 0 and APx, the base-2 logarithm "
    "of AP, is undefined and reported as null. Unknown inputs would have produced no score at "
    "all, not zero work."
)


def arithmetic() -> None:
    request = campaign()
    result = evaluate_document(request["manifest"], request["run"])
    assert result["AP"] == 9 and result["APx"] == LOG2_9 and result["creditedHumanHours"] == 4.5
    assert result["humanLeverage"] == 90 and result["acceptance"] == 1
    _case(
        "result",
        "apx-eval-demo-exact",
        [
            "APX-QTY-1",
            "APX-QTY-2",
            "APX-QTY-3",
            "APX-CAL-1",
            "APX-CREDIT-5",
            "APX-ELIG-1",
            "APX-ELIG-2",
            "APX-ELIG-3",
            "APX-RES-1",
            "APX-RES-2",
            "APX-RES-3",
            "APX-RES-4",
            "APX-DOC-1",
            "APX-DOC-3",
            "APX-VAL-1",
            "APX-VAL-3",
            "APX-VAL-4",
            "APX-VAL-5",
            "APX-VAL-6",
            "APX-VAL-7",
            "APX-VAL-9",
            "APX-VAL-10",
            "APX-VAL-11",
            "APX-VAL-12",
            "APX-HASH-3",
            "APX-HASH-4",
            "APX-CLAIM-1",
        ],
        EVAL,
        "The reference demo campaign: three toy tasks credited at H = 1.5 each, W = 4.5 over "
        "T = 0.5 gives AP 9 and APx log2 9; the whole result document, added members included.",
        request,
        exact(result),
        tolerant=True,
    )
    for name, work, wall, power, exponent in (
        ("parity", 8, 8, 1, 0),
        ("doubling-minus-5", 2**-5, 1, 2**-5, -5),
        ("doubling-3", 8, 1, 8, 3),
        ("doubling-10", 1024, 1, 1024, 10),
        ("zero-work", 0, 8, 0, None),
    ):
        _case(
            "arithmetic",
            f"apx-power-{name}",
            ["APX-QTY-3"],
            "apx.power_metrics",
            f"W = {work} over T = {wall}: AP {power}, "
            + (
                "APx null (log2 of 0 has no value)."
                if exponent is None
                else f"APx {exponent} (exact at powers of two)."
            ),
            {"creditedHumanHours": work, "wallHours": wall},
            exact({"AP": power, "APx": exponent}),
        )
    # Non-integer exponents at several magnitudes: an implementation that rounds APx (to
    # 6 decimals, say) or computes it in single precision fails every one of these.
    for name, work, wall in (
        ("ninefold", 9, 1),
        ("one-tenth-above-parity", 1.1, 1),
        ("three-quarters", 3, 4),
        ("large", 1_000_000, 3),
        ("very-large", 123456.789, 0.001),
        ("small", 0.003, 7),
        ("very-small", 1e-9, 1000),
    ):
        power = work / wall
        exponent = math.log2(power)
        assert not exponent.is_integer() and round(exponent, 6) != exponent
        _case(
            "arithmetic",
            f"apx-power-{name}",
            ["APX-QTY-3"],
            "apx.power_metrics",
            f"W = {work} over T = {wall}: AP {power!r} and the non-integer APx log2(AP) = "
            f"{exponent!r}, compared to a relative 1e-15.",
            {"creditedHumanHours": work, "wallHours": wall},
            exact({"AP": power, "APx": exponent}),
            tolerant=True,
        )
    bad = "Finite nonnegative work and positive wall time required"
    for name, work, wall in (("negative-work", -1, 1), ("zero-wall", 1, 0), ("text-wall", 1, "8")):
        _case(
            "arithmetic",
            f"apx-power-refuses-{name}",
            ["APX-QTY-4"],
            "apx.power_metrics",
            f"W = {json.dumps(work)}, T = {json.dumps(wall)} is refused: work must be >= 0 "
            "and time > 0, both finite.",
            {"creditedHumanHours": work, "wallHours": wall},
            refusal("APX-METRIC-INPUT", bad),
        )
    _case(
        "arithmetic",
        "apx-exponent-4",
        ["APX-QTY-4"],
        "apx.exponent_to_power",
        "2 to the power 4 is 16.",
        {"exponent": 4},
        exact({"AP": 16}),
    )
    for exponent in (2000, -2000):
        _case(
            "arithmetic",
            f"apx-exponent-refuses-{'minus-' if exponent < 0 else ''}2000",
            ["APX-QTY-4"],
            "apx.exponent_to_power",
            f"2 to the power {exponent} is not a positive finite double, so it is refused.",
            {"exponent": exponent},
            refusal("APX-METRIC-EXPONENT", "Exponent outside representable range"),
        )


def fractional_exponents() -> None:
    """The whole kernel at several elapsed times: W stays 4.5, so AP and APx move with T only."""
    for name, wall in (
        ("hours-0-7", 0.7),
        ("hours-3", 3),
        ("hours-250", 250),
        ("hours-0-003", 0.003),
        ("hours-12345-6", 12345.6),
    ):
        manifest = tutorial_manifest()
        run = tutorial_run(manifest, wall_hours=wall)
        result = evaluate_document(manifest, run)
        power, exponent = 4.5 / wall, math.log2(4.5 / wall)
        assert result["AP"] == power and abs(result["APx"] - exponent) <= 1e-15 * abs(exponent)
        assert not exponent.is_integer()
        _case(
            "result",
            f"apx-eval-fractional-apx-{name}",
            ["APX-QTY-2", "APX-QTY-3", "APX-RES-1"],
            EVAL,
            f"The demo tasks (W = 4.5) over T = {wall} hours: AP {power!r} and the non-integer "
            f"APx {exponent!r}, compared to a relative 1e-15 (a rounded APx fails).",
            {"manifest": manifest, "run": run},
            partial(
                AP=power,
                APx=exponent,
                creditedHumanHours=4.5,
                wallHours=wall,
                diagnostic__APx=exponent,
            ),
            tolerant=True,
        )


def results() -> None:
    def unaccept_all(_: Doc, run: Doc) -> None:
        for item in run["outcomes"]:
            item["accepted"] = False

    _case(
        "result",
        "apx-eval-zero-accepted",
        ["APX-QTY-1", "APX-QTY-3", "APX-RES-2", "APX-RES-4"],
        EVAL,
        "No outcome accepted: W 0, AP 0, APx null, cost per hour null, and an explanation "
        "of the null exponent; no Infinity or NaN anywhere.",
        campaign(unaccept_all),
        partial(
            AP=0,
            APx=None,
            creditedHumanHours=0,
            costPerCreditedHumanHour=None,
            humanLeverage=0,
            acceptedSlots=0,
            rawAcceptedSlots=0,
            diagnostic__APx=None,
            verifiedReferenceWorkdays=0,
            explanation=ZERO_WORK,
            pointers={"/coverage/excludedByReason/not accepted": 3},
        ),
        tags=["negative"],
    )
    _case(
        "result",
        "apx-eval-runtime-not-credited",
        ["APX-QTY-2", "APX-RES-1", "APX-RES-3"],
        EVAL,
        "800 agent runtime hours give 100 runtime days but leave AP at 9: T is the elapsed "
        "window, never summed runtime.",
        campaign(set_run(agentRuntimeHours=800)),
        partial(rawRuntimeDays=100, runtimeDays=100, AP=9, wallHours=0.5),
        tags=["negative"],
        tolerant=True,
    )
    _case(
        "result",
        "apx-eval-leverage",
        ["APX-RES-2", "APX-QTY-2"],
        EVAL,
        "Human leverage is W over the human hours: 4.5 / 0.05 = 90.",
        campaign(),
        partial(
            supervisionHours=0.05,
            humanLeverage=90,
            costCurrency="USD",
            verifiedReferenceWorkdays=0.5625,
        ),
        tolerant=True,
    )

    def autonomous(_: Doc, run: Doc) -> None:
        run["humanReviewHours"] = 0
        run["assistanceMode"] = "autonomous"
        run["wallBreakdown"]["executionHours"] += run["wallBreakdown"]["reviewHours"]
        run["wallBreakdown"]["reviewHours"] = 0

    _case(
        "result",
        "apx-eval-autonomous-leverage-null",
        ["APX-RES-2", "APX-VAL-9"],
        EVAL,
        "An autonomous run with 0 human hours has undefined leverage (null), not infinite.",
        campaign(autonomous),
        partial(humanLeverage=None, supervisionHours=0, assistanceMode="autonomous", AP=9),
        tags=["negative"],
        tolerant=True,
    )
    _case(
        "result",
        "apx-eval-policy-violation",
        ["APX-ELIG-1", "APX-ELIG-2", "APX-RES-1", "APX-RES-3", "APX-RES-4"],
        EVAL,
        "A policy violation makes the run INELIGIBLE: official AP and APx null, diagnostic AP 9 "
        "kept, per-class AP null, and an explanation.",
        campaign(set_run(policyViolations=["unauthorized tool use"])),
        partial(
            eligibility="INELIGIBLE",
            AP=None,
            APx=None,
            diagnostic__AP=9,
            diagnostic__note="diagnostic only; policy violation or known safety failure "
            "blocks official APx",
            policyViolations=["unauthorized tool use"],
            creditedHumanHours=4.5,
            pointers={"/classPower/output-verification/AP": None},
        ),
        tags=["negative"],
        tolerant=True,
    )
    result = evaluate_document(*tutorial_campaign())
    assert result["explanation"] is None
    _case(
        "result",
        "apx-eval-measured-pilot",
        ["APX-ELIG-3", "APX-CLAIM-2", "APX-VAL-8", "APX-VAL-13", "APX-RES-3"],
        EVAL,
        "A measured baseline and a measured run with bound, independent adjudications give a "
        "pilot result: certified false, evidence grade declared-measured.",
        measured(),
        partial(
            status="pilot",
            certified=False,
            evidenceGrade="declared-measured",
            calibrationProtocolId="calibration-protocol-1",
            AP=9,
            assurance="declared-measured when labeled pilot; structural checks do not "
            "authenticate evidence, participants, reviewers, or independent measurement",
            baselineCohort__participantIds=["participant-1"],
        ),
        tolerant=True,
    )
    manifest, run = tutorial_campaign()
    run = tutorial_run(manifest)
    from apconform.apx.tutorial import measure_run

    _case(
        "result",
        "apx-eval-measured-run-synthetic-baseline",
        ["APX-ELIG-3", "APX-CLAIM-2"],
        EVAL,
        "A measured run scored against a synthetic baseline stays synthetic.",
        {"manifest": manifest, "run": measure_run(manifest, run)},
        partial(status="synthetic", evidenceGrade="synthetic", certified=False),
        tags=["negative"],
    )


def gates() -> None:
    cases = [
        ("not-accepted", {"accepted": False}, "not accepted"),
        ("quality-below-threshold", {"quality": 0.79}, "quality below threshold"),
        ("safety-unknown", {"safety": "unknown"}, "safety not passed"),
        ("artifact-null", {"artifactHash": None}, "missing artifact identity"),
        ("deliverable-null", {"deliverableId": None}, "missing artifact identity"),
        ("empty-provenance", {"provenance": []}, "missing verified adjudication or test receipt"),
    ]
    for name, members, reason in cases:
        _case(
            "gates",
            f"apx-gate-{name}",
            ["APX-CREDIT-2", "APX-QTY-1"],
            EVAL,
            f"Outcome finance-1 with {json.dumps(members)} earns no credit: the first failed "
            f"gate is '{reason}'; two slots remain credited (W 3, AP 6).",
            campaign(set_outcome(0, **members)),
            partial(
                acceptedSlots=2,
                creditedHumanHours=3,
                AP=6,
                excluded=[{"slotId": "finance-1", "reason": reason}],
            ),
            tags=["negative"],
            tolerant=True,
        )
    for name, change, reason in (
        (
            "unreviewed",
            ("verification", "unreviewed"),
            "missing verified adjudication or test receipt",
        ),
        ("ruclip-clip", ("kind", "ruclip-clip"), "missing verified adjudication or test receipt"),
    ):

        def edit(_: Doc, run: Doc, change: tuple[str, str] = change) -> None:
            run["outcomes"][0]["provenance"][0][change[0]] = change[1]

        _case(
            "gates",
            f"apx-gate-{name}",
            ["APX-CREDIT-2"],
            EVAL,
            f"Evidence with {change[0]} {change[1]} is not verified acceptance, so "
            "finance-1 earns no credit.",
            campaign(edit),
            partial(acceptedSlots=2, excluded=[{"slotId": "finance-1", "reason": reason}]),
            tags=["negative"],
        )
    _case(
        "gates",
        "apx-gate-safety-fail",
        ["APX-CREDIT-2", "APX-ELIG-1"],
        EVAL,
        "An accepted outcome with a known safety failure earns no credit and makes the run "
        "INELIGIBLE (official APx null).",
        campaign(set_outcome(0, safety="fail")),
        partial(
            acceptedSlots=2,
            APx=None,
            AP=None,
            eligibility="INELIGIBLE",
            excluded=[{"slotId": "finance-1", "reason": "safety not passed"}],
            policyViolations=["finance-1: known safety failure"],
        ),
        tags=["negative"],
    )
    _case(
        "gates",
        "apx-gate-quality-at-threshold",
        ["APX-CREDIT-2"],
        EVAL,
        "Quality exactly at the threshold (0.8) passes the gate: all three slots credited.",
        campaign(set_outcome(0, quality=0.8)),
        partial(acceptedSlots=3, AP=9, excluded=[]),
        tolerant=True,
    )
    _case(
        "gates",
        "apx-gate-unaccepted-safety-fail",
        ["APX-ELIG-1", "APX-ELIG-2", "APX-CREDIT-5"],
        EVAL,
        "A known safety failure on an unaccepted outcome still makes the run INELIGIBLE; "
        "the diagnostic AP (6) is kept and the class counts the failure.",
        campaign(set_outcome(0, accepted=False, safety="fail")),
        partial(
            eligibility="INELIGIBLE",
            AP=None,
            APx=None,
            diagnostic__AP=6,
            policyViolations=["finance-1: known safety failure"],
            pointers={"/perClass/financial-reconciliation/safetyFailures": 1},
        ),
        tags=["negative"],
        tolerant=True,
    )


def credit() -> None:
    def copy_identity(_: Doc, run: Doc) -> None:
        run["outcomes"][1]["deliverableId"] = run["outcomes"][0]["deliverableId"]
        run["outcomes"][1]["artifactHash"] = run["outcomes"][0]["artifactHash"]

    _case(
        "credit",
        "apx-dedup-same-deliverable",
        ["APX-CREDIT-3"],
        EVAL,
        "research-1 repeats finance-1's deliverable and artifact: credited once.",
        campaign(copy_identity),
        partial(
            acceptedSlots=2,
            excluded=[{"slotId": "research-1", "reason": "duplicate deliverable or artifact"}],
        ),
        tags=["negative"],
    )

    def copy_artifact(_: Doc, run: Doc) -> None:
        run["outcomes"][1]["artifactHash"] = run["outcomes"][0]["artifactHash"]

    _case(
        "credit",
        "apx-dedup-same-artifact",
        ["APX-CREDIT-3"],
        EVAL,
        "One artifact under two deliverable ids earns credit once.",
        campaign(copy_artifact),
        partial(acceptedSlots=2),
        tags=["negative"],
    )
    request = campaign(copy_artifact)
    credited = evaluate_document(request["manifest"], request["run"])["credited"]
    assert [item["slotId"] for item in credited] == ["finance-1", "software-1"]

    def copy_and_reverse(manifest: Doc, run: Doc) -> None:
        copy_artifact(manifest, run)
        run["outcomes"].reverse()

    _case(
        "credit",
        "apx-dedup-order-independent",
        ["APX-CREDIT-1", "APX-CREDIT-3"],
        EVAL,
        "Reversing the outcomes changes nothing: slots are credited in slot-id order.",
        campaign(copy_and_reverse),
        partial(credited=credited),
        tags=["negative"],
        tolerant=True,
    )

    def failed_duplicate(_: Doc, run: Doc) -> None:
        run["outcomes"][0]["accepted"] = False
        run["outcomes"][1]["artifactHash"] = run["outcomes"][0]["artifactHash"]

    _case(
        "credit",
        "apx-dedup-failed-duplicate",
        ["APX-CREDIT-3", "APX-CREDIT-4"],
        EVAL,
        "An unaccepted outcome consumes no identity: research-1, sharing its artifact, "
        "is still credited.",
        campaign(failed_duplicate),
        partial(acceptedSlots=2),
    )

    def reuse_unaccepted(_: Doc, run: Doc) -> None:
        run["outcomes"][1]["accepted"] = False
        run["outcomes"][1]["deliverableId"] = run["outcomes"][0]["deliverableId"]

    _case(
        "credit",
        "apx-unaccepted-reuses-deliverable",
        ["APX-CREDIT-4"],
        EVAL,
        "An unaccepted outcome reusing a deliverable id with another artifact causes no conflict.",
        campaign(reuse_unaccepted),
        partial(acceptedSlots=2),
    )

    def conflict(_: Doc, run: Doc) -> None:
        first, second, third = run["outcomes"]
        second["deliverableId"] = first["deliverableId"]
        third["artifactHash"] = second["artifactHash"]

    _case(
        "credit",
        "apx-conflict-refused",
        ["APX-CREDIT-4"],
        EVAL,
        "finance-1 and research-1 are admissible with one deliverable id and two artifacts: "
        "the run is refused.",
        campaign(conflict),
        refusal("APX-SCORE-CONFLICT", V + "conflicting admissible deliverable to artifact mapping"),
    )
    _case(
        "credit",
        "apx-conflict-path",
        ["APX-VAL-2"],
        EVAL,
        "The conflict refusal names the $-path of the offending value (a SHOULD): the artifact "
        "hash of research-1 (outcomes[1]), the admissible outcome that meets finance-1's "
        "deliverable id with another artifact; pins code, message and path.",
        campaign(conflict),
        refusal(
            "APX-SCORE-CONFLICT",
            V + "conflicting admissible deliverable to artifact mapping",
            "$.run.outcomes[1].artifactHash",
        ),
    )

    def alias_chain(_: Doc, run: Doc) -> None:
        first, second, third = run["outcomes"]
        second["artifactHash"] = first["artifactHash"]
        third["deliverableId"] = second["deliverableId"]

    _case(
        "credit",
        "apx-conflict-alias-chain",
        ["APX-CREDIT-4"],
        EVAL,
        "research-1 is a duplicate yet records its deliverable id with finance-1's artifact, "
        "so software-1 reusing that id with its own artifact is a conflict.",
        campaign(alias_chain),
        refusal("APX-SCORE-CONFLICT", V + "conflicting admissible deliverable to artifact mapping"),
    )
    _case(
        "credit",
        "apx-credit-code-point-order",
        ["APX-CREDIT-1", "APX-CAL-1", "APX-QTY-1"],
        EVAL,
        "Slots B (class x, H 2) and a (class y, H 1) share one artifact. In code-point order "
        "B comes first and is credited, so W = 2 (a locale collation would credit a, W = 1: "
        "the one intended difference from the reference kernel).",
        _two_class_campaign(),
        partial(
            creditedHumanHours=2,
            credited=[
                {
                    "slotId": "B",
                    "classId": "x",
                    "referenceHumanHours": 2,
                    "artifactHash": digest("shared"),
                }
            ],
            excluded=[{"slotId": "a", "reason": "duplicate deliverable or artifact"}],
        ),
        tags=["intended-difference"],
    )


def _two_class_campaign() -> Doc:
    manifest = tutorial_manifest()
    manifest["suite"]["slots"] = [{"id": "B", "classId": "x"}, {"id": "a", "classId": "y"}]
    attempts = [
        {"id": "hx", "classId": "x", "hours": 2, "accepted": True},
        {"id": "hy", "classId": "y", "hours": 1, "accepted": True},
    ]
    manifest["baseline"]["attempts"] = attempts
    manifest["baseline"]["predeclaredAttemptIds"] = ["hx", "hy"]
    manifest = freeze(manifest)
    run = tutorial_run(manifest)
    template = run["outcomes"][0]
    run["outcomes"] = [
        {**template, "slotId": slot, "deliverableId": f"d-{slot}", "artifactHash": digest("shared")}
        for slot in ("a", "B")
    ]
    return {"manifest": manifest, "run": run}


def _one_class_campaign(hours: float, outcomes: list[tuple[float, str]]) -> Doc:
    """Every slot in one class x of ``hours`` reference hours; outcomes as (quality, safety)."""
    manifest = tutorial_manifest()
    manifest["suite"]["slots"] = [
        {"id": f"s{index}", "classId": "x"} for index in range(1, len(outcomes) + 1)
    ]
    attempt = {"id": "hx", "classId": "x", "hours": hours, "accepted": True}
    manifest["baseline"]["attempts"] = [attempt]
    manifest["baseline"]["predeclaredAttemptIds"] = ["hx"]
    manifest = freeze(manifest)
    run = tutorial_run(manifest)
    template = run["outcomes"][0]
    run["outcomes"] = [
        {
            **template,
            "slotId": f"s{index}",
            "deliverableId": f"d{index}",
            "artifactHash": digest(f"artifact-{index}"),
            "quality": quality,
            "safety": safety,
        }
        for index, (quality, safety) in enumerate(outcomes, start=1)
    ]
    return {"manifest": manifest, "run": run}


def adequacy() -> None:
    """Vectors that mutation testing showed missing (tests/benchmarks/bench_mutation.py)."""
    _case(
        "arithmetic",
        "apx-power-refuses-overflow",
        ["APX-QTY-4"],
        "apx.power_metrics",
        "W = 1e308 over T = 1e-10 overflows a double: the power is refused, never infinite.",
        {"creditedHumanHours": 1e308, "wallHours": 1e-10},
        refusal("APX-METRIC-OVERFLOW", "Power overflow"),
    )
    _case(
        "arithmetic",
        "apx-exponent-refuses-text",
        ["APX-QTY-4"],
        "apx.exponent_to_power",
        'An exponent given as the text "4" is not a finite number and is refused.',
        {"exponent": "4"},
        refusal("APX-METRIC-EXPONENT", "Finite exponent required"),
    )
    request = campaign(set_run(policyViolations=["shared a credential"]))
    result = evaluate_document(request["manifest"], request["run"])
    assert result["eligibility"] == "INELIGIBLE" and result["APx"] is None
    _case(
        "result",
        "apx-eval-ineligible-exact",
        ["APX-ELIG-1", "APX-ELIG-2", "APX-RES-1", "APX-RES-4"],
        EVAL,
        "The demo campaign with one policy violation: the whole INELIGIBLE result, with null "
        "official figures, the diagnostic AP 9, the claim and the explanation of why.",
        request,
        exact(result),
        tags=["negative"],
        tolerant=True,
    )

    def unaccept_all(_: Doc, run: Doc) -> None:
        for item in run["outcomes"]:
            item["accepted"] = False

    request = campaign(unaccept_all)
    result = evaluate_document(request["manifest"], request["run"])
    _case(
        "result",
        "apx-eval-zero-accepted-claim",
        ["APX-RES-4"],
        EVAL,
        "With no accepted work the claim says AP 0 and APx undefined; the explanation says why.",
        request,
        partial(claim=result["claim"], explanation=ZERO_WORK),
        tags=["negative"],
    )

    def violated_and_unaccepted(manifest: Doc, run: Doc) -> None:
        unaccept_all(manifest, run)
        run["policyViolations"] = ["shared a credential"]

    request = campaign(violated_and_unaccepted)
    result = evaluate_document(request["manifest"], request["run"])
    assert "(diagnostic only: AP 0, APx null)" in result["claim"]
    _case(
        "result",
        "apx-eval-ineligible-zero-work-claim",
        ["APX-ELIG-2", "APX-RES-4"],
        EVAL,
        "INELIGIBLE with no accepted work: the claim gives the diagnostic AP 0 and APx null.",
        request,
        partial(claim=result["claim"], eligibility="INELIGIBLE", diagnostic__APx=None),
        tags=["negative"],
    )
    request = _one_class_campaign(2, [(1, "pass"), (0.9, "pass"), (1, "fail"), (1, "fail")])
    result = evaluate_document(request["manifest"], request["run"])
    tallies = {
        "tasks": 4,
        "credited": 2,
        "creditedHumanHours": 4,
        "acceptedQualitySum": 1.9,
        "safetyFailures": 2,
    }
    assert result["perClass"]["x"] == tallies
    _case(
        "result",
        "apx-eval-class-tallies",
        ["APX-RES-3", "APX-ELIG-1"],
        EVAL,
        "Four slots of one class, two credited (quality 1 and 0.9) and two with a known safety "
        "failure: the class counts 4 tasks, 2 credited, 4 hours, quality 1.9, 2 safety failures.",
        request,
        partial(
            {"/perClass/x": tallies},
            eligibility="INELIGIBLE",
            diagnostic__AP=8,
            policyViolations=["s3: known safety failure", "s4: known safety failure"],
        ),
        tolerant=True,
    )
    request = _one_class_campaign(0.5, [(1, "pass")])
    result = evaluate_document(request["manifest"], request["run"])
    assert result["costPerCreditedHumanHour"] == 0.2
    _case(
        "result",
        "apx-eval-cost-per-hour-below-one-hour",
        ["APX-RES-2"],
        EVAL,
        "One credited slot of 0.5 reference hours and a cost of 0.1: the cost per credited hour "
        "is 0.2 (W is below one hour, and above 0).",
        request,
        partial(creditedHumanHours=0.5, costPerCreditedHumanHour=0.2, AP=1),
        tolerant=True,
    )
    request = measured(set_run(kind="synthetic"))
    _case(
        "result",
        "apx-eval-measured-baseline-synthetic-run",
        ["APX-ELIG-3"],
        EVAL,
        "A measured baseline with a synthetic run is synthetic: either side being synthetic is "
        "enough.",
        request,
        partial(status="synthetic"),
    )


def add_all() -> None:
    from vector_cases_more import more
    from vector_cases_population import population

    arithmetic()
    fractional_exponents()
    results()
    adequacy()
    gates()
    credit()
    more()
    population()


def main() -> None:
    add_all()
    existing = (
        {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.json")} if ROOT.exists() else set()
    )
    for rel in sorted(existing - set(VECTORS)):
        (ROOT / rel).unlink()
    for rel, document in sorted(VECTORS.items()):
        path = ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(document), encoding="utf-8")
    print(f"{len(VECTORS)} vectors written to {ROOT}")


__all__ = ["add_all", "main"]

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
