"""Exact interval statistics for rates with n: Clopper-Pearson, Wilson, zero-failure bounds.

Everything is computed in ``Decimal`` with a private 40-digit context, so a
bound is the same on every platform and in every process (no libm, no float,
no SciPy). Clopper-Pearson bounds are quantiles of the beta distribution,
which for integer counts equal the probability where an exact binomial tail
sum reaches the target; that sum is solved by Newton's method inside a
bisection bracket, summing only the shorter tail so the cost grows with
min(k, n - k), not with n.

Repeats of one AP-1 item are not independent trials, so callers report every
rate per item as well as pooled; this module only does the arithmetic.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

__all__ = [
    "CONFIDENCE",
    "Interval",
    "Kappa",
    "Proportion",
    "clopper_pearson",
    "cohen_kappa",
    "format_percent",
    "one_sided_upper",
    "proportion",
    "rule_of_three",
    "wilson",
    "zero_failure_upper",
]

CONFIDENCE = Decimal("0.95")
"""The only confidence level the kit reports (AP-1 D1 and D7.5 ask for 95%)."""
_Z95 = Decimal("1.959963984540054235524594430520551527955")
"""The 97.5% quantile of the standard normal distribution (two-sided 95%), to 40 digits."""
_PRECISION = 40
_RELATIVE_STOP = Decimal("1e-24")
_MAX_STEPS = 400
_KAPPA_CAVEAT_BELOW = 30


def _context() -> decimal.Context:
    return decimal.Context(
        prec=_PRECISION,
        rounding=decimal.ROUND_HALF_EVEN,
        Emax=999_999_999,
        Emin=-999_999_999,
        traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
    )


def _check(k: int, n: int) -> None:
    if (
        isinstance(k, bool)
        or isinstance(n, bool)
        or not isinstance(k, int)
        or not isinstance(n, int)
    ):
        raise TypeError("k and n must be whole numbers")
    if n < 1:
        raise ValueError(f"n must be at least 1 (got {n}); a rate of nothing has no interval")
    if not 0 <= k <= n:
        raise ValueError(f"k must be between 0 and n (got k={k}, n={n})")


@dataclass(frozen=True)
class Interval:
    """A closed interval of probabilities."""

    lower: Decimal
    upper: Decimal


def _cdf_and_slope(k: int, n: int, p: Decimal, c: decimal.Context) -> tuple[Decimal, Decimal]:
    """P(X <= k) for X ~ Binomial(n, p), and its derivative in p (always <= 0)."""
    q = c.subtract(1, p)
    if k + 1 <= n - k:
        term = c.power(q, n)  # P(X = 0)
        total = term
        ratio = c.divide(p, q)
        for i in range(k):
            term = c.multiply(term, c.multiply(ratio, c.divide(n - i, i + 1)))
            total = c.add(total, term)
        last = term  # P(X = k)
    else:
        term = c.power(p, n)  # P(X = n)
        upper_tail = Decimal(0)
        ratio = c.divide(q, p)
        last = term if k == n else Decimal(0)
        for i in range(n, k, -1):
            upper_tail = c.add(upper_tail, term)
            term = c.multiply(term, c.multiply(ratio, c.divide(i, n - i + 1)))
            if i - 1 == k:
                last = term
        total = c.subtract(1, upper_tail)
    slope = c.minus(c.divide(c.multiply(n - k, last), q)) if k < n else Decimal(0)
    return total, slope


def _solve(k: int, n: int, target: Decimal, start: Decimal) -> Decimal:
    """The p in (0, 1) with P(X <= k; n, p) = target (0 <= k < n, 0 < target < 1)."""
    c = _context()
    low, high = Decimal(0), Decimal(1)  # F(low) > target > F(high); F decreases in p
    p = start if Decimal(0) < start < Decimal(1) else c.divide(k + 1, n + 2)
    for _ in range(_MAX_STEPS):
        value, slope = _cdf_and_slope(k, n, p, c)
        if value > target:
            low = p
        else:
            high = p
        step = c.divide(c.subtract(value, target), slope) if slope else None
        candidate = c.subtract(p, step) if step is not None else None
        if candidate is None or not low < candidate < high:
            candidate = c.divide(c.add(low, high), 2)
        if abs(c.subtract(candidate, p)) <= c.multiply(_RELATIVE_STOP, candidate):
            return candidate
        if c.subtract(high, low) <= c.multiply(_RELATIVE_STOP, low):
            return candidate
        p = candidate
    raise ArithmeticError(f"the binomial quantile for k={k}, n={n} did not converge")


def _tail_alpha(confidence: Decimal, sides: int) -> Decimal:
    if not Decimal(0) < confidence < Decimal(1):
        raise ValueError(f"confidence must be between 0 and 1 (got {confidence})")
    return _context().divide(_context().subtract(1, confidence), sides)


@lru_cache(maxsize=4096)
def _upper(k: int, n: int, alpha: Decimal) -> Decimal:
    c = _context()
    if k == n:
        return Decimal(1)
    if k == 0:
        return c.subtract(1, c.power(alpha, c.divide(1, n)))
    return _solve(k, n, alpha, _wilson(k, n).upper)


@lru_cache(maxsize=4096)
def _lower(k: int, n: int, alpha: Decimal) -> Decimal:
    c = _context()
    if k == 0:
        return Decimal(0)
    if k == n:
        return c.power(alpha, c.divide(1, n))
    return _solve(k - 1, n, c.subtract(1, alpha), _wilson(k, n).lower)


def clopper_pearson(k: int, n: int, confidence: Decimal = CONFIDENCE) -> Interval:
    """The exact two-sided Clopper-Pearson interval for k successes (or failures) in n."""
    _check(k, n)
    alpha = _tail_alpha(confidence, 2)
    return Interval(_lower(k, n, alpha), _upper(k, n, alpha))


def one_sided_upper(k: int, n: int, confidence: Decimal = CONFIDENCE) -> Decimal:
    """The exact one-sided Clopper-Pearson upper bound (for k = 0: 1 - (1 - confidence)^(1/n))."""
    _check(k, n)
    return _upper(k, n, _tail_alpha(confidence, 1))


def zero_failure_upper(n: int, confidence: Decimal = CONFIDENCE) -> Decimal:
    """1 - 0.05^(1/n): the one-sided 95% upper bound on a failure rate after 0 failures in n."""
    return one_sided_upper(0, n, confidence)


def rule_of_three(n: int) -> Decimal | None:
    """3/n, shown beside a zero-failure bound only when n >= 30 (below it overstates the bound)."""
    _check(0, n)
    return _context().divide(3, n) if n >= 30 else None


def wilson(k: int, n: int, confidence: Decimal = CONFIDENCE) -> Interval:
    """The Wilson score interval (two-sided 95% only)."""
    _check(k, n)
    if confidence != CONFIDENCE:
        raise ValueError("the Wilson interval is implemented for 95% confidence only")
    return _wilson(k, n)


@lru_cache(maxsize=4096)
def _wilson(k: int, n: int) -> Interval:
    c = _context()
    z2 = c.multiply(_Z95, _Z95)
    p = c.divide(k, n)
    denominator = c.add(1, c.divide(z2, n))
    centre = c.divide(c.add(p, c.divide(z2, 2 * n)), denominator)
    spread_sq = c.add(c.divide(c.multiply(p, c.subtract(1, p)), n), c.divide(z2, 4 * n * n))
    half = c.divide(c.multiply(_Z95, c.sqrt(spread_sq)), denominator)
    lower = Decimal(0) if k == 0 else max(Decimal(0), c.subtract(centre, half))
    upper = Decimal(1) if k == n else min(Decimal(1), c.add(centre, half))
    return Interval(lower, upper)


@dataclass(frozen=True)
class Proportion:
    """k out of n with every interval the kit reports."""

    k: int
    n: int
    rate: Decimal
    clopper_pearson: Interval
    upper_bound: Decimal
    wilson: Interval
    rule_of_three: Decimal | None


def proportion(k: int, n: int) -> Proportion:
    """Every statistic of k in n at 95%; rule_of_three only when k = 0 and n >= 30."""
    _check(k, n)
    return Proportion(
        k=k,
        n=n,
        rate=_context().divide(k, n),
        clopper_pearson=clopper_pearson(k, n),
        upper_bound=one_sided_upper(k, n),
        wilson=wilson(k, n),
        rule_of_three=rule_of_three(n) if k == 0 else None,
    )


def format_percent(value: Decimal) -> str:
    """A probability as a percentage: one decimal from 1% up, two significant digits below."""
    c = _context()
    percent = c.multiply(value, 100)
    if percent >= 1 or percent.is_zero():
        shown = percent.quantize(Decimal("0.1"), rounding=decimal.ROUND_HALF_UP, context=c)
    else:
        places = -percent.adjusted() + 1
        shown = percent.quantize(
            Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP, context=c
        )
    text = format(shown, "f")
    return f"{text}%"


@dataclass(frozen=True)
class Kappa:
    """Agreement of two raters over the same n items."""

    n: int
    agreed: int
    raw_agreement: Decimal
    expected_agreement: Decimal
    kappa: Decimal | None
    caveat: str | None


def cohen_kappa(pairs: list[tuple[str, str]]) -> Kappa:
    """Cohen's kappa and raw agreement; kappa is undefined (None) when chance agreement is 1."""
    n = len(pairs)
    if n == 0:
        raise ValueError("agreement needs at least one item rated by both scorers")
    c = _context()
    agreed = sum(1 for a, b in pairs if a == b)
    first: dict[str, int] = {}
    second: dict[str, int] = {}
    for a, b in pairs:
        first[a] = first.get(a, 0) + 1
        second[b] = second.get(b, 0) + 1
    observed = c.divide(agreed, n)
    expected = Decimal(0)
    for category, count in first.items():
        expected = c.add(expected, c.divide(c.multiply(count, second.get(category, 0)), n * n))
    if expected == 1:
        kappa = None
        caveat = "kappa is undefined: both scorers gave one and the same mark to every item"
    else:
        kappa = c.divide(c.subtract(observed, expected), c.subtract(1, expected))
        caveat = None
    if n < _KAPPA_CAVEAT_BELOW:
        small = f"n = {n} is below {_KAPPA_CAVEAT_BELOW}; kappa is unstable at this size"
        caveat = small if caveat is None else f"{caveat}; {small}"
    return Kappa(n, agreed, observed, expected, kappa, caveat)
