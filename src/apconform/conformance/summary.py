"""Counting outcomes, the vacuity guard and the verdict of a run.

A run passes only when no case failed, errored or passed unexpectedly, when at
least one case executed, and (for a complete run) when every active, testable
MUST clause of every checked protocol had at least one executed vector.
Executed means the implementation answered: pass, fail, xfail or xpass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from apconform.conformance.clauses import ClauseIndex

__all__ = ["EXECUTED", "OUTCOMES", "count_outcomes", "must_clauses", "summarize"]

OUTCOMES = ("pass", "fail", "skipped", "errored", "xfail", "xpass")
EXECUTED = frozenset({"pass", "fail", "xfail", "xpass"})
_FAILING = ("fail", "errored", "xpass")


def count_outcomes(cases: Iterable[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(OUTCOMES, 0)
    for case in cases:
        counts[case["outcome"]] += 1
    return counts


def must_clauses(clauses: ClauseIndex, protocol: str) -> list[str]:
    """Active MUST clauses of a protocol that vectors must exercise (untestable ones excluded)."""
    return sorted(
        c.id
        for c in clauses.registry.clauses
        if c.protocol == protocol
        and c.level == "MUST"
        and c.status == "active"
        and not c.untestable
    )


def summarize(
    cases: list[dict[str, Any]],
    protocols: list[str],
    clauses: ClauseIndex,
    *,
    complete: bool,
) -> dict[str, Any]:
    """The footer's counts, per-protocol results, vacuity, problems and verdict."""
    problems: list[str] = []
    per_protocol = []
    vacuous = False
    for protocol in protocols:
        mine = [case for case in cases if case["protocol"] == protocol]
        executed = {
            clause for case in mine if case["outcome"] in EXECUTED for clause in case["clauses"]
        }
        required = must_clauses(clauses, protocol)
        missing = [clause for clause in required if clause not in executed] if complete else []
        counts = count_outcomes(mine)
        failing = any(counts[outcome] for outcome in _FAILING)
        if missing:
            vacuous = True
            problems.append(
                f"{protocol}: {len(missing)} MUST clause(s) had no executed vector: "
                + ", ".join(missing)
            )
        per_protocol.append(
            {
                "protocol": protocol,
                "counts": counts,
                "mustClauses": len(required),
                "mustClausesExecuted": len([c for c in required if c in executed]),
                "vacuousClauses": missing,
                "verdict": "fail" if failing or missing or not mine else "pass",
            }
        )
    counts = count_outcomes(cases)
    if not any(counts[outcome] for outcome in EXECUTED):
        vacuous = True
        problems.insert(0, "no case executed: the run checked nothing")
    for outcome, words in (
        ("fail", "failed"),
        ("errored", "errored"),
        ("xpass", "passed although listed as expected failures (remove them from the list)"),
    ):
        if counts[outcome]:
            problems.append(f"{counts[outcome]} case(s) {words}")
    verdict = "fail" if problems else "pass"
    return {
        "counts": counts,
        "protocols": per_protocol,
        "vacuous": vacuous,
        "problems": problems,
        "verdict": verdict,
        "exitStatus": 0 if verdict == "pass" else 1,
    }
