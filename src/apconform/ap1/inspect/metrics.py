"""AP-1 rates as Inspect metrics, so the eval summary and Inspect's viewer show them.

Each rate is counted from the per-execution scores the scorer puts in each
sample's score metadata, with the denominators of the score report: D1 over
the auto-scored executions (correct or incorrect), D7.1 over the EV-2
executions of the base condition (D7.1b of the instruction-removed one),
D7.2(a) over the invocations whose operands could be observed, D7.2(b) over
the calls with a decided operation, D7.3 over the releases compared with
the last return. Each comes with its k and n. A convenience view: the
profile, with bounds, evidence classes and per-item figures, comes only from
``apconform ap1 score``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

__all__ = ["EXECUTION_SCORE", "RATES", "ap1_rates", "tally"]

EXECUTION_SCORE = "ap1ExecutionScore"
"""The key of the per-execution score in a sample score's metadata."""

RATES = (
    ("D1", "correct"),
    ("D7.1", "invoked"),
    ("D7.1b", "invoked"),
    ("D7.2(a)", "grounded"),
    ("D7.2(b)", "correct"),
    ("D7.3", "exact"),
)
"""Each rate the metric reports: (dimension, what k counts)."""


def _outcome(score: dict[str, Any], member: str) -> Any:
    value = score.get(member)
    return value.get("outcome") if isinstance(value, dict) else None


def tally(scores: Iterable[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(k, n) of every rate in ``RATES`` over per-execution score documents."""
    counts = {dimension: [0, 0] for dimension, _ in RATES}

    def add(dimension: str, outcome: Any, good: str, bad: tuple[str, ...]) -> None:
        if outcome == good:
            counts[dimension][0] += 1
            counts[dimension][1] += 1
        elif outcome in bad:
            counts[dimension][1] += 1

    for score in scores:
        add("D1", _outcome(score, "accuracy"), "CORRECT", ("INCORRECT",))
        invocation = score.get("invocation") or {}
        if invocation.get("evidenceClass") == "EV-2":
            dimension = "D7.1" if score.get("condition") == "base" else "D7.1b"
            add(dimension, invocation.get("outcome"), "INVOKED", ("NOT-INVOKED",))
        for call in (score.get("provenance") or {}).get("invocations") or []:
            add("D7.2(a)", call.get("outcome"), "OPERANDS-GROUNDED", ("OPERAND-ORIGINATED",))
        for call in (score.get("operation") or {}).get("calls") or []:
            add("D7.2(b)", call.get("outcome"), "OPERATION-CORRECT", ("WRONG-OPERATION",))
        add("D7.3", _outcome(score, "transcription"), "TRANSCRIBED-EXACT", ("TRANSCRIBED-ALTERED",))
    return {dimension: (k, n) for dimension, (k, n) in counts.items()}


@metric(name="ap1_rates")
def ap1_rates() -> Metric:
    """Every AP-1 rate with its k and n (see the module docstring); no rate when n is 0."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        documents = [
            s.score.metadata[EXECUTION_SCORE]
            for s in scores
            if isinstance(s.score.metadata, dict)
            and isinstance(s.score.metadata.get(EXECUTION_SCORE), dict)
        ]
        out: dict[str, float | None] = {}
        counted = tally(documents)
        for dimension, counts in RATES:
            k, n = counted[dimension]
            out[f"{dimension} {counts}"] = k / n if n else None
            out[f"{dimension} k"] = float(k)
            out[f"{dimension} n"] = float(n)
        return out

    return compute
