"""The coverage audit: every clause with its positive and negative vectors.

The rule (KIT-VEC-1 and the vector format): every active MUST clause needs at
least one positive and one negative vector, unless the clause text marks it
``[untestable: reason]``. A vector is negative when it expects a refusal or
carries the tag ``negative``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apconform.conformance.clauses import ClauseIndex
from apconform.conformance.runner import is_negative
from apconform.conformance.vectors import LoadedVector

__all__ = ["ClauseCoverage", "clause_coverage", "render_coverage"]


@dataclass(frozen=True)
class ClauseCoverage:
    """One row of the audit."""

    clause: str
    protocol: str
    level: str
    status: str
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    untestable: str | None

    @property
    def verdict(self) -> str:
        if self.status == "retired":
            return "retired"
        if self.untestable:
            return "untestable"
        missing = [
            k for k, v in (("positive", self.positive), ("negative", self.negative)) if not v
        ]
        if not missing:
            return "covered"
        if self.level != "MUST":
            return "optional" if len(missing) == 2 else "partial"
        return "MISSING " + " and ".join(missing)

    @property
    def ok(self) -> bool:
        return not self.verdict.startswith("MISSING")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "clause": self.clause,
            "protocol": self.protocol,
            "level": self.level,
            "status": self.status,
            "positive": list(self.positive),
            "negative": list(self.negative),
            "verdict": self.verdict,
        }
        if self.untestable:
            out["untestable"] = self.untestable
        return out


def clause_coverage(
    vectors: list[LoadedVector], clauses: ClauseIndex, protocols: list[str] | None = None
) -> list[ClauseCoverage]:
    """The audit rows for every clause of the given protocols (default: all)."""
    rows = []
    for clause in clauses.registry.clauses:
        if protocols is not None and clause.protocol not in protocols:
            continue
        citing = [v for v in vectors if clause.id in v.vector.clauses]
        rows.append(
            ClauseCoverage(
                clause.id,
                str(clause.protocol),
                str(clause.level),
                str(clause.status),
                tuple(v.id for v in citing if not is_negative(v)),
                tuple(v.id for v in citing if is_negative(v)),
                clause.untestable,
            )
        )
    return rows


def render_coverage(rows: list[ClauseCoverage], fmt: str = "text") -> str:
    """A clause-by-clause table (text or markdown)."""
    if fmt == "markdown":
        lines = ["| Clause | Level | Positive | Negative | Verdict |", "|---|---|---|---|---|"]
        for row in rows:
            verdict = row.verdict + (f": {row.untestable}" if row.untestable else "")
            lines.append(
                f"| {row.clause} | {row.level} | {len(row.positive)} | {len(row.negative)} | "
                f"{verdict} |"
            )
        return "\n".join(lines) + "\n"
    width = max([len(row.clause) for row in rows] + [6])
    lines = [f"{'clause':<{width}}  level   pos  neg  verdict"]
    for row in rows:
        verdict = row.verdict + (f" ({row.untestable})" if row.untestable else "")
        lines.append(
            f"{row.clause:<{width}}  {row.level:<6}  {len(row.positive):>3}  "
            f"{len(row.negative):>3}  {verdict}"
        )
    missing = [row for row in rows if not row.ok]
    must = [row for row in rows if row.level == "MUST" and row.status == "active"]
    lines.append(
        f"{len(rows)} clauses; {len(must)} active MUST clauses, "
        f"{len(must) - len(missing)} covered or untestable, {len(missing)} missing"
    )
    return "\n".join(lines) + "\n"
