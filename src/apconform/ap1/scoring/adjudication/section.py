"""The report's view of an imported adjudication: what went to people and what they agreed.

Human marks are reported apart from the automated figures and never merged
into them. Each dimension people adjudicated also gets one line for the
profile (and the ledger, which shows the profile): who adjudicated, when the
marks were merged, who settled disagreements, and Cohen's kappa with its
interval per measure.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import TYPE_CHECKING

from apconform.ap1.scoring.adjudication.merged_document import Ap1Adjudication
from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.rates import proportion_figure

if TYPE_CHECKING:
    from apconform.ap1.scoring.report.score_report import (
        AdjudicationSection,
        DimensionAdjudication,
        HumanDimension,
    )

__all__ = ["STATEMENT", "adjudicated_section", "dimension_adjudication"]

STATEMENT = (
    "Human-adjudicated outcomes are the marks two independent scorers gave identically or, "
    "where they differed, the mark settled in reconciliation (naming who settled it); they are "
    "reported apart from the automated figures and never counted as automated."
)
_MEASURES = {
    "D1": ("D1 outcome", "D1 accuracy"),
    "D5": ("D5 outcome",),
    "D6": ("D6 outcome",),
}
_SHOWN = Decimal("0.001")


def adjudicated_section(acc: Accumulator, merged: Ap1Adjudication | None) -> AdjudicationSection:
    """What went to people, and, once imported, what they agreed (never mixed with automated)."""
    routed = Counter(r["dimension"] for r in acc.routed)
    out: AdjudicationSection = {
        "routed": str(len(acc.routed)),
        "routedByDimension": [{"outcome": k, "count": str(v)} for k, v in sorted(routed.items())],
        "imported": merged is not None,
        "statement": STATEMENT,
    }
    if merged is None:
        return out
    current = {(r["cellKey"], r["dimension"]) for r in acc.routed}
    agreed: dict[str, Counter[str]] = {}
    accuracy: Counter[str] = Counter()
    unresolved = stale = settled = 0
    dimensions: set[str] = set()
    for row in merged["rows"]:
        if (row["cellKey"], row["dimension"]) not in current:
            stale += 1
            continue
        dimensions.add(row["dimension"])
        if row["settlement"] is not None:
            settled += 1
        if row["agreedOutcome"] is None:
            unresolved += 1
        else:
            agreed.setdefault(row["dimension"], Counter())[row["agreedOutcome"]] += 1
        if row["agreedAccuracy"] is not None:
            accuracy[row["agreedAccuracy"]] += 1
    correct, incorrect = accuracy["CORRECT"], accuracy["INCORRECT"]
    by_dimension: list[HumanDimension] = [
        {
            "dimension": d,
            "n": str(sum(c.values())),
            "summary": ", ".join(f"{k} {v}" for k, v in sorted(c.items())),
        }
        for d, c in sorted(agreed.items())
        if d != "D1"
    ]
    # key by key, in the order the document has always had
    out["scorers"] = [
        {
            "scorer": s["scorer"],
            "name": s["name"],
            "marked": s["marked"],
            "partlyMarked": s["partlyMarked"],
            "unmarked": s["unmarked"],
        }
        for s in merged["scorers"]
    ]
    out["completed"] = merged["completed"]
    out["acceptedIncomplete"] = merged["acceptedIncomplete"]
    out["settledBy"] = merged["settledBy"]
    out["settled"] = str(settled)
    out["adjudicatedDimensions"] = sorted(dimensions)
    out["agreement"] = merged["agreement"]
    out["answerOutcomes"] = [
        {"outcome": k, "count": str(v)} for k, v in sorted(agreed.get("D1", Counter()).items())
    ]
    out["accuracy"] = proportion_figure(correct, correct + incorrect, failures=False)
    out["noFigure"] = str(accuracy["NO-FIGURE"])
    out["byDimension"] = by_dimension
    out["unresolved"] = str(unresolved)
    out["stale"] = str(stale)
    return out


def _shown(text: str | None) -> str:
    return "undefined" if text is None else format(Decimal(text).quantize(_SHOWN), "f")


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def dimension_adjudication(
    section: AdjudicationSection, dimension: str
) -> DimensionAdjudication | None:
    """Who adjudicated ``dimension``, when, and with what agreement; None if people did not."""
    if not section["imported"] or dimension not in section["adjudicatedDimensions"]:
        return None
    names = [s["name"] for s in section["scorers"]]
    by_measure = {a["measure"]: a for a in section["agreement"]}
    agreement = [by_measure[m] for m in _MEASURES.get(dimension, ()) if m in by_measure]
    parts = []
    for a in agreement:
        interval = a["kappaInterval"]
        ci = (
            f" (95% CI {_shown(interval['lower'])} to {_shown(interval['upper'])})"
            if interval is not None
            else ""
        )
        parts.append(f"{a['measure']}: Cohen's kappa {_shown(a['kappa'])}{ci}, n {a['n']}")
    when = f", merged {section['completed']}" if section["completed"] else ""
    settled = (
        f"; disagreements settled by {_names(section['settledBy'])}" if section["settledBy"] else ""
    )
    incomplete = "; merged with rows left unmarked" if section["acceptedIncomplete"] else ""
    statement = (
        f"Human-adjudicated by {_names(names)}{when}{settled}{incomplete}. "
        + ("; ".join(parts) if parts else "No row was marked by both scorers")
        + "."
    )
    return {
        "statement": statement,
        "scorers": names,
        "completed": section["completed"],
        "settledBy": section["settledBy"],
        "agreement": [
            {
                "measure": a["measure"],
                "n": a["n"],
                "kappa": a["kappa"],
                "kappaInterval": a["kappaInterval"],
            }
            for a in agreement
        ],
    }
