"""Comparing two results of one kind: what newly fails, newly passes, changed, came or went.

Conformance reports are compared vector by vector and clause by clause (a
clause's outcome follows :func:`clause_outcome`); AP-1 score reports
dimension by dimension, where a rate counts as worse or better only when the
two 95% intervals do not overlap, so noise between two runs of one model is
reported as a change, not as a regression. APx campaigns are compared by the
kernel's own paired bootstrap (``apconform apx promote``), not here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.results.check import check_result
from apconform.results.facts import result_facts
from apconform.results.kinds import ResultKind, read_result
from apconform.results.outcomes import clause_results, outcome_class, outcome_map
from apconform.results.profile import DimensionFigure, profile_figures

__all__ = [
    "CHANGE_ORDER",
    "DIFF_KIND",
    "diff_files",
    "diff_outcomes",
    "diff_results",
    "is_regression",
]

DIFF_KIND = define_code(
    "APC-DIFF-KIND",
    "The two results cannot be compared",
    "Compare two conformance reports or two AP-1 score reports; compare APx campaigns "
    "with `apconform apx promote`.",
)

CHANGE_ORDER = ("newly-failing", "newly-passing", "changed", "added", "removed")
_COUNT_NAMES = dict(
    zip(CHANGE_ORDER, ("newlyFailing", "newlyPassing", "changed", "added", "removed"), strict=True)
)


def _change(
    kind: str, item: str, before: str | None, after: str | None, detail: str
) -> dict[str, Any]:
    out: dict[str, Any] = {"change": kind, "item": item}
    if before is not None:
        out["before"] = before
    if after is not None:
        out["after"] = after
    if detail:
        out["detail"] = detail
    return out


def _classify(before: str | None, after: str | None) -> str | None:
    """The change between two outcomes, or None when there is none worth listing."""
    if before is None:
        return "added"
    if after is None:
        return "removed"
    old, new = outcome_class(before), outcome_class(after)
    if new == "bad" and old != "bad":
        return "newly-failing"
    if new == "good" and old != "good":
        return "newly-passing"
    return "changed" if before != after else None


def _ordered(changes: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(changes, key=lambda c: (CHANGE_ORDER.index(c["change"]), c["item"]))


def diff_outcomes(
    before: Mapping[str, str],
    after: Mapping[str, str],
    details: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Item changes between two ``{id: outcome}`` maps (clauses or vectors), sorted by change."""
    changes = []
    for item in set(before) | set(after):
        old, new = before.get(item), after.get(item)
        kind = _classify(old, new)
        if kind is not None:
            changes.append(_change(kind, item, old, new, (details or {}).get(item, "")))
    return _ordered(changes)


def _case_reason(case: dict[str, Any]) -> str:
    actual = case["actual"]
    if case["mismatches"]:
        first = case["mismatches"][0]
        where = f" at {first['path']}" if first["path"] else ""
        return f"{first['reason']}{where}"
    if actual["kind"] in ("errored", "skipped"):
        return str(actual.get("message") or actual.get("reason") or actual["kind"])
    return ""


