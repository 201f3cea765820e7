"""Importers build runs the kernel scores (unknown stays unknown); signatures seal documents."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apconform.apx import ApxRefused, evaluate_document, sign, verify
from apconform.apx.importers import (
    apply_meters,
    attach_ruclip,
    import_meter,
    import_ruclip_receipt,
    metaharness_manifest,
    validate_task_pack,
)
from apconform.apx.tutorial import measured_tutorial, toy_checks, tutorial_campaign, tutorial_run
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key


def _receipt(**changes: Any) -> dict[str, Any]:
    base = {
        "jobId": "job-1",
        "issueId": "issue-1",
        "employeeId": "employee-1",
        "budget": {"limitUSD": 10},
        "adjudication": {
            "status": "accepted",
            "reviewerId": "reviewer-1",
            "evidenceHash": "a" * 64,
        },
        "approval": {"status": "approved"},
        "costUSD": 0.25,
        "costStatus": "measured",
    }
    base.update(changes)
    return base


def test_ruclip_evidence_makes_a_measured_outcome_scorable() -> None:
    manifest, run = measured_tutorial()
    run["outcomes"][0]["provenance"] = []
    with pytest.raises(ApxRefused) as info:
        evaluate_document(manifest, run)
    assert info.value.code == "APX-RUN-EVIDENCE-VERIFIED"
    imported = import_ruclip_receipt(_receipt())
    attached = attach_ruclip(run, "finance-1", imported, independent=True)
    result = evaluate_document(manifest, attached)
    assert result["AP"] == 9 and result["status"] == "pilot"
    assert attached["costUSD"] == run["costUSD"] + 0.25


def test_unmetered_ruclip_cost_is_never_zero() -> None:
    manifest, run = tutorial_campaign()
    imported = import_ruclip_receipt(_receipt(costUSD=0, costStatus="unmetered"))
    assert imported["cost"] == {"value": None, "status": "unknown"}
    attached = attach_ruclip(run, "research-1", imported, independent=False)
    assert attached["costUSD"] is None and attached["unmeteredFields"] == ["costUSD"]
    with pytest.raises(ApxRefused) as info:
        evaluate_document(manifest, attached)
    assert info.value.message == "APx validation: costUSD must be finite in [0, 1000000000000]"


def test_pending_approval_blocks_the_official_score() -> None:
    manifest, run = tutorial_campaign()
    imported = import_ruclip_receipt(_receipt(approval={"status": "pending"}))
    result = evaluate_document(
        manifest, attach_ruclip(run, "finance-1", imported, independent=True)
    )
    assert result["eligibility"] == "INELIGIBLE"
    assert result["policyViolations"] == ["ruClip approval not granted"]


def test_ruclip_receipt_must_name_a_slot_of_the_run() -> None:
    _, run = tutorial_campaign()
    with pytest.raises(ApconformError, match="no outcome for"):
        attach_ruclip(run, "nowhere", import_ruclip_receipt(_receipt()), independent=True)


def test_meters_apply_as_unknown() -> None:
    manifest, run = tutorial_campaign()
    metered = apply_meters(
        run,
        {
            "agentRuntimeHours": import_meter(0, "unmetered"),
            "costUSD": import_meter(0.3, "measured"),
        },
    )
    assert metered["agentRuntimeHours"] is None and metered["costUSD"] == 0.3
    with pytest.raises(ApxRefused) as info:
        evaluate_document(manifest, metered)
    assert info.value.message == (
        "APx validation: agentRuntimeHours must be finite in [0, 1000000000]"
    )
    assert import_meter() == {"value": None, "status": "unknown"}


SPEC: dict[str, Any] = {
    "schema": "apx.metaharness/v1",
    "id": "apx-software-development",
    "version": "0.1.0",
    "createdAt": "2026-09-07T00:00:00.000Z",
    "sourceCommit": "DEVELOPMENT-UNPINNED",
    "repository": ".",
    "partition": "selection",
    "selectionId": "software-selection-v1",
    "holdoutId": "software-holdout-v1",
    "tasks": [
        {
            "id": "kernel-regression",
            "classId": "software-maintenance",
            "title": "Keep the kernel tests green",
            "prompt": "Run the kernel's tests and fix any failure.",
            "acceptanceCriteria": ["all tests pass"],
            "publicTestCommand": "npm test",
            "hiddenTestCommand": "npm test",
            "regressionTestCommand": "npm test",
            "timeoutMs": 600000,
            "maxCostUsd": 5,
            "allowedMutationFiles": ["src/**"],
            "blockedFiles": ["test/**"],
            "tags": ["kernel"],
            "difficulty": 2,
        }
    ],
}


def test_metaharness_pack_becomes_a_frozen_manifest() -> None:
    template, _ = tutorial_campaign()
    baseline = copy.deepcopy(template["baseline"])
    baseline["attempts"] = [
        {"id": "h-1", "classId": "software-maintenance", "hours": 2, "accepted": True}
    ]
    baseline["predeclaredAttemptIds"] = ["h-1"]
    built = metaharness_manifest(SPEC, baseline, template["evaluator"], template["environment"])
    manifest = built["manifest"]
    assert manifest["suite"]["slots"] == [
        {"id": "kernel-regression", "classId": "software-maintenance"}
    ]
    assert manifest["suite"]["partition"] == "selection"
    assert len(built["specHash"]) == 64
    checks = [dict(toy_checks()[0], slotId="kernel-regression")]
    result = evaluate_document(manifest, tutorial_run(manifest, checks=checks))
    assert result["creditedHumanHours"] == 2 and result["AP"] == 4


@pytest.mark.parametrize(
    "change,message",
    [
        ({"holdoutId": "software-selection-v1"}, "selectionId and holdoutId must differ"),
        ({"sourceCommit": "main"}, "sourceCommit must be DEVELOPMENT-UNPINNED"),
        ({"createdAt": "2026-09-07T00:00:00Z"}, "createdAt must be canonical UTC"),
        ({"tasks": [SPEC["tasks"][0], SPEC["tasks"][0]]}, "task ids contains duplicates"),
        (
            {"tasks": [dict(SPEC["tasks"][0], publicTestCommand="npm test\nrm -rf /")]},
            "tasks[0].publicTestCommand must be one line",
        ),
        ({"schema": "apx.metaharness/v2"}, "schema must be apx.metaharness/v1"),
    ],
)
def test_metaharness_pack_rules(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ApconformError) as info:
        validate_task_pack({**SPEC, **change})
    assert info.value.message.startswith("APx MetaHarness: ")
    assert message in info.value.message
    assert validate_task_pack({**SPEC, "sourceCommit": "a" * 40})["sourceCommit"] == "a" * 40


def test_results_are_signed_and_verified() -> None:
    key = generate_signing_key()
    result = evaluate_document(*tutorial_campaign())
    signed = sign(result, key)
    verify(signed, trusted_public_keys=[key.public_key_hex])
    with pytest.raises(ApconformError) as info:
        verify(dict(signed, AP=90), trusted_public_keys=[key.public_key_hex])
    assert info.value.code == "APC-SIG-INVALID"
    with pytest.raises(ApconformError) as info:
        verify(signed, trusted_public_keys=[generate_signing_key().public_key_hex])
    assert info.value.code == "APC-SIG-UNTRUSTED"


def test_only_well_formed_results_and_promotions_are_signed() -> None:
    key = generate_signing_key()
    result = evaluate_document(*tutorial_campaign())
    with pytest.raises(ApconformError) as info:
        sign(dict(result, certified=True), key)
    assert info.value.code == "APC-DOC-REFUSED"
    with pytest.raises(ApconformError) as info:
        sign({"schemaVersion": "apx/0.1"}, key)
    assert info.value.code == "APX-SIGN-KIND"
