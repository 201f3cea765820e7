"""Rates as the report writes them: k of n with every interval, as decimal strings and in words.

A failure rate with no failure reads "0/49; upper bound 5.9%" (the exact
one-sided 95% bound, 1 - 0.05^(1/n)), with the 3/n rule beside it only from
n = 30. Any other rate reads "k/n (x%; 95% CI a%-b%)" with the exact
Clopper-Pearson interval. Values are rounded to ten significant digits so the
text of a report is the same wherever it is computed.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from functools import lru_cache
from typing import Any, TypedDict

from apconform.core.stats import Proportion, format_percent
from apconform.core.stats import proportion as _exact

__all__ = ["ProportionFigure", "proportion_figure", "rate", "rate_text"]

_DIGITS = decimal.Context(prec=10, rounding=decimal.ROUND_HALF_EVEN)


@lru_cache(maxsize=4096)
def proportion(k: int, n: int) -> Proportion:
    """The exact statistics of k in n, solved once per (k, n) (a report repeats many pairs)."""
    return _exact(k, n)


def _d(value: Decimal) -> str:
    return format(_DIGITS.plus(value), "f")


def rate_text(k: int, n: int, *, failures: bool) -> str:
    """The words of a rate (see the module docstring)."""
    p = proportion(k, n)
    if failures and k == 0:
        text = f"0/{n}; upper bound {format_percent(p.upper_bound)}"
        if p.rule_of_three is not None:
            text += f" (3/n rule: {format_percent(p.rule_of_three)})"
        return text
    interval = p.clopper_pearson
    text = (
        f"{k}/{n} ({format_percent(p.rate)}; 95% CI {format_percent(interval.lower)}"
        f"\u2013{format_percent(interval.upper)})"
    )
    if failures:
        text += f"; upper bound {format_percent(p.upper_bound)}"
    return text


class ProportionFigure(TypedDict):
    """A rate as the report writes it (schema class ``ProportionFigure``)."""

    k: str
    n: str
    counts: str
    rate: str
    clopperPearsonLower: str
    clopperPearsonUpper: str
    upperBound95: str
    wilsonLower: str
    wilsonUpper: str
    ruleOfThree: str | None
    text: str


def rate(k: int, n: int, *, failures: bool) -> dict[str, Any] | None:
    """:func:`proportion_figure` as a plain dict, for callers outside the scorer that take one."""
    figure = proportion_figure(k, n, failures=failures)
    return None if figure is None else dict(figure)


def proportion_figure(k: int, n: int, *, failures: bool) -> ProportionFigure | None:
    """The rate document, or None when n is 0 (a rate of nothing is not reported as a number)."""
    if n == 0:
        return None
    p = proportion(k, n)
    return {
        "k": str(k),
        "n": str(n),
        "counts": "failures" if failures else "successes",
        "rate": _d(p.rate),
        "clopperPearsonLower": _d(p.clopper_pearson.lower),
        "clopperPearsonUpper": _d(p.clopper_pearson.upper),
        "upperBound95": _d(p.upper_bound),
        "wilsonLower": _d(p.wilson.lower),
        "wilsonUpper": _d(p.wilson.upper),
        "ruleOfThree": None if p.rule_of_three is None else _d(p.rule_of_three),
        "text": rate_text(k, n, failures=failures),
    }
