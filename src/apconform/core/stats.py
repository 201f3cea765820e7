"""Exact interval statistics for rates with n: Clopper-Pearson, Wilson, zero-failure bounds.

A Clopper-Pearson bound is the p where a binomial tail reaches its share of 1 - confidence:
P(X <= k; n, p) = alpha for the upper bound, P(X >= k; n, p) = alpha for the lower. Each is
reported as the exact bound correctly rounded to 12 significant digits (see `_settle` for
the one refinement), so every rounding a report prints, to 10 digits or as a percentage,
is the exact bound's: the same on every platform and in every process.

How, in well under a millisecond: the tail is summed at a starting p from its first term
away from the mode, where the terms fall geometrically (O(sqrt(n)) terms, in integers or
in IEEE 754 doubles with every rounding bounded), giving an interval that certainly holds
it; the tail's derivative has a closed form, whose Taylor series solves for the p where
the tail reaches alpha; the result is an interval that certainly holds the bound, and
the bound is reported once that interval decides all 12 digits. A bound an interval does
not decide (a matter of one in thousands) is solved again with exact integers and more
digits. Decimal contexts are private; no library function (libm, SciPy) is called.

Repeats of one AP-1 item are not independent trials, so callers report every rate per
item as well as pooled; this module only does the arithmetic.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
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
"""Digits of ln(m!): lnGamma of a million is 1.3e7, so ten more digits keep C(n, k) good to 40."""
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
_STIRLING_FROM = 30
_STIRLING_STOP = Decimal("1e-45")
_EXACT_CHOOSE_UP_TO = 1000
"""C(n, k) is an exact integer up to this n (cheap there); Stirling's series above."""

_SIGNIFICANT = 12
"""Significant digits of a reported bound (see `_settle`)."""
_DOUBLE_UNIT = Decimal(2) ** -53
_DOUBLE_FACTOR_BELOW = 1 - 1e-6
_CHUNK = 32
_MAX_TERMS = 50_000_000
_MAX_STEPS = 200
_MAX_ORDER = 64


def _inner() -> decimal.Context:
    context = _context()
    context.prec = _INNER
    return context


