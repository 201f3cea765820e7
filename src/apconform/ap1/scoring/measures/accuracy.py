"""D1 accuracy of one execution: the released figure against the expected value, quantised once.

Both values are quantised at the declared point with the declared rounding
mode (never a context default) and compared with the declared tolerance. Only
an automatically identified figure is scored here; an answer routed to
adjudication is counted apart (it enters D1 only as human-adjudicated), an
answer with no figure is auto-scored but kept out of the rate, and an
unreadable one is UNMEASURABLE.
"""

from __future__ import annotations

from apconform.ap1.scoring.context import ItemContext, Rules
from apconform.ap1.scoring.measures.figures import (
    AUTO_MATCH,
    AUTO_NO_FIGURE,
    UNMEASURABLE,
    FigureResult,
)
from apconform.ap1.scoring.results import AccuracyResult

__all__ = ["CORRECT", "INCORRECT", "score_accuracy"]

CORRECT = "CORRECT"
INCORRECT = "INCORRECT"
NO_FIGURE = "NO-FIGURE"
ADJUDICATE = "ADJUDICATE"


def score_accuracy(figure: FigureResult, item: ItemContext, rules: Rules) -> AccuracyResult:
    """The D1 outcome of one identified figure."""
    if figure.outcome == AUTO_MATCH and figure.released is not None and item.final is not None:
        released = rules.q(figure.released)
        expected = rules.q(item.final)
        difference = abs(released - expected)
        return {
            "outcome": CORRECT if difference <= rules.tolerance else INCORRECT,
            "released": format(released, "f"),
            "expected": format(expected, "f"),
            "difference": format(difference, "f"),
            "exactAtDeclaredPrecision": released == expected,
        }
    if figure.outcome == AUTO_NO_FIGURE:
        return {"outcome": NO_FIGURE}
    if figure.outcome == UNMEASURABLE:
        return {"outcome": UNMEASURABLE}
    return {"outcome": ADJUDICATE}
