"""Exact interval statistics for rates with n: Clopper-Pearson, Wilson, zero-failure bounds.

Everything is computed in ``Decimal`` with private contexts (40 digits for the
results, 50 inside the special functions), so a bound is the same on every
platform and in every process (no libm, no float, no SciPy). Clopper-Pearson
bounds are quantiles of the beta distribution: for integer counts, the
probability p where the binomial tail P(X <= k; n, p) reaches the target. That
tail is the regularised incomplete beta function I_{1-p}(n - k, k + 1),
evaluated by its continued fraction (modified Lentz) with the prefactor from
an exact log-gamma (factorials below 30, Stirling's series with exact
Bernoulli numbers above), and solved by Newton's method inside a bisection
bracket. Summing the binomial terms of the shorter tail costs min(k, n - k)
terms, the continued fraction about sqrt(n): short tails are summed, longer
ones go through the fraction, so a pooled rate over a million executions costs
milliseconds. Both agree to far more than the ten significant digits a report
shows (relative differences below 1e-23 in the 40-digit bounds).

Repeats of one AP-1 item are not independent trials, so callers report every
rate per item as well as pooled; this module only does the arithmetic.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

__all__ = [
    "CONFIDENCE",
    "KAPPA_INTERVAL_METHOD",
    "Interval",
    "Kappa",
    "Proportion",
    "clopper_pearson",
    "cohen_kappa",
    "format_percent",
    "kappa_interval",
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


_INNER = 50
"""Digits inside the special functions: lnGamma of a million is 1.3e7, so ten more digits keep
the prefactor good to 40."""
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
_STIRLING_FROM = 30
_CF_STOP = Decimal("1e-45")
_CF_TINY = Decimal("1e-300")
_CF_MAX_TERMS = 100_000
_SUM_UP_TO = 600
"""Tails of at most this many terms are summed: below it summing costs less than the fraction."""


def _inner() -> decimal.Context:
    context = _context()
    context.prec = _INNER
    return context


@lru_cache(maxsize=1)
def _stirling_terms() -> tuple[tuple[Decimal, ...], Decimal]:
    """B_2m / (2m (2m - 1)) for m = 1..30 (Bernoulli numbers, exact), and ln(2 pi) / 2."""
    from fractions import Fraction

    # Akiyama-Tanigawa: B_j from the table a_m = 1 / (m + 1).
    bernoulli = []
    table: list[Fraction] = []
    for m in range(61):
        table.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            table[j - 1] = j * (table[j - 1] - table[j])
        bernoulli.append(table[0])
    c = _inner()
    terms = tuple(
        c.divide(Decimal(b.numerator), Decimal(b.denominator * (2 * m) * (2 * m - 1)))
        for m, b in ((m, bernoulli[2 * m]) for m in range(1, 31))
    )
    return terms, c.divide(c.ln(c.multiply(2, _PI)), 2)


@lru_cache(maxsize=8192)
def _ln_factorial(m: int) -> Decimal:
    """ln(m!) to 50 digits: exact below 30, Stirling's series (error below 1e-45) above."""
    c = _inner()
    if m < _STIRLING_FROM:
        return c.ln(Decimal(math.factorial(m)))
    terms, half_ln_2pi = _stirling_terms()
    z = Decimal(m + 1)  # ln m! = lnGamma(m + 1)
    total = c.add(c.subtract(c.multiply(c.subtract(z, Decimal("0.5")), c.ln(z)), z), half_ln_2pi)
    square = c.multiply(z, z)
    power = z
    for term in terms:
        piece = c.divide(term, power)
        total = c.add(total, piece)
        if abs(piece) < _CF_STOP:
            break
        power = c.multiply(power, square)
    return total


@lru_cache(maxsize=4096)
def _ln_choose(n: int, k: int) -> Decimal:
    c = _inner()
    return c.subtract(_ln_factorial(n), c.add(_ln_factorial(k), _ln_factorial(n - k)))


def _beta_fraction(a: int, b: int, x: Decimal, c: decimal.Context) -> Decimal:
    """The continued fraction of I_x(a, b) (without its prefactor), by the modified Lentz method;
    it converges fast for x < (a + 1) / (a + b + 2)."""
    one = Decimal(1)
    qab, qap, qam = a + b, a + 1, a - 1

    def guard(value: Decimal) -> Decimal:
        return _CF_TINY if abs(value) < _CF_TINY else value

    d = c.divide(one, guard(c.subtract(one, c.divide(c.multiply(qab, x), qap))))
    cf, h = one, d
    for m in range(1, _CF_MAX_TERMS):
        m2 = 2 * m
        even = c.divide(c.multiply(m * (b - m), x), (qam + m2) * (a + m2))
        d = c.divide(one, guard(c.add(one, c.multiply(even, d))))
        cf = guard(c.add(one, c.divide(even, cf)))
        h = c.multiply(h, c.multiply(d, cf))
        odd = c.divide(c.multiply(-(a + m) * (qab + m), x), (a + m2) * (qap + m2))
        d = c.divide(one, guard(c.add(one, c.multiply(odd, d))))
        cf = guard(c.add(one, c.divide(odd, cf)))
        delta = c.multiply(d, cf)
        h = c.multiply(h, delta)
        if abs(c.subtract(delta, one)) < _CF_STOP:
            return h
    raise ArithmeticError(f"the incomplete beta fraction for a={a}, b={b} did not converge")