def _conformance_changes(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    old_cases = {case["vector"]: case for case in before[1:-1]}
    new_cases = {case["vector"]: case for case in after[1:-1]}
    vectors = diff_outcomes(
        {k: c["outcome"] for k, c in old_cases.items()},
        {k: c["outcome"] for k, c in new_cases.items()},
        {k: _case_reason(c) for k, c in new_cases.items()},
    )
    for vector_id in sorted(set(old_cases) & set(new_cases)):
        old, new = old_cases[vector_id], new_cases[vector_id]
        if (
            old["outcome"] == new["outcome"]
            and outcome_class(new["outcome"]) == "bad"
            and old["mismatches"] != new["mismatches"]
        ):
            vectors.append(
                _change(
                    "changed",
                    vector_id,
                    old["outcome"],
                    new["outcome"],
                    "still failing, differently: " + _case_reason(new),
                )
            )
    clauses = diff_outcomes(outcome_map(clause_results(before)), outcome_map(clause_results(after)))
    return _ordered(clauses), _ordered(vectors)


def _figure_change(old: DimensionFigure, new: DimensionFigure) -> str | None:
    if old.has_rate and new.has_rate and old.counts == new.counts:
        assert old.lower is not None and old.upper is not None
        assert new.lower is not None and new.upper is not None
        above, below = new.lower > old.upper, new.upper < old.lower
        if above or below:
            better = above if new.higher_is_better else below
            return "newly-passing" if better else "newly-failing"
    same = (old.status, old.n, old.rate, old.summary) == (new.status, new.n, new.rate, new.summary)
    return None if same else "changed"


def _profile_changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    old = {f.dimension: f for f in profile_figures(before)}
    new = {f.dimension: f for f in profile_figures(after)}
    changes = []
    for dimension in [*old, *(d for d in new if d not in old)]:
        a, b = old.get(dimension), new.get(dimension)
        if a is None or b is None:
            kind = "added" if a is None else "removed"
            figure = b if b is not None else a
            assert figure is not None
            changes.append(
                _change(
                    kind,
                    dimension,
                    None if a is None else a.status,
                    None if b is None else b.status,
                    figure.text(),
                )
            )
            continue
        kind_or_none = _figure_change(a, b)
        if kind_or_none is not None:
            changes.append(
                _change(kind_or_none, dimension, a.status, b.status, f"{a.text()} -> {b.text()}")
            )
    return changes


def _side(kind: ResultKind, document: Any) -> dict[str, Any]:
    facts = result_facts(kind, document)
    side: dict[str, Any] = {
        "documentSha256": sha256_hex(document),
        "subject": facts["subject"],
        "implementation": facts["implementation"],
    }
    for name in ("verdict", "runDate"):
        if name in facts:
            side[name] = facts[name]
    return side


def is_regression(diff: Mapping[str, Any]) -> bool:
    """True when anything newly fails, or the verdict was pass and no longer is."""
    return bool(diff["regression"])


def diff_results(
    kind_before: ResultKind, before: Any, kind_after: ResultKind, after: Any
) -> dict[str, Any]:
    """The ``ResultDiff`` of two checked result documents of the same kind."""
    if kind_before is not kind_after:
        raise ApconformError(
            DIFF_KIND, f"cannot compare a {kind_before.value} with a {kind_after.value}"
        )
    if kind_before is ResultKind.APX_RESULT:
        raise ApconformError(
            DIFF_KIND,
            "APx results are compared with the kernel's paired bootstrap, not item by item",
            hint="Use `apconform apx promote` with the paired campaigns.",
        )
    clauses: list[dict[str, Any]] = []
    vectors: list[dict[str, Any]] = []
    dimensions: list[dict[str, Any]] = []
    if kind_before is ResultKind.CONFORMANCE_REPORT:
        clauses, vectors = _conformance_changes(before, after)
    else:
        dimensions = _profile_changes(before, after)
    old_side, new_side = _side(kind_before, before), _side(kind_after, after)
    everything = [*clauses, *vectors, *dimensions]
    counts = {name: 0 for name in _COUNT_NAMES.values()}
    for change in everything:
        counts[_COUNT_NAMES[change["change"]]] += 1
    # fail, and since conformance reports can say so, incomplete or errored
    verdict_fell = old_side.get("verdict") == "pass" and new_side.get("verdict") != "pass"
    return {
        "schemaVersion": "apconform-result-diff/1",
        "kind": kind_before.value,
        "before": old_side,
        "after": new_side,
        "regression": counts["newlyFailing"] > 0 or verdict_fell,
        "counts": counts,
        "clauses": clauses,
        "vectors": vectors,
        "dimensions": dimensions,
    }


def diff_files(before: Path, after: Path) -> dict[str, Any]:
    """Read, check and compare two result files (the earlier one first)."""
    kind_before, old = read_result(before)
    check_result(kind_before, old)
    kind_after, new = read_result(after)
    check_result(kind_after, new)
    return diff_results(kind_before, old, kind_after, new)