@lru_cache(maxsize=1)
def _stirling_terms() -> tuple[tuple[Decimal, ...], Decimal]:
    """B_2m / (2m (2m - 1)) for m = 1..30 (Bernoulli numbers, exact), and ln(2 pi) / 2."""
    # The tangent numbers T_1..T_30 in integers (Knuth and Buckholtz's recurrence), then
    # B_2m = (-1)**(m-1) 2m T_m / (4**m (4**m - 1)).
    count = 30
    tangent = [0, 1] + [0] * (count - 1)
    for j in range(2, count + 1):
        tangent[j] = (j - 1) * tangent[j - 1]
    for i in range(2, count + 1):
        for j in range(i, count + 1):
            tangent[j] = (j - i) * tangent[j - 1] + (j - i + 2) * tangent[j]
    c = _inner()
    terms = tuple(
        c.divide((-1) ** (m - 1) * tangent[m], 4**m * (4**m - 1) * (2 * m - 1))
        for m in range(1, count + 1)
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
        if piece.copy_abs() < _STIRLING_STOP:
            break
        power = c.multiply(power, square)
    return total


@lru_cache(maxsize=4096)
def _choose(n: int, k: int) -> Decimal:
    """C(n, k), exact up to n = 1000, else to 45 significant digits."""
    if n <= _EXACT_CHOOSE_UP_TO:
        return Decimal(math.comb(n, k))
    c = _inner()
    return c.exp(c.subtract(_ln_factorial(n), c.add(_ln_factorial(k), _ln_factorial(n - k))))


def _settle(low: Decimal, high: Decimal) -> Decimal | None:
    """What to report for a bound known to lie in [low, high]; None if that does not decide it.

    The bound correctly rounded to 12 significant digits. Where that rounding ends in 0, it
    may be a number of 11 or fewer digits, which a shorter rounding treats as a boundary:
    then a thirteenth digit, 1 above it or 9 below it, says on which side the bound lies.
    Either way the value and the bound lie on the same side of every number of 11 or fewer
    significant digits, so rounding the value to 10 or fewer digits, or to a percentage,
    gives the digits of the exact bound.
    """
    twelve = decimal.Context(prec=_SIGNIFICANT, rounding=decimal.ROUND_HALF_EVEN)
    value = twelve.plus(low)
    if twelve.plus(high) != value:
        return None  # [low, high] holds a rounding boundary
    digits = value.as_tuple().digits
    if len(digits) == _SIGNIFICANT and digits[-1] != 0:
        return value
    step = Decimal(1).scaleb(value.adjusted() - _SIGNIFICANT)
    c = _context()
    if high < value:
        return c.subtract(value, step)
    if low > value:
        return c.add(value, step)
    return None


_Summer = Callable[[int, int, int, int, int, decimal.Context], tuple[Decimal, Decimal]]


def _ratio_sum_double(
    a: int, b: int, num: int, den: int, bits: int, c: decimal.Context
) -> tuple[Decimal, Decimal]:
    """Sum_j prod_{i<j} (a - i) num / ((b + i) den) to a relative 2**-bits, in binary64.

    The first pass's sum, for speed: IEEE 754 multiplies and divides each round correctly
    (no library function is called), so a term j steps out carries under 4j + 4 roundings
    and the running sum under count more, each a relative 2**-53: the interval returned
    holds the sum whatever the rounding did, the same on every platform. The terms not
    summed are bounded by a geometric series of the next factor (the factors fall).
    """
    ratio = num / den  # correctly rounded
    term = total = 1.0
    count = 0
    while True:
        for a_i, b_i in zip(range(a, a - _CHUNK, -1), range(b, b + _CHUNK), strict=True):
            term = term * a_i * ratio / b_i
            total += term
        count += _CHUNK
        a, b = a - _CHUNK, b + _CHUNK
        if a <= 0 or term == 0.0:
            rest = 0.0
            break
        factor = a * ratio / b
        if factor < _DOUBLE_FACTOR_BELOW:
            rest = term * factor / (1.0 - factor)
            if rest * 2.0**bits <= total:
                break
        if count > _MAX_TERMS:
            raise ArithmeticError("a binomial tail did not converge")
    grow = c.multiply(6 * (count + 2), _DOUBLE_UNIT)
    low = c.multiply(Decimal(total), c.subtract(1, grow))
    # rest is a bound of the true rest up to its own roundings, at most a relative 1e-6
    high = c.multiply(c.add(Decimal(total), c.multiply(Decimal(rest), 2)), c.add(1, grow))
    return low, high


def _ratio_sum_integer(
    a: int, b: int, num: int, den: int, bits: int, c: decimal.Context
) -> tuple[Decimal, Decimal]:
    """The same sum in fixed-point integers: exact up to floors it counts.

    Every product is floored, so the sum found is a lower bound; the rounding it lost and
    the terms not summed give the upper bound.
    """
    scale = bits + 48
    ratio = (num << scale) // den
    if ratio.bit_length() < bits + 32:  # a tiny factor: keep its digits
        scale += bits + 32 - ratio.bit_length()
        ratio = (num << scale) // den
    one = 1 << scale
    term, total, count = one, one, 0
    while True:
        for a_i, b_i in zip(range(a, a - _CHUNK, -1), range(b, b + _CHUNK), strict=True):
            term = (term * a_i * ratio >> scale) // b_i
            total += term
        count += _CHUNK
        a, b = a - _CHUNK, b + _CHUNK
        if a <= 0 or term == 0:
            rest = 0
            break
        spare = b * one - a * ratio  # > 0 while the next factor a ratio / (b one) is below 1
        if spare > 0:
            rest = -(-term * a * ratio // spare)  # the geometric bound of the unsummed tail
            if rest << bits <= total:
                break
        if count > _MAX_TERMS:
            raise ArithmeticError("a binomial tail did not converge")
    # A floor loses under one unit and a loss carries into every later term times factors
    # below 1: under 2 count**2 units in all. `ratio` is short of the factor by under
    # 2**-(its bits - 1) relatively, which term j feels j times.
    lost = 2 * count * count + (count * (total + rest) >> (ratio.bit_length() - 2)) + 2
    unit = c.power(2, -scale)
    return c.multiply(total, unit), c.multiply(total + rest + lost, unit)


def _tail(
    k: int, n: int, p: Decimal, upper: bool, bits: int, prec: int, summer: _Summer
) -> tuple[Decimal, Decimal]:
    """An interval holding P(X <= k) (``upper``) or P(X >= k) for X ~ Binomial(n, p).

    The smaller tail is summed from its first term away from the mode, so the terms fall
    geometrically and O(sqrt(n)) of them reach 2**-bits; the other is 1 minus it.
    """
    c = _context()
    c.prec = prec
    numerator, exponent = _exact(p)
    whole = 10**exponent
    p_num, q_num = numerator, whole - numerator  # p = p_num / whole, q = q_num / whole
    q = c.subtract(1, p)
    first = c.multiply(_choose(n, k), c.multiply(c.power(p, k), c.power(q, n - k)))  # P(X = k)
    # Downward from i, the factor is i q / ((n - i + 1) p); upward, (n - i) p / ((i + 1) q).
    if upper:
        if k * q_num < (n - k + 1) * p_num:  # k is beyond the mode, below it
            low, high = summer(k, n - k + 1, q_num, p_num, bits, c)
            start, complement = first, False
        else:  # P(X <= k) = 1 - P(X >= k + 1)
            start = c.divide(c.multiply(first, c.multiply(n - k, p)), c.multiply(k + 1, q))
            low, high = summer(n - k - 1, k + 2, p_num, q_num, bits, c)
            complement = True
    elif (n - k) * p_num < (k + 1) * q_num:
        low, high = summer(n - k, k + 1, p_num, q_num, bits, c)
        start, complement = first, False
    else:  # P(X >= k) = 1 - P(X <= k - 1)
        start = c.divide(c.multiply(first, c.multiply(k, q)), c.multiply(n - k + 1, p))
        low, high = summer(k - 1, n - k + 2, q_num, p_num, bits, c)
        complement = True
    slack = Decimal(1).scaleb(6 - prec)  # the Decimal roundings above, generously
    small = c.multiply(c.multiply(start, low), c.subtract(1, slack))
    large = c.multiply(c.multiply(start, high), c.add(1, slack))
    if complement:  # rounded outwards: 1 - a tiny tail may not fit the digits
        down, up = c.copy(), c.copy()
        down.rounding, up.rounding = decimal.ROUND_FLOOR, decimal.ROUND_CEILING
        return down.subtract(1, large), up.subtract(1, small)
    return small, large


def _exact(value: Decimal) -> tuple[int, int]:
    """value = numerator / 10**exponent exactly (value a finite Decimal in (0, 1))."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int) and not sign
    numerator = int("".join(map(str, digits)))
    if exponent >= 0:
        return numerator * 10**exponent, 0
    return numerator, -exponent


class _Series:
    """The tail's change from p to p + h, divided by its slope at p: Q(h) = int_0^h f, f the
    Taylor series of ((p + x) / p)**m ((q - x) / q)**ell, to a given number of terms."""

    def __init__(self, m: int, ell: int, p: Decimal, q: Decimal, order: int, c: decimal.Context):
        # f' (p + x)(q - x) = (m (q - x) - ell (p + x)) f gives, for f = sum e_i x**i,
        # p q (i + 1) e_(i+1) = (m q - ell p - (q - p) i) e_i + (i - 1 - m - ell) e_(i-1).
        pq, spread, lead = (
            c.multiply(p, q),
            c.subtract(q, p),
            c.subtract(c.multiply(m, q), c.multiply(ell, p)),
        )
        e = [Decimal(1), c.divide(lead, pq)]
        for i in range(1, order - 1):
            e.append(
                c.divide(
                    c.fma(
                        c.subtract(lead, c.multiply(spread, i)),
                        e[i],
                        c.multiply(i - 1 - m - ell, e[i - 1]),
                    ),
                    c.multiply(pq, i + 1),
                )
            )
        e = e[:order]
        self.slope_terms = e[::-1]
        self.value_terms = [c.divide(t, i + 1) for i, t in enumerate(e)][::-1]
        self.c = c

    def at(self, h: Decimal) -> tuple[Decimal, Decimal]:
        """Q(h) and Q'(h) (Horner)."""
        c = self.c
        value, slope = Decimal(0), Decimal(0)
        for v, s in zip(self.value_terms, self.slope_terms, strict=True):
            value = c.fma(value, h, v)
            slope = c.fma(slope, h, s)
        return c.multiply(value, h), slope

    def last(self, h: Decimal) -> Decimal:
        """The magnitude of Q's last term at h: what the terms left out are below."""
        c = self.c
        return c.multiply(self.value_terms[0], c.power(h, len(self.value_terms))).copy_abs()

    def invert(self, target: Decimal, h: Decimal, tiny: Decimal) -> tuple[Decimal, Decimal] | None:
        """The h with Q(h) = target, by Newton's method from ``h`` until a step is below
        ``tiny`` times h (the error is then about its square), and Q' there; None if it
        fails."""
        c = self.c
        for _ in range(_MAX_STEPS):
            value, slope = self.at(h)
            if slope <= 0:
                return None
            step = c.divide(c.subtract(value, target), slope)
            h = c.subtract(h, step)
            if step.copy_abs() <= tiny * h.copy_abs() or step.is_zero():
                return h, slope
        return None


def _solve_series(
    m: int,
    ell: int,
    p: Decimal,
    q: Decimal,
    target: Decimal,
    reach: Decimal,
    bits: int,
    c: decimal.Context,
) -> tuple[_Series, Decimal, Decimal, bool] | None:
    """Solve Q(h) = target with as many Taylor terms as it takes: (series, h, Q'(h), whether
    the series converged there), or None when no h within ``reach`` was found."""
    if target.copy_abs() >= reach:
        return None
    # The series behaves like exp(c_1 x + c_2 x**2): its terms at h = target fall below the
    # precision wanted from about the order where lam**i / i! does, lam = |c_1 h| + |c_2 h h|.
    c1 = c.subtract(c.divide(m, p), c.divide(ell, q))
    c2 = c.add(c.divide(m, c.multiply(p, p)), c.divide(ell, c.multiply(q, q)))
    lam = c.add(
        c.multiply(c1, target).copy_abs(), c.multiply(c2, c.multiply(target, target)).sqrt(c)
    )
    lam = c.max(lam, c.divide(target.copy_abs(), reach))
    goal = Decimal(2) ** -(bits + 8)
    order, term = 4, c.divide(c.power(lam, 4), 24)
    while term > goal and order < _MAX_ORDER:
        order += 1
        term = c.divide(c.multiply(term, lam), order)
    # Newton from the second-order solution of h + c_1 h**2 / 2 = target
    h = c.subtract(target, c.multiply(c.divide(c1, 2), c.multiply(target, target)))
    while True:
        series = _Series(m, ell, p, q, order, c)
        found = series.invert(target, h, goal)
        if found is None or found[0].copy_abs() >= reach:
            return None
        h, rate = found
        if series.last(h) <= c.multiply(target.copy_abs(), goal):
            return series, h, rate, True
        if order >= _MAX_ORDER:
            return series, h, rate, False
        order = min(2 * order, _MAX_ORDER)


def _enclose(
    k: int,
    n: int,
    alpha: Decimal,
    upper: bool,
    start: Decimal,
    pass_: tuple[_Summer, int, int],
) -> tuple[Decimal, Decimal, Decimal]:
    """An interval holding the p where P(X <= k) (``upper``) or P(X >= k) equals ``alpha``.

    Each step sums the tail once at p0 (the expensive part, O(sqrt(n)) terms), then moves
    along the tail's derivative, which has a closed form: for the upper bound
    -(n - k) C(n, k) p**k q**(n-k-1), for the lower k C(n, k) p**(k-1) q**(n-k). Its
    Taylor series around p0 gives the tail at p0 + h as a series in h, solved for the
    target; a guess within a fraction of a standard deviation needs one step. Returns
    (low, high, p0 of the last step).
    """
    summer, bits, prec = pass_
    c = _context()
    c.prec = prec
    m, ell, factor = (k, n - k - 1, n - k) if upper else (k - 1, n - k, k)
    sign = -1 if upper else 1
    p0 = start
    for _ in range(_MAX_STEPS):
        q0 = c.subtract(1, p0)
        low_tail, high_tail = _tail(k, n, p0, upper, bits, prec, summer)
        slope = c.multiply(
            c.multiply(factor, _choose(n, k)), c.multiply(c.power(p0, m), c.power(q0, ell))
        )
        middle = c.divide(c.add(low_tail, high_tail), 2)
        target = c.divide(c.multiply(sign, c.subtract(alpha, middle)), slope)
        # the series of ln(p0 + h) and ln(q0 - h) converge within
        reach = c.divide(p0 if p0 < q0 else q0, 2)
        found = _solve_series(m, ell, p0, q0, target, reach, bits, c)
        if found is not None:
            series, h, rate, converged = found
            if converged:
                # The ends, for the tail's two bounds, by one linear step from h: off by
                # under half the step squared times |(ln Q')'| = |m / (p0 + x) - ell / (q0 - x)|.
                half = c.divide(
                    c.divide(c.subtract(high_tail, low_tail), c.multiply(2, slope)), rate
                )
                near = c.add(h.copy_abs(), half)
                curve = c.add(
                    c.divide(m, c.subtract(p0, near)), c.divide(ell, c.subtract(q0, near))
                )
                margin = c.add(
                    c.add(
                        c.multiply(c.multiply(half, half), curve),
                        c.divide(c.multiply(series.last(h), 64), rate),
                    ),
                    c.add(
                        c.multiply(half, Decimal(2) ** -bits),
                        c.multiply(p0, Decimal(1).scaleb(6 - prec)),
                    ),
                )
                centre = c.add(p0, h)
                return (
                    c.subtract(c.subtract(centre, half), margin),
                    c.add(c.add(centre, half), margin),
                    p0,
                )
            step = h
        else:
            step = target
        # Too far for the series: move within its reach and sum the tail again there.
        if step.copy_abs() >= reach:
            step = c.multiply(reach.copy_sign(step), Decimal("0.9"))
        p0 = decimal.Context(prec=min(prec, 30)).plus(c.add(p0, step))
    raise ArithmeticError(f"the binomial quantile for k={k}, n={n} did not converge")


@lru_cache(maxsize=16)
def _normal_quantile(alpha: Decimal) -> Decimal:
    """z with P(Z > z) = alpha (0 < alpha <= 1/2), to about 4e-4 (Abramowitz-Stegun 26.2.23):
    only a starting point, which decides nothing reported."""
    c = _context()
    t = c.sqrt(c.multiply(-2, c.ln(alpha)))
    top = c.add(
        Decimal("2.515517"),
        c.multiply(t, c.add(Decimal("0.802853"), c.multiply(t, Decimal("0.010328")))),
    )
    bottom = c.add(
        1,
        c.multiply(
            t,
            c.add(
                Decimal("1.432788"),
                c.multiply(t, c.add(Decimal("0.189269"), c.multiply(t, Decimal("0.001308")))),
            ),
        ),
    )
    return c.subtract(t, c.divide(top, bottom))


def _guess(k: int, n: int, alpha: Decimal, upper: bool) -> Decimal:
    """Wilson's score bound with continuity correction: close to Clopper-Pearson for large n."""
    c = _context()
    c.prec = 28
    z = _normal_quantile(alpha)
    z2 = c.multiply(z, z)
    rate = c.divide(k, n)
    if upper:
        inner = c.add(c.subtract(c.add(z2, 2), c.divide(1, n)), c.multiply(4 * (n - k - 1), rate))
        top = c.add(c.add(2 * k, z2), c.add(1, c.multiply(z, c.sqrt(c.max(inner, Decimal(0))))))
    else:
        inner = c.add(
            c.subtract(c.subtract(z2, 2), c.divide(1, n)), c.multiply(4 * (n - k + 1), rate)
        )
        top = c.subtract(
            c.add(2 * k, z2), c.add(1, c.multiply(z, c.sqrt(c.max(inner, Decimal(0)))))
        )
    guess = c.divide(top, c.multiply(2, c.add(n, z2)))
    if upper and not rate < guess < 1:
        guess = c.divide(c.add(rate, 1), 2)
    if not upper and not 0 < guess < rate:
        guess = c.divide(rate, 2)
    return guess


_PASSES: tuple[tuple[_Summer, int, int], ...] = (
    (_ratio_sum_double, 44, 30),
    (_ratio_sum_integer, 64, 40),
    (_ratio_sum_integer, 120, 60),
)
"""(how the tail is summed, its relative truncation 2**-bits, digits of the Decimal work): a
first pass, then more precise ones for the rare bound a pass leaves undecided."""


def _bound(k: int, n: int, alpha: Decimal, upper: bool) -> Decimal:
    """The Clopper-Pearson bound where the tail beyond k has probability alpha, reported as
    `_settle` says; more precise passes when one leaves it undecided."""
    start = _guess(k, n, alpha, upper)
    for pass_ in _PASSES:
        low, high, start = _enclose(k, n, alpha, upper, start, pass_)
        value = _settle(low, high)
        if value is not None:
            return value
    candidate = _short(low, high)
    if candidate is not None and _tail_is(k, n, candidate, upper, alpha):
        return candidate
    raise ArithmeticError(f"the Clopper-Pearson bound for k={k}, n={n} is undecided")


def _short(low: Decimal, high: Decimal) -> Decimal | None:
    """The number of at most 12 significant digits in [low, high], if there is one: what an
    undecided bound may be exactly."""
    twelve = decimal.Context(prec=_SIGNIFICANT)
    for value in (twelve.plus(low), twelve.plus(high)):
        if low <= value <= high:
            return value.normalize(twelve)
    return None


def _tail_is(k: int, n: int, x: Decimal, upper: bool, alpha: Decimal) -> bool:
    """Whether P(X <= k) (``upper``) or P(X >= k) at p = x is exactly alpha (integers)."""
    numerator, exponent = _exact(x)
    whole = 10**exponent
    rest = whole - numerator
    indices = range(k + 1) if upper else range(k, n + 1)
    total = sum(math.comb(n, i) * numerator**i * rest ** (n - i) for i in indices)
    alpha_numerator, alpha_exponent = _exact(alpha)
    return bool(total * 10**alpha_exponent == alpha_numerator * whole**n)


def _power_bound(alpha: Decimal, n: int, complement: bool) -> Decimal:
    """alpha**(1/n), or 1 - alpha**(1/n), reported as `_settle` says."""
    if n == 1:
        return _context().subtract(1, alpha) if complement else alpha
    for prec in (50, 100):
        c = _context()
        c.prec = prec
        root = c.power(alpha, c.divide(1, n))
        margin = c.multiply(root, Decimal(1).scaleb(4 - prec))  # 1/n and the power, rounded
        if complement:
            root = c.subtract(1, root)
        low, high = c.subtract(root, margin), c.add(root, margin)
        value = _settle(low, high)
        if value is not None:
            return value
    candidate = _short(low, high)  # alpha may be an exact n-th power (0.01 and n = 2)
    if candidate is not None:
        base = c.subtract(1, candidate) if complement else candidate
        base_numerator, base_exponent = _exact(base)
        alpha_numerator, alpha_exponent = _exact(alpha)
        if base_numerator**n * 10**alpha_exponent == alpha_numerator * 10 ** (base_exponent * n):
            return candidate
    raise ArithmeticError(f"the bound alpha**(1/{n}) is undecided")


def _tail_alpha(confidence: Decimal, sides: int) -> Decimal:
    if not Decimal(0) < confidence < Decimal(1):
        raise ValueError(f"confidence must be between 0 and 1 (got {confidence})")
    return _context().divide(_context().subtract(1, confidence), sides)


@lru_cache(maxsize=4096)
def _upper(k: int, n: int, alpha: Decimal) -> Decimal:
    if k == n:
        return Decimal(1)
    if k == 0:
        return _power_bound(alpha, n, complement=True)
    return _bound(k, n, alpha, upper=True)


@lru_cache(maxsize=4096)
def _lower(k: int, n: int, alpha: Decimal) -> Decimal:
    if k == 0:
        return Decimal(0)
    if k == n:
        return _power_bound(alpha, n, complement=False)
    return _bound(k, n, alpha, upper=False)


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
