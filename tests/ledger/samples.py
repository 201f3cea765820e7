"""Submissions for the ledger tests: real results, relabelled as several implementations."""

from __future__ import annotations

import copy
import functools
from typing import Any

from result_samples import PLANTED, ap1_report, conformance_records

from apconform.apx import evaluate_document
from apconform.apx.tutorial import tutorial_campaign
from apconform.core.signing import Ed25519Key
from apconform.ledger import Submission, prepare
from apconform.results import ResultKind

__all__ = ["PLANTED", "apx_result", "conformance", "profile"]


@functools.cache
def _apx() -> dict[str, Any]:
    manifest, run = tutorial_campaign()
    return evaluate_document(manifest, run)


def apx_result(run_id: str = "demo-1") -> dict[str, Any]:
    result = copy.deepcopy(_apx())
    result["runId"] = run_id
    return result


def conformance(
    name: str = "impl-a",
    version: str = "1.0.0",
    faults: dict[str, str] | None = None,
    *,
    key: Ed25519Key | None = None,
    supersedes: list[str] | None = None,
    reason: str | None = None,
) -> Submission:
    records = conformance_records(faults, name=name, version=version)
    return prepare(
        ResultKind.CONFORMANCE_REPORT,
        records,
        key=key,
        supersedes=supersedes or (),
        reason=reason,
    )


def profile(model: str = "mock-mixed", key: Ed25519Key | None = None) -> Submission:
    return prepare(ResultKind.AP1_SCORE_REPORT, ap1_report(model), key=key)


def apx(run_id: str = "demo-1", key: Ed25519Key | None = None) -> Submission:
    return prepare(ResultKind.APX_RESULT, apx_result(run_id), key=key)
