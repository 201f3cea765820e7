"""Interval statistics against published values and an exact rational check."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.ap1.scoring.rates import rate
from apconform.core.stats import (
    _context,
    _fraction_cdf_and_slope,
    _summed_cdf_and_slope,
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


@pytest.mark.parametrize(
    ("k", "n"), [(0, 1000), (5, 1000), (300, 1000), (700, 1000), (999, 1000), (2000, 5000)]
)
def test_the_continued_fraction_and_the_summed_tail_agree(k: int, n: int) -> None:
    c = _context()
    for p in (Decimal("0.0001"), Decimal(k + 1) / (n + 2), Decimal("0.5"), Decimal("0.9999")):
        summed = _summed_cdf_and_slope(k, n, p, c)
        fraction = _fraction_cdf_and_slope(k, n, p, c)
        # relative 1e-30, or 1e-38 absolute: 1 minus the longer tail, summed in 40 digits, cannot
        # resolve a probability far below 1e-40 that the fraction still gives
        for a, b in zip(summed, fraction, strict=True):
            assert abs(a - b) <= Decimal("1e-30") * max(abs(a), abs(b)) + Decimal("1e-38"), (p, a)
