"""Cohen's kappa's 95% interval, checked against the delta method computed apart in fractions."""

from __future__ import annotations

import random
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from apconform.core.stats import cohen_kappa, kappa_interval

_Z = Decimal("1.959963984540054235524594430520551527955")


def _delta_method(pairs: list[tuple[str, str]]) -> tuple[Decimal, Decimal]:
    """kappa -/+ z standard errors, the variance by the delta method over the multinomial cells.

    The gradient of kappa = (po - pe) / (1 - pe) in the cell p_ij is
    ([i = j](1 - pe) - (p_.i + p_j.)(1 - po)) / (1 - pe)^2, and the variance is
    (sum p g^2 - (sum p g)^2) / n: a derivation of its own, not the formula under test.
    """
    n = len(pairs)
    cells: dict[tuple[str, str], Fraction] = {}
    rows: dict[str, Fraction] = {}
    cols: dict[str, Fraction] = {}
    for a, b in pairs:
        cells[a, b] = cells.get((a, b), Fraction(0)) + Fraction(1, n)
        rows[a] = rows.get(a, Fraction(0)) + Fraction(1, n)
        cols[b] = cols.get(b, Fraction(0)) + Fraction(1, n)
    po = sum((p for (a, b), p in cells.items() if a == b), Fraction(0))
    pe = sum((rows[c] * cols.get(c, Fraction(0)) for c in rows), Fraction(0))
    kappa = (po - pe) / (1 - pe)
    grad = {
        (a, b): ((1 if a == b else 0) * (1 - pe) - (cols.get(a, 0) + rows.get(b, 0)) * (1 - po))
        / (1 - pe) ** 2
        for (a, b) in cells
    }
    mean = sum(cells[c] * grad[c] for c in cells)
    variance = (sum(cells[c] * grad[c] ** 2 for c in cells) - mean**2) / n
    with localcontext() as ctx:
        ctx.prec = 60
        k = Decimal(kappa.numerator) / Decimal(kappa.denominator)
        se = (Decimal(variance.numerator) / Decimal(variance.denominator)).sqrt()
        return max(Decimal(-1), k - _Z * se), min(Decimal(1), k + _Z * se)


@pytest.mark.parametrize("seed", range(8))
def test_the_interval_is_the_delta_method_interval(seed: int) -> None:
    draw = random.Random(seed)
    marks = "ABCD"[: draw.randint(2, 4)]
    pairs = []
    for _ in range(draw.randint(30, 400)):
        a = draw.choice(marks)
        pairs.append((a, a if draw.random() < 0.6 else draw.choice(marks)))
    kappa = cohen_kappa(pairs)
    interval = kappa_interval(pairs, kappa)
    assert interval is not None and kappa.kappa is not None
    lower, upper = _delta_method(pairs)
    assert abs(interval.lower - lower) < Decimal("1e-30")
    assert abs(interval.upper - upper) < Decimal("1e-30")
    assert interval.lower < kappa.kappa < interval.upper


def test_edges() -> None:
    agree = [("A", "A"), ("B", "B"), ("A", "A")]
    whole = kappa_interval(agree, cohen_kappa(agree))
    assert whole is not None and (whole.lower, whole.upper) == (1, 1)  # no spread at all
    one_mark = [("A", "A"), ("A", "A")]
    assert kappa_interval(one_mark, cohen_kappa(one_mark)) is None  # kappa undefined
    small = [("A", "A"), ("A", "B"), ("B", "B"), ("B", "B"), ("A", "A")]
    clipped = kappa_interval(small, cohen_kappa(small))
    assert clipped is not None and clipped.upper == 1 and clipped.lower > -1
