"""The facts a result states about itself: whom it concerns, its verdict, its clauses.

The ledger keeps these in indexed columns and the comparison prints them;
both read them here, from a document that :func:`check_result` accepted.
"""

from __future__ import annotations

from typing import Any

from apconform.results.kinds import ResultKind
from apconform.results.outcomes import clause_results
from apconform.results.profile import NATIVE_RUNNER, origin_label

__all__ = ["APX_KERNEL", "result_facts"]

APX_KERNEL = "apx-kernel"
"""The implementation name recorded for APx results (their ``version`` is the kernel's)."""


def _conformance(records: list[dict[str, Any]]) -> dict[str, Any]:
    header, footer = records[0], records[-1]
    impl = header["implementation"]
    return {
        "kind": ResultKind.CONFORMANCE_REPORT.value,
        "subject": impl["name"],
        "implementation": {"name": impl["name"], "version": impl["version"]},
        "protocols": [summary["protocol"] for summary in footer["protocols"]],
        "verdict": footer["verdict"],
        "runDate": header["startedAt"],
        "verdicts": [
            {"protocol": summary["protocol"], "verdict": summary["verdict"]}
            for summary in footer["protocols"]
        ],
        "clauses": clause_results(records),
    }


def _ap1_subject(report: dict[str, Any]) -> str:
    """The model; for a run imported from another harness, the model and who ran it, so a native
    and an imported profile of one model are two subjects, each with its latest result."""
    run = report["run"]
    runner = (run.get("origin") or {}).get("runner")
    if runner is None or runner == NATIVE_RUNNER:
        return str(run["model"])
    return f"{run['model']} via {origin_label(report)}"


def _ap1(report: dict[str, Any]) -> dict[str, Any]:
    scorer, run = report["scorer"], report["run"]
    facts: dict[str, Any] = {
        "kind": ResultKind.AP1_SCORE_REPORT.value,
        "subject": _ap1_subject(report),
        "implementation": {"name": scorer["name"], "version": scorer["version"]},
        "model": run["model"],
        "protocols": ["ap1"],
        "verdicts": [],
        "clauses": [],
    }
    sealed = (report.get("seal") or {}).get("sealedAt")
    if isinstance(sealed, str):
        facts["runDate"] = sealed
    return facts


def _apx(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": ResultKind.APX_RESULT.value,
        "subject": f"{result['suiteId']} run {result['runId']}",
        "implementation": {"name": APX_KERNEL, "version": result["version"]},
        "protocols": ["apx"],
        "verdict": result["eligibility"],
        "verdicts": [],
        "clauses": [],
    }


def result_facts(kind: ResultKind, document: Any) -> dict[str, Any]:
    """The ``LedgerIndex`` of a checked result document."""
    if kind is ResultKind.CONFORMANCE_REPORT:
        return _conformance(document)
    if kind is ResultKind.AP1_SCORE_REPORT:
        return _ap1(document)
    return _apx(document)