def _cdf_and_slope(k: int, n: int, p: Decimal, c: decimal.Context) -> tuple[Decimal, Decimal]:
    """P(X <= k) for X ~ Binomial(n, p) with k < n, and its derivative in p (always < 0).

    A short tail is summed term by term (cheaper below some hundreds of terms); a longer one
    goes through the continued fraction.
    """
    if min(k + 1, n - k) <= _SUM_UP_TO:
        return _summed_cdf_and_slope(k, n, p, c)
    return _fraction_cdf_and_slope(k, n, p, c)


def _summed_cdf_and_slope(
    k: int, n: int, p: Decimal, c: decimal.Context
) -> tuple[Decimal, Decimal]:
    """P(X <= k) and its derivative in p by summing the shorter tail's binomial terms."""
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


def _fraction_cdf_and_slope(
    k: int, n: int, p: Decimal, c: decimal.Context
) -> tuple[Decimal, Decimal]:
    """P(X <= k) and its derivative in p through the incomplete beta function.

    P(X <= k) = I_q(n - k, k + 1) with q = 1 - p, whose prefactor
    q^(n-k) p^(k+1) / B(n - k, k + 1) is (n - k) p P(X = k); the derivative is
    -(n - k) P(X = k) / q.
    """
    w = _inner()
    q = w.subtract(1, p)
    ln_pmf = w.add(_ln_choose(n, k), w.add(w.multiply(k, w.ln(p)), w.multiply(n - k, w.ln(q))))
    pmf = w.exp(ln_pmf)
    a, b = n - k, k + 1
    if w.compare(w.multiply(q, a + b + 2), a + 1) < 0:  # q < (a + 1) / (a + b + 2)
        front = w.multiply(w.multiply(a, pmf), p)
        total = w.divide(w.multiply(front, _beta_fraction(a, b, q, w)), a)
    else:  # I_q(a, b) = 1 - I_p(b, a), with the same prefactor
        front = w.multiply(w.multiply(a, pmf), p)
        total = w.subtract(1, w.divide(w.multiply(front, _beta_fraction(b, a, p, w)), b))
    slope = w.minus(w.divide(w.multiply(n - k, pmf), q))
    return c.plus(total), c.plus(slope)


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


KAPPA_INTERVAL_METHOD = "asymptotic-fleiss-cohen-everitt-1969"
"""How :func:`kappa_interval` is computed (named in every document that reports one)."""


def kappa_interval(pairs: list[tuple[str, str]], kappa: Kappa) -> Interval | None:
    """The two-sided 95% interval of Cohen's kappa, or None where kappa is undefined.

    It is kappa plus and minus 1.96 large-sample standard errors, with the
    variance of Fleiss, Cohen and Everitt (1969), which does not assume kappa is
    0, and is clipped to [-1, 1]. Below 30 rows the normal approximation is poor
    (the caveat of :func:`cohen_kappa` says so); when every pair agrees the
    standard error is 0 and the interval is the point 1.
    """
    if kappa.kappa is None:
        return None
    c = _context()
    n = len(pairs)
    cells: dict[tuple[str, str], int] = {}
    first: dict[str, int] = {}
    second: dict[str, int] = {}
    for a, b in pairs:
        cells[a, b] = cells.get((a, b), 0) + 1
        first[a] = first.get(a, 0) + 1
        second[b] = second.get(b, 0) + 1
    k, pe = kappa.kappa, kappa.expected_agreement
    rest = c.subtract(1, k)
    total = Decimal(0)
    for (a, b), count in cells.items():
        p = c.divide(count, n)
        if a == b:  # 1 - (p_a. + p_.a)(1 - kappa), squared
            weight = c.subtract(1, c.multiply(c.divide(first[a] + second[a], n), rest))
        else:  # (1 - kappa)(p_.a + p_b.)
            weight = c.multiply(rest, c.divide(second.get(a, 0) + first.get(b, 0), n))
        total = c.add(total, c.multiply(p, c.multiply(weight, weight)))
    centre = c.subtract(k, c.multiply(pe, rest))
    total = c.subtract(total, c.multiply(centre, centre))
    variance = c.divide(max(total, Decimal(0)), c.multiply(n, c.power(c.subtract(1, pe), 2)))
    half = c.multiply(_Z95, c.sqrt(variance))
    return Interval(max(Decimal(-1), c.subtract(k, half)), min(Decimal(1), c.add(k, half)))
