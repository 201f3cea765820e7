"""Counting outcomes, the coverage of clause branches, and the verdict of a run.

A clause has up to two branches: its acceptance vectors (they expect an
answer) and its refusal vectors (they expect a refusal, or carry the tag
``negative``). A MUST clause counts as executed only when every branch it has
in the run had an executed vector, so an implementation cannot pass by
skipping every refusal. Executed means the implementation answered: pass,
fail, xfail or xpass.

The verdict, in order of precedence: ``errored`` when the harness stopped the
run early; ``fail`` when a case failed, errored or passed unexpectedly, or the
implementation did not exit cleanly after stop; ``incomplete`` when nothing
executed, the run was partial (``--only`` chose some vectors: a partial run
proves only what it ran, so it is never a pass) or a MUST branch of a checked
protocol never ran; ``pass`` otherwise. Each has its own exit status
(:data:`EXIT_STATUS`).

Counts name what they leave out: ``mustClauses`` counts the MUST clauses that
vectors can test, and ``mustClausesUntestable`` the ones no vector can, so a
report writes "102 of 102 testable MUST clauses (11 untestable)", never a bare
"102/102".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from apconform.conformance.clauses import ClauseIndex
from apconform.results.outcomes import OUTCOMES, count_outcomes

__all__ = [
    "EXECUTED",
    "EXIT_STATUS",
    "OUTCOMES",
    "clause_branches",
    "count_outcomes",
    "must_clauses",
    "must_clauses_text",
    "summarize",
    "untestable_must_clauses",
]

EXECUTED = frozenset({"pass", "fail", "xfail", "xpass"})
EXIT_STATUS = {"pass": 0, "fail": 1, "incomplete": 3, "errored": 4}
"""The exit status of ``apconform check`` per verdict (2 is kept for usage and input errors)."""
_FAILING = ("fail", "errored", "xpass")
_BRANCHES = ("acceptance", "refusal")


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


def untestable_must_clauses(clauses: ClauseIndex, protocol: str) -> list[str]:
    """Active MUST clauses of a protocol that no vector can test (each says why)."""
    return sorted(
        c.id
        for c in clauses.registry.clauses
        if c.protocol == protocol and c.level == "MUST" and c.status == "active" and c.untestable
    )


def must_clauses_text(summary: dict[str, Any]) -> str:
    """ "102 of 102 testable MUST clauses executed (11 untestable)": what the count leaves out."""
    text = f"{summary['mustClausesExecuted']} of {summary['mustClauses']} testable MUST clauses"
    untestable = summary.get("mustClausesUntestable")
    if untestable is None:
        return text + " executed"
    return text + f" executed ({untestable} untestable, not counted)"


def _branch(case: dict[str, Any]) -> str:
    return "refusal" if case["negative"] else "acceptance"


def clause_branches(
    cases: Iterable[dict[str, Any]], clause_ids: Iterable[str]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """For each clause: its branches in these cases, each with the cases that exercise it.

    A clause that no case cites gets one empty acceptance branch, so it can
    never count as executed.
    """
    wanted = list(clause_ids)
    found: dict[str, dict[str, list[dict[str, Any]]]] = {clause: {} for clause in wanted}
    for case in cases:
        for clause in case["clauses"]:
            if clause in found:
                found[clause].setdefault(_branch(case), []).append(case)
    for branches in found.values():
        if not branches:
            branches["acceptance"] = []
    return {
        clause: {name: branches[name] for name in _BRANCHES if name in branches}
        for clause, branches in found.items()
    }


def _ran(branch_cases: list[dict[str, Any]]) -> bool:
    return any(case["outcome"] in EXECUTED for case in branch_cases)


def _unexecuted(
    branches: dict[str, dict[str, list[dict[str, Any]]]], unsupported: set[str]
) -> list[dict[str, Any]]:
    return [
        {
            "clause": clause,
            "branch": name,
            "branchVectors": [case["vector"] for case in branch_cases],
            "unsupportedOperations": sorted(
                {case["operation"] for case in branch_cases} & unsupported
            ),
        }
        for clause, per_clause in branches.items()
        for name, branch_cases in per_clause.items()
        if not _ran(branch_cases)
    ]


def _unsupported_operations(
    mine: list[dict[str, Any]], unsupported: set[str]
) -> list[dict[str, Any]]:
    """Each unsupported operation with the clauses its vectors cite that lack an executed branch."""
    out = []
    for name in sorted({case["operation"] for case in mine} & unsupported):
        using = [case for case in mine if case["operation"] == name]
        cited = sorted({clause for case in using for clause in case["clauses"]})
        branches = clause_branches(mine, cited)
        unproven = [
            clause
            for clause in cited
            if any(not _ran(cases) for cases in branches[clause].values())
        ]
        out.append({"operation": name, "vectorCount": len(using), "unprovenClauses": unproven})
    return out


def _branch_problem(protocol: str, gaps: list[dict[str, Any]], vacuous: list[str]) -> str | None:
    half = [gap for gap in gaps if gap["clause"] not in vacuous]
    if not half:
        return None
    shown = ", ".join(f"{gap['clause']} ({gap['branch']} not run)" for gap in half)
    return f"{protocol}: {len(half)} MUST clause branch(es) never ran: {shown}"


def _protocol_summary(
    protocol: str,
    cases: list[dict[str, Any]],
    clauses: ClauseIndex,
    *,
    complete: bool,
    unsupported: set[str],
    problems: list[str],
) -> dict[str, Any]:
    mine = [case for case in cases if case["protocol"] == protocol]
    required = must_clauses(clauses, protocol)
    branches = clause_branches(mine, required)
    gaps = _unexecuted(branches, unsupported)
    vacuous = [
        clause for clause in required if not any(_ran(cases) for cases in branches[clause].values())
    ]
    executed = [c for c in required if all(_ran(cs) for cs in branches[c].values())]
    if complete:  # a partial run's gaps are named once, in the run's first problem
        if vacuous:
            problems.append(
                f"{protocol}: {len(vacuous)} MUST clause(s) had no executed vector: "
                + ", ".join(vacuous)
            )
        half = _branch_problem(protocol, gaps, vacuous)
        if half is not None:
            problems.append(half)
    counts = count_outcomes(mine)
    all_branches = [cases for per_clause in branches.values() for cases in per_clause.values()]
    if any(counts[outcome] for outcome in _FAILING):
        verdict = "fail"
    elif gaps or not complete or not any(counts[outcome] for outcome in EXECUTED):
        verdict = "incomplete"
    else:
        verdict = "pass"
    return {
        "protocol": protocol,
        "counts": counts,
        "mustClauses": len(required),
        "mustClausesUntestable": len(untestable_must_clauses(clauses, protocol)),
        "mustClausesExecuted": len(executed),
        "mustBranches": len(all_branches),
        "mustBranchesExecuted": len([cases for cases in all_branches if _ran(cases)]),
        "vacuousClauses": vacuous,
        "unexecutedBranches": gaps,
        "unsupportedOperations": _unsupported_operations(mine, unsupported),
        "verdict": verdict,
    }


def summarize(
    cases: list[dict[str, Any]],
    protocols: list[str],
    clauses: ClauseIndex,
    *,
    complete: bool,
    supported: Iterable[str] = (),
    stopped_early: str | None = None,
    stop: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The footer's counts, per-protocol results, branch coverage, problems and verdict."""
    problems: list[str] = []
    unsupported = {case["operation"] for case in cases} - set(supported)
    per_protocol = [
        _protocol_summary(
            protocol,
            cases,
            clauses,
            complete=complete,
            unsupported=unsupported,
            problems=problems,
        )
        for protocol in protocols
    ]
    vacuous = any(summary["vacuousClauses"] for summary in per_protocol)
    counts = count_outcomes(cases)
    nothing_ran = not any(counts[outcome] for outcome in EXECUTED)
    if nothing_ran:
        vacuous = True
        problems.insert(0, "no case executed: the run checked nothing")
    if not complete:
        required = sum(summary["mustClauses"] for summary in per_protocol)
        left = required - sum(summary["mustClausesExecuted"] for summary in per_protocol)
        problems.insert(
            0,
            f"partial run: --only chose {len(cases)} case(s), which leave {left} of {required} "
            "testable MUST clauses unexercised; a partial run is never a pass (run without "
            "--only for a verdict)",
        )
    if stopped_early is not None:
        problems.insert(0, f"the run was stopped early: {stopped_early}")
    for outcome, words in (
        ("fail", "failed"),
        ("errored", "errored"),
        ("xpass", "passed although listed as expected failures (remove them from the list)"),
    ):
        if counts[outcome]:
            problems.append(f"{counts[outcome]} case(s) {words}")
    unclean_stop = stop is not None and not stop["exitedCleanly"]
    if stop is not None and unclean_stop:
        problems.append(f"after stop: {stop['stopDetail']}")
    if stopped_early is not None:
        verdict = "errored"
    elif any(counts[outcome] for outcome in _FAILING) or unclean_stop:
        verdict = "fail"
    elif (
        nothing_ran
        or not complete
        or any(summary["unexecutedBranches"] for summary in per_protocol)
    ):
        verdict = "incomplete"
    else:
        verdict = "pass"
    footer: dict[str, Any] = {
        "counts": counts,
        "protocols": per_protocol,
        "vacuous": vacuous,
    }
    if stopped_early is not None:
        footer["stoppedEarly"] = stopped_early
    if stop is not None:
        footer["stopCheck"] = stop
    footer.update({"problems": problems, "verdict": verdict, "exitStatus": EXIT_STATUS[verdict]})
    return footer
