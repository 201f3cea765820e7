"""What a conformance run says of each clause, from the outcomes of the cases citing it.

One rule serves the ledger's index, its matrix, its histories and the report
comparison, so a clause cannot pass in one view and fail in another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "BAD",
    "GOOD",
    "OUTCOMES",
    "clause_outcome",
    "clause_results",
    "count_outcomes",
    "outcome_class",
    "outcome_map",
]

OUTCOMES = ("pass", "fail", "skipped", "errored", "xfail", "xpass")
"""Every outcome a case record can have, in the order reports count them."""
GOOD = frozenset({"pass", "xfail"})
"""Outcomes that meet the implementation's own declared expectations."""
BAD = frozenset({"fail", "errored", "xpass"})
"""Outcomes that fail a run."""


def count_outcomes(cases: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many cases have each outcome (every outcome listed, zero included)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for case in cases:
        counts[case["outcome"]] += 1
    return counts


def outcome_class(outcome: str | None) -> str:
    """``good``, ``bad`` or ``neutral`` (skipped, untested, absent)."""
    if outcome in GOOD:
        return "good"
    if outcome in BAD:
        return "bad"
    return "neutral"


def clause_outcome(case_outcomes: Iterable[str]) -> str:
    """fail > errored > partial > xfail > pass > skipped; ``untested`` when no case cites it.

    ``partial``: some cases passed (or failed as expected) and others did not run, as a
    run with ``--only`` leaves a clause; like the HTML report, never shown as a pass.
    """
    seen = set(case_outcomes)
    if not seen:
        return "untested"
    if seen & {"fail", "xpass"}:
        return "fail"
    if "errored" in seen:
        return "errored"
    if "skipped" in seen and seen & GOOD:
        return "partial"
    if "xfail" in seen:
        return "xfail"
    if "pass" in seen:
        return "pass"
    return "skipped"


def clause_results(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every clause the report's header quotes, with its outcome and case count, sorted by id."""
    header, cases = records[0], records[1:-1]
    by_clause: dict[str, list[str]] = {}
    for case in cases:
        for clause in case["clauses"]:
            by_clause.setdefault(clause, []).append(case["outcome"])
    out = []
    for clause in sorted(header["clauses"], key=lambda c: str(c["id"])):
        outcomes = by_clause.get(clause["id"], [])
        out.append(
            {
                "protocol": clause["protocol"],
                "clause": clause["id"],
                "level": clause["level"],
                "outcome": clause_outcome(outcomes),
                "cases": len(outcomes),
            }
        )
    return out


def outcome_map(results: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{clause id: outcome}`` from clause results."""
    return {str(item["clause"]): str(item["outcome"]) for item in results}
