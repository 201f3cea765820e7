"""APx golden vectors for the importers and for what documents may never claim."""

from __future__ import annotations

import json
from typing import Any

from vectorlib import V, _case, campaign, exact, partial, refusal, set_run

from apconform.apx import compare_document, evaluate_document
from apconform.apx.hashing import digest
from apconform.apx.tutorial import tutorial_campaign, tutorial_manifest, tutorial_pairs

Doc = dict[str, Any]
METER = "Valid measured or synthetic nonnegative meter required"
ADJUDICATION = (
    "Independent human adjudication and evidence hash required; job completion or approval "
    "alone is insufficient"
)


def receipt(**changes: Any) -> Doc:
    base: Doc = {
        "jobId": "job-1",
        "issueId": "issue-1",
        "employeeId": "employee-1",
        "budget": {"limitUSD": 10},
        "adjudication": {
            "status": "accepted",
            "reviewerId": "reviewer-1",
            "evidenceHash": digest("human verdict"),
        },
        "approval": {"status": "approved"},
        "costUSD": 0,
        "costStatus": "unmetered",
    }
    base.update(changes)
    return {key: value for key, value in base.items() if value is not None}


def meters() -> None:
    for name, given, expected in (
        (
            "unmetered-zero",
            {"value": 0, "status": "unmetered"},
            {"value": None, "status": "unknown"},
        ),
        ("measured-zero", {"value": 0, "status": "measured"}, {"value": 0, "status": "measured"}),
        ("no-status", {"value": 123}, {"value": None, "status": "unknown"}),
        ("synthetic", {"value": 2.5, "status": "synthetic"}, {"value": 2.5, "status": "synthetic"}),
    ):
        _case(
            "importers",
            f"apx-meter-{name}",
            ["APX-IMP-1"],
            "apx.import_meter",
            f"Meter {json.dumps(given)} imports as {json.dumps(expected)}: an unmetered "
            "placeholder is unknown, never zero.",
            given,
            exact(expected),
        )
    for name, given in (
        ("negative", {"value": -1, "status": "measured"}),
        ("null-status", {"value": 5, "status": None}),
        ("text-value", {"value": "5", "status": "measured"}),
    ):
        _case(
            "importers",
            f"apx-meter-refuses-{name}",
            ["APX-IMP-1"],
            "apx.import_meter",
            f"Meter {json.dumps(given)} is refused.",
            given,
            refusal("APX-IMP-METER", METER),
        )


def ruclip() -> None:
    _case(
        "importers",
        "apx-ruclip-approved",
        ["APX-IMP-2", "APX-IMP-1"],
        "apx.import_ruclip",
        "An approved receipt with an accepted, evidenced adjudication imports as one "
        "ruclip-adjudication entry; its unmetered cost stays unknown.",
        {"receipt": receipt()},
        partial(
            governance__jobId="job-1",
            governance__approvalStatus="approved",
            governance__receiptHash=digest(receipt()),
            provenance__kind="ruclip-adjudication",
            provenance__id="ruclip-job-1",
            provenance__reviewerId="reviewer-1",
            cost={"value": None, "status": "unknown"},
            policyViolations=[],
            adapter={"name": "ruClip", "mode": "APx contract adapter", "nativeIntegration": False},
        ),
    )
    _case(
        "importers",
        "apx-ruclip-pending",
        ["APX-IMP-2"],
        "apx.import_ruclip",
        "A receipt whose approval is pending becomes a policy violation of the run.",
        {"receipt": receipt(approval={"status": "pending"})},
        partial(policyViolations=["ruClip approval not granted"]),
        tags=["negative"],
    )
    for name, changes, message in (
        ("no-adjudication", {"adjudication": None}, ADJUDICATION),
        (
            "rejected-adjudication",
            {
                "adjudication": {
                    "status": "rejected",
                    "reviewerId": "reviewer-1",
                    "evidenceHash": digest("x"),
                }
            },
            ADJUDICATION,
        ),
        ("no-job", {"jobId": None}, "ruClip jobId required"),
        ("negative-budget", {"budget": {"limitUSD": -1}}, "ruClip nonnegative budget required"),
        ("no-approval", {"approval": None}, "ruClip approval status required"),
    ):
        _case(
            "importers",
            f"apx-ruclip-refuses-{name}",
            ["APX-IMP-2"],
            "apx.import_ruclip",
            f"A receipt with '{name.replace('-', ' ')}' is refused: completion or approval "
            "alone is not acceptance.",
            {"receipt": receipt(**changes)},
            refusal("APX-IMP-RUCLIP", message),
        )


def adapters() -> None:
    manifest, run = tutorial_campaign()
    for name in ("autogenous", "metaharness"):
        _case(
            "importers",
            f"apx-adapter-{name}",
            ["APX-IMP-3"],
            "apx.adapter",
            f"The {name} contract adapter labels the kernel's result; it is not a native "
            "integration.",
            {"adapter": name, "manifest": manifest, "run": run},
            partial(
                adapter={
                    "name": name,
                    "version": "0.1.0",
                    "mode": "APx contract adapter",
                    "nativeIntegration": False,
                },
                result__AP=9,
            ),
            tolerant=True,
        )
    request = campaign(set_run(costUSD=None))
    _case(
        "importers",
        "apx-adapter-unknown-cost",
        ["APX-IMP-3", "APX-IMP-1"],
        "apx.adapter",
        "A run whose cost meter was unknown (null) cannot be scored through an adapter either.",
        {"adapter": "autogenous", **request},
        refusal("APX-VAL-NUMBER", f"{V}costUSD must be finite in [0, 1000000000000]"),
    )


def claims() -> None:
    manifest, run = tutorial_campaign()
    result = evaluate_document(manifest, run)
    manifest = tutorial_manifest()
    promotion = compare_document(
        manifest, {"pairs": tutorial_pairs(manifest, [0.5] * 5, [0.25] * 5)}
    )
    for kind, document, member in (
        ("result", result, "certified"),
        ("promotion", promotion, "deployAuthorized"),
    ):
        _case(
            "claims",
            f"apx-claim-{kind}-valid",
            ["APX-CLAIM-1"],
            "apx.validate_document",
            f"A kernel-made {kind} conforms to the published apx-{kind} schema on its own.",
            {"documentType": f"apx-{kind}", "document": document},
            exact({"valid": True}),
        )
        _case(
            "claims",
            f"apx-claim-{kind}-{member.lower()}-true",
            ["APX-CLAIM-1"],
            "apx.validate_document",
            f"An apx-{kind} document that claims {member}: true is not an APx document.",
            {"documentType": f"apx-{kind}", "document": dict(document, **{member: True})},
            refusal("APC-DOC-REFUSED"),
        )


def importers_and_claims() -> None:
    meters()
    ruclip()
    adapters()
    claims()


__all__ = ["importers_and_claims"]
