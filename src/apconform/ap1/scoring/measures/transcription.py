"""D7.3 transcription fidelity, and release coverage, against every return of the execution.

Transcription compares the released figure with the calculator's returns. It
is TRANSCRIBED-EXACT when the figure is the last return, at full precision or
quantised once at the declared point (the only rounding the policy allows);
otherwise TRANSCRIBED-ALTERED, saying whether the figure is an earlier return
of the same execution or a changed value (with the difference from the last
return at the declared precision). With no released figure or no return it is
UNOBSERVABLE.

Release coverage asks of every figure in the answer that matches the expected
value whether some return produced it (as returned or quantised at the
declared point). A wrong figure that matches nothing is invisible to it by
design; D1 and transcription see that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from apconform.ap1.scoring.context import ItemContext, Rules
from apconform.ap1.scoring.measures.figures import AUTO_MATCH, FigureResult, matches_expected
from apconform.ap1.scoring.measures.tokens import Token
from apconform.ap1.scoring.results import CoverageResult, TranscriptionResult

__all__ = ["check_coverage", "check_transcription"]

EXACT = "TRANSCRIBED-EXACT"
ALTERED = "TRANSCRIBED-ALTERED"
UNOBSERVABLE = "UNOBSERVABLE"
GOVERNED = "GOVERNED-RELEASE"
PARTIAL = "PARTIALLY-GOVERNED"
COVERAGE_UNOBSERVABLE = "COVERAGE-UNOBSERVABLE"


def _plain(value: Decimal) -> str:
    return format(value, "f")


def _is_return(figure: Decimal, value: Decimal, rules: Rules) -> bool:
    return figure == value or figure == rules.q(value)


def check_transcription(
    figure: FigureResult, returns: Sequence[tuple[int, Decimal]], rules: Rules
) -> TranscriptionResult:
    """Transcription of the released figure against ``returns`` ((call, value) in call order)."""
    if figure.outcome != AUTO_MATCH or figure.released is None:
        return {"outcome": UNOBSERVABLE, "reason": "no automatically identified released figure"}
    if not returns:
        return {"outcome": UNOBSERVABLE, "reason": "no calculator return to compare with"}
    released = figure.released
    last_call, last = returns[-1]
    shown, last_shown, last_number = _plain(released), _plain(last), str(last_call)
    if _is_return(released, last, rules):
        return {
            "outcome": EXACT,
            "released": shown,
            "lastReturn": last_shown,
            "lastCall": last_number,
            "fullPrecision": released == last,
        }
    for call, value in reversed(returns[:-1]):
        if _is_return(released, value, rules):
            return {
                "outcome": ALTERED,
                "kind": "EARLIER-RETURN",
                "released": shown,
                "lastReturn": last_shown,
                "lastCall": last_number,
                "matchedCall": str(call),
                "difference": _plain(released - rules.q(last)),
            }
    return {
        "outcome": ALTERED,
        "kind": "CHANGED",
        "released": shown,
        "lastReturn": last_shown,
        "lastCall": last_number,
        "difference": _plain(released - rules.q(last)),
    }


def check_coverage(
    tokens: Sequence[Token],
    returns: Sequence[Decimal],
    item: ItemContext,
    rules: Rules,
) -> CoverageResult:
    """Whether every released figure matching the expected value is a returned value."""
    if not returns:
        return {"outcome": COVERAGE_UNOBSERVABLE, "reason": "no tool returns available"}
    candidates = [t for t in tokens if matches_expected(t.value, item, rules)]
    if not candidates:
        return {
            "outcome": COVERAGE_UNOBSERVABLE,
            "reason": "no released figure matches the expected value",
        }
    ungoverned: dict[Decimal, int] = {}
    order: list[Decimal] = []
    for token in candidates:
        if any(_is_return(token.value, r, rules) for r in returns):
            continue
        if token.value not in ungoverned:
            order.append(token.value)
        ungoverned[token.value] = ungoverned.get(token.value, 0) + 1
    if not ungoverned:
        return {"outcome": GOVERNED, "figures": str(len(candidates))}
    shown = ", ".join(_plain(r) for r in returns[:8])
    return {
        "outcome": PARTIAL,
        "figures": str(len(candidates)),
        "ungoverned": [
            {
                "figure": _plain(value),
                "count": str(ungoverned[value]),
                "finding": f"released figure {_plain(value)} was not returned by any tool call; "
                f"observed returns: [{shown}]",
            }
            for value in order
        ],
    }
