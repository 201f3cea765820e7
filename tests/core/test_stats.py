"""Interval statistics against published values and an exact rational check."""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.ap1.scoring.rates import rate
from apconform.core import stats
from apconform.core.stats import (
    Interval,
    _ratio_sum_double,
    _ratio_sum_integer,
    _settle,
    _tail,
    clopper_pearson,
    cohen_kappa,
    format_percent,
    one_sided_upper,
    proportion,
    rule_of_three,
    wilson,
    zero_failure_upper,
)


def _six(value: Decimal) -> str:
    return f"{value:.6f}"


@pytest.mark.parametrize(
    ("n", "bound", "shown"),
    [
        (5, "0.450720", "45.1%"),
        (10, "0.258866", "25.9%"),
        (20, "0.139108", "13.9%"),
        (30, "0.095034", "9.5%"),
        (49, "0.059306", "5.9%"),
        (50, "0.058155", "5.8%"),
        (499, "0.005985", "0.60%"),
        (500, "0.005974", "0.60%"),
    ],
)
def test_zero_failure_bound_matches_the_published_values(n: int, bound: str, shown: str) -> None:
    value = zero_failure_upper(n)
    assert _six(value) == bound
    assert format_percent(value) == shown
    assert one_sided_upper(0, n) == value


def test_clopper_pearson_known_intervals() -> None:
    assert [_six(x) for x in vars(clopper_pearson(1, 10)).values()] == ["0.002529", "0.445016"]
    assert [_six(x) for x in vars(clopper_pearson(5, 10)).values()] == ["0.187086", "0.812914"]
    assert [_six(x) for x in vars(clopper_pearson(3, 100)).values()] == ["0.006230", "0.085176"]
    assert [_six(x) for x in vars(clopper_pearson(0, 10)).values()] == ["0.000000", "0.308497"]
    assert [_six(x) for x in vars(clopper_pearson(10, 10)).values()] == ["0.691503", "1.000000"]


def test_wilson_intervals_of_the_v1_report() -> None:
    shown = {
        (k, n): (format_percent(wilson(k, n).lower), format_percent(wilson(k, n).upper))
        for k, n in [(44, 49), (25, 49), (23, 49)]
    }
    assert shown == {
        (44, 49): ("78.2%", "95.6%"),
        (25, 49): ("37.5%", "64.4%"),
        (23, 49): ("33.7%", "60.6%"),
    }


def test_rule_of_three_only_from_thirty() -> None:
    assert rule_of_three(29) is None
    assert rule_of_three(30) == Decimal("0.1")
    assert proportion(0, 100).rule_of_three == Decimal("0.03")
    assert proportion(1, 100).rule_of_three is None


def test_invalid_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="n must be at least 1"):
        clopper_pearson(0, 0)
    with pytest.raises(ValueError, match="between 0 and n"):
        clopper_pearson(5, 4)


def _cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1)), Fraction(0))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=1, max_value=60).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    )
)
def test_bounds_solve_the_exact_binomial_tail(pair: tuple[int, int]) -> None:
    k, n = pair
    interval = clopper_pearson(k, n)
    eps = Fraction(1, 10**12)
    if k < n:
        upper = Fraction(interval.upper)
        assert _cdf(k, n, upper - eps) > Fraction(1, 40) > _cdf(k, n, upper + eps)
    if k > 0:
        lower = Fraction(interval.lower)
        assert 1 - _cdf(k - 1, n, lower - eps) < Fraction(1, 40) < 1 - _cdf(k - 1, n, lower + eps)


def test_large_pooled_counts_stay_exact_and_ordered() -> None:
    interval = clopper_pearson(30_000, 100_000)
    assert _six(interval.lower) == "0.297161"
    assert _six(interval.upper) == "0.302851"
    assert interval.lower < wilson(30_000, 100_000).lower < interval.upper


def test_cohen_kappa() -> None:
    pairs = [("a", "a")] * 20 + [("a", "b")] * 5 + [("b", "a")] * 10 + [("b", "b")] * 15
    kappa = cohen_kappa(pairs)
    assert (kappa.n, kappa.agreed, kappa.raw_agreement) == (50, 35, Decimal("0.7"))
    assert kappa.expected_agreement == Decimal("0.5")
    assert kappa.kappa == Decimal("0.4")
    assert kappa.caveat is None
    same = cohen_kappa([("x", "x")] * 3)
    assert same.kappa is None
    assert same.caveat is not None and "undefined" in same.caveat and "below 30" in same.caveat


