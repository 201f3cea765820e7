"""Submissions for the ledger tests: real results, relabelled as several implementations.

Each claim is dated by :data:`CLAIMS`, a clock one second further on at every
claim from 2026-12-01T00:00, before the test ledgers' clock (12:00 that day):
claims made later in a test are newer, as they would be in life.
"""

from __future__ import annotations

import copy
import functools
from datetime import UTC, datetime
from typing import Any

from result_samples import PLANTED, ap1_report, conformance_records

from apconform.apx import evaluate_document
from apconform.apx.tutorial import tutorial_campaign
from apconform.core.signing import Ed25519Key
from apconform.ledger import Submission, prepare
from apconform.results import ResultKind

from .conftest import Ticks

__all__ = ["CLAIMS", "PLANTED", "apx_result", "conformance", "profile"]


CLAIMS = Ticks(datetime(2026, 12, 1, 0, 0, 0, tzinfo=UTC))
"""When each test claim is made: one second after the one before."""


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
        created_at=CLAIMS(),
    )


def profile(model: str = "mock-mixed", key: Ed25519Key | None = None) -> Submission:
    return prepare(ResultKind.AP1_SCORE_REPORT, ap1_report(model), key=key, created_at=CLAIMS())


def apx(run_id: str = "demo-1", key: Ed25519Key | None = None) -> Submission:
    return prepare(ResultKind.APX_RESULT, apx_result(run_id), key=key, created_at=CLAIMS())
