"""An AP-1 profile read as figures: each dimension's status, n and rate with its interval.

AP-1 gives a profile, not a verdict. To compare two profiles or show several
side by side, each automated dimension is paired with the rate the score
report states for it (k of n, Clopper-Pearson 95% interval, and whether k
counts successes or failures, which says which direction is better).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["NATIVE_RUNNER", "DimensionFigure", "origin_label", "profile_figures"]

NATIVE_RUNNER = "apconform"
"""``run.origin.runner`` of a run the instrument executed itself (the schema's RunOrigin)."""
_HARNESS_NAMES = {"inspect-ai": "Inspect AI"}


def _by_condition(section: str, condition: str) -> Callable[[dict[str, Any]], Any]:
    def pick(report: dict[str, Any]) -> Any:
        for row in report.get(section, {}).get("byCondition", []):
            if row.get("condition") == condition:
                return row.get("failureRate")
        return None

    return pick


def _member(section: str, name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda report: report.get(section, {}).get(name)


_RATES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "D1": _member("accuracy", "rate"),
    "D7.1": _by_condition("invocation", "base"),
    "D7.1b": _by_condition("invocation", "instruction-removed"),
    "D7.2(a)": _member("operandProvenance", "originatedRate"),
    "D7.2(b)": _member("operationCorrectness", "wrongRate"),
    "D7.3": _member("transcription", "alteredRate"),
    "D7.3 coverage": _member("releaseCoverage", "partialRate"),
}


@dataclass(frozen=True)
class DimensionFigure:
    """One row of a profile: the dimension as the report states it, and its rate if any."""

    dimension: str
    name: str
    status: str
    summary: str
    n: str | None
    k: str | None = None
    counts: str | None = None
    rate: Decimal | None = None
    lower: Decimal | None = None
    upper: Decimal | None = None
    adjudication: str | None = None
    """Who adjudicated the dimension, when, and their kappa, as the report states it."""

    @property
    def has_rate(self) -> bool:
        return self.rate is not None and self.lower is not None and self.upper is not None

    @property
    def higher_is_better(self) -> bool:
        return self.counts == "successes"

    def text(self) -> str:
        """The report's own words for the dimension (its summary, or its status)."""
        return self.summary or self.status


def profile_figures(report: dict[str, Any]) -> list[DimensionFigure]:
    """Every dimension of an AP-1 score report, in report order, with its rate where stated."""
    out = []
    for cell in report["dimensions"]:
        dimension = str(cell["dimension"])
        base = {
            "dimension": dimension,
            "name": str(cell["name"]),
            "status": str(cell["status"]),
            "summary": str(cell.get("summary") or cell.get("reason") or ""),
            "n": cell.get("n"),
            "adjudication": (cell.get("adjudication") or {}).get("statement"),
        }
        pick = _RATES.get(dimension)
        rate = pick(report) if pick is not None and cell["status"] == "MEASURED" else None
        if isinstance(rate, dict):
            out.append(
                DimensionFigure(
                    **base,
                    k=str(rate["k"]),
                    counts=str(rate["counts"]),
                    rate=Decimal(rate["rate"]),
                    lower=Decimal(rate["clopperPearsonLower"]),
                    upper=Decimal(rate["clopperPearsonUpper"]),
                )
            )
        else:
            out.append(DimensionFigure(**base))
    return out


def origin_label(report: dict[str, Any]) -> str:
    """Who ran an AP-1 score report's executions, in words, from its ``run.origin``.

    ``native (apconform 1.2.0)`` for the instrument's own run; for an imported
    one the harness, its version and the model string it ran, such as
    ``Inspect AI 0.3.285, model openai-api/acme/gpt-x``. A report written
    before the origin was stated says so instead of guessing.
    """
    origin = (report.get("run") or {}).get("origin")
    if not isinstance(origin, dict) or not origin.get("runner"):
        return "origin not stated"
    runner = str(origin["runner"])
    version = f" {origin['runnerVersion']}" if origin.get("runnerVersion") else ""
    if runner == NATIVE_RUNNER:
        return f"native ({runner}{version})"
    text = f"{_HARNESS_NAMES.get(runner, runner)}{version}"
    return f"{text}, model {origin['model']}" if origin.get("model") else text