# Reported values (ten significant digits) of large counts, as the summed binomial tail gave
# them before the continued fraction took over long tails.
@pytest.mark.parametrize(
    ("k", "n", "lower", "upper", "one_sided"),
    [
        (30_000, 100_000, "0.2971605754", "0.3028510287", "0.3023928849"),
        (500_000, 1_000_000, "0.4990195192", "0.5009804808", "0.5008229261"),
        (3, 1_000_000, "0.0000006186725502", "0.000008767247788", "0.000007753638099"),
        (1, 100_000, "0.0000002531780478", "0.00005571516035", "0.00004743775717"),
        (99_999, 100_000, "0.9999442848", "0.9999997468", "0.9999994871"),
        (1_000, 2_000, "0.4778505542", "0.5221494458", "0.5186312392"),
        (50, 2_000, "0.01861110568", "0.03282777115", "0.03153802774"),
    ],
)
def test_large_counts_give_the_reported_digits(
    k: int, n: int, lower: str, upper: str, one_sided: str
) -> None:
    shown = rate(k, n, failures=True)
    assert shown is not None
    assert (shown["clopperPearsonLower"], shown["clopperPearsonUpper"]) == (lower, upper)
    assert shown["upperBound95"] == one_sided


def _exact_tail(k: int, n: int, x: Fraction, upper: bool) -> Fraction:
    """P(X <= k) (``upper``) or P(X >= k) for X ~ Binomial(n, x), in exact rationals."""
    top, bottom = x.numerator, x.denominator
    rest = bottom - top
    first, last = (0, k) if upper else (k, n)
    if last < first:
        return Fraction(0)
    if last - first > n // 2:  # sum the shorter side and take it from 1
        other = _exact_tail(k + 1, n, x, False) if upper else _exact_tail(k - 1, n, x, True)
        return 1 - other
    # C(n, i) top**i rest**(n - i), each from the one before by an exact division
    term = comb(n, first) * top**first * rest ** (n - first)
    total = term
    for i in range(first, last):
        term = term * (n - i) * top // ((i + 1) * rest)
        total += term
    return Fraction(total, bottom**n)


_ELEVEN = decimal.Context(prec=11)


def _cell(value: Decimal) -> tuple[Fraction, Fraction]:
    """The open interval between the numbers of 11 or fewer significant digits next to value."""
    below = _ELEVEN.copy()
    below.rounding = decimal.ROUND_FLOOR
    above = _ELEVEN.copy()
    above.rounding = decimal.ROUND_CEILING
    return Fraction(below.plus(value)), Fraction(above.plus(value))


def _printed(value: Decimal) -> tuple[str, str, str]:
    return format(decimal.Context(prec=10).plus(value), "f"), format_percent(value), _six(value)


def _assert_exact(k: int, n: int, value: Decimal, alpha: Fraction, upper: bool) -> None:
    """value and the exact bound lie on the same side of every number of at most 11
    significant digits (so they print alike at 10 digits, as a percentage, to 6 places)."""
    digits = value.as_tuple().digits
    if len(digits) <= 11 or digits[-1] == 0:  # only an exact bound may be reported so
        assert _exact_tail(k, n, Fraction(value), upper) == alpha, (k, n, value)
        return
    low, high = _cell(value)
    at_low, at_high = _exact_tail(k, n, low, upper), _exact_tail(k, n, high, upper)
    if upper:  # P(X <= k) falls as p rises; P(X >= k) rises
        assert at_low > alpha > at_high, (k, n, value)
    else:
        assert at_low < alpha < at_high, (k, n, value)
    # every number strictly inside the cell prints as the value does
    nudge = Fraction(1, 10**40)
    for inside in (low + nudge, high - nudge):
        shown = decimal.Context(prec=60).divide(inside.numerator, inside.denominator)
        assert _printed(shown) == _printed(value), (k, n, value)


_GRID = [(k, n) for n in range(1, 41) for k in range(n + 1)] + [
    (k, n)
    for n in (49, 50, 99, 100, 204, 250, 999, 1000)
    for k in sorted({0, 1, 2, 3, n // 10, n // 3, n // 2, n - n // 3, n - 2, n - 1, n})
]


@pytest.mark.parametrize("confidence", [Decimal("0.95"), Decimal("0.9"), Decimal("0.99")])
def test_bounds_are_exact_to_every_printed_digit(confidence: Decimal) -> None:
    """Against the exact binomial tail in rationals: the two-sided bounds and the one-sided
    upper bound of every k for n up to 40 and spread over n up to 1,000, at three levels."""
    two = Fraction(1) - Fraction(confidence)
    for k, n in _GRID:
        interval = clopper_pearson(k, n, confidence)
        if k > 0:
            _assert_exact(k, n, interval.lower, two / 2, upper=False)
        if k < n:
            _assert_exact(k, n, interval.upper, two / 2, upper=True)
            _assert_exact(k, n, one_sided_upper(k, n, confidence), two, upper=True)
    assert clopper_pearson(0, 7, confidence).lower == 0
    assert clopper_pearson(7, 7, confidence).upper == 1


def test_reported_bounds_carry_twelve_digits() -> None:
    assert clopper_pearson(1, 10).upper == Decimal("0.445016117028")
    assert clopper_pearson(1, 1) == Interval(Decimal("0.025"), Decimal(1))  # exact
    assert one_sided_upper(0, 1) == Decimal("0.95")


def test_settle_reports_the_side_of_a_short_number() -> None:
    """A bound whose 12-digit rounding ends in 0 gets a 13th digit naming its side."""
    assert _settle(Decimal("0.12345678901149"), Decimal("0.12345678901151")) is None
    assert _settle(Decimal("0.1234567890111"), Decimal("0.1234567890112")) == Decimal(
        "0.123456789011"
    )
    above = _settle(Decimal("0.12345000000001"), Decimal("0.12345000000002"))
    assert above == Decimal("0.1234500000001")
    below = _settle(Decimal("0.12344999999998"), Decimal("0.12344999999999"))
    assert below == Decimal("0.1234499999999")
    assert _settle(Decimal("0.12344999999999"), Decimal("0.12345000000001")) is None
    # below a power of ten the grid is finer: 0.1 minus one unit of the 13th digit
    assert _settle(Decimal("0.099999999999996"), Decimal("0.099999999999997")) == Decimal(
        "0.0999999999999"
    )
    for shown in (above, below):
        assert format_percent(shown) == "12.3%" if shown == below else "12.4%"


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [
        (0, 30, "0.1"),
        (3, 100, "0.0852"),
        (300, 1000, "0.33"),
        (700, 1000, "0.66"),
        (999, 1000, "0.9993"),
        (2000, 5000, "0.41"),
        (10, 5000, "0.9"),
    ],
)
@pytest.mark.parametrize("summer", [_ratio_sum_double, _ratio_sum_integer])
def test_the_tail_enclosure_holds_the_exact_tail(k: int, n: int, p: str, summer: object) -> None:
    """Each way of summing gives an interval that holds the exact tail, and a narrow one."""
    for upper in (True, False):
        if (upper and k == n) or (not upper and k == 0):
            continue
        low, high = _tail(k, n, Decimal(p), upper, 44, 30, summer)  # type: ignore[arg-type]
        exact = _exact_tail(k, n, Fraction(p), upper)
        assert Fraction(low) <= exact <= Fraction(high), (upper, low, exact, high)
        assert high - low <= Decimal("1e-12") * high + Decimal("1e-30")


def test_a_bound_the_first_pass_leaves_undecided_is_solved_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first pass too coarse to decide any digit hands every bound to the integer pass."""
    pairs = [(1, 10), (30, 100), (300, 1000), (999, 1000), (3000, 10000)]
    expected = {pair: (clopper_pearson(*pair), one_sided_upper(*pair)) for pair in pairs}
    summed = []

    def integer(*args: object) -> tuple[Decimal, Decimal]:
        summed.append(args)
        return stats._ratio_sum_integer(*args)  # type: ignore[arg-type]

    coarse = ((stats._ratio_sum_double, 2, 12), (integer, 64, 40))
    monkeypatch.setattr(stats, "_PASSES", coarse)
    stats._upper.cache_clear()
    stats._lower.cache_clear()
    try:
        for pair in pairs:
            assert (clopper_pearson(*pair), one_sided_upper(*pair)) == expected[pair]
        assert len(summed) >= 3 * len(pairs)  # every bound went to the integer pass
    finally:
        stats._upper.cache_clear()
        stats._lower.cache_clear()
