"""The hierarchical interval for the APx improvement over the population a design samples.

The estimate is the APx 0.1 deltaAPx, d = log2(A_c / B_c) - log2(A_p / B_p),
where A is the credited hours and B the elapsed hours of a configuration summed
over the pairs. The design crosses task families (each with its instances and
the participants who calibrated it) with paired campaigns, so the variance of
d has three parts: between families, between pairs, and families by pairs.

- Families and the interaction come from a two-way analysis of variance of the
  linearised contributions y[f][r] = (w_c[r][f] / A_c - w_p[r][f] / A_p) / ln 2
  (G rows, R columns): mean squares MS_F (G - 1 degrees of freedom) and MS_E
  ((G - 1)(R - 1)). A family's contribution carries its instances and its
  calibrated reference hours, so instance and participant variation is inside
  the family level (the "ultimate cluster" of survey sampling).
- Pairs come from the delete-one-pair jackknife of d itself, V_J = (R - 1)/R
  times the summed squared deviations of the R leave-one-out estimates, read as
  a mean square MS_R = V_J / (G R). The jackknife re-estimates both ratios of
  elapsed times exactly, where linearisation understates heavy-tailed times.
- Under the two-way random-effects model the variance of d is G R (MS_F + MS_R
  - MS_E): the interaction is counted once. A part whose mean square does not
  exceed MS_E is set to zero (the usual truncation), so the variance is never
  negative. The t quantile takes Satterthwaite's degrees of freedom of that sum.

The choice of this method over a multi-level percentile bootstrap, and its
measured coverage, are in docs/apx/population.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from apconform.apx.population import errors
from apconform.apx.population.design import Design
from apconform.apx.population.tdist import t_quantile
from apconform.core.errors import ApconformError, ErrorCode

__all__ = ["MIN_FAMILIES", "MIN_PAIRS", "PopulationInterval", "population_interval"]

MIN_FAMILIES = 5
"""Fewer task families cannot support the family level (refused with APX-EXT-POP-FAMILIES)."""
MIN_PAIRS = 5
"""As APx 0.1: fewer independent pairs give no interval (APX-EXT-POP-PAIRS)."""

_LN2 = math.log(2.0)


@dataclass(frozen=True)
class PopulationInterval:
    """The interval, its standard error, degrees of freedom and variance components."""

    estimate: float
    lower: float
    upper: float
    confidence: float
    standard_error: float
    degrees_of_freedom: float
    families: float
    pairs: float
    interaction: float

    @property
    def width(self) -> float:
        return self.upper - self.lower


def _refuse(code: ErrorCode, message: str, path: str = "$.comparison.pairs") -> ApconformError:
    return ApconformError(code, message, path=path)


def check_levels(families: int, pairs: int) -> None:
    """Refuse designs with too few families or pairs."""
    if families < MIN_FAMILIES:
        raise _refuse(
            errors.DESIGN_FAMILIES,
            f"the design has {families} task famil{'y' if families == 1 else 'ies'}; "
            f"a population interval needs at least {MIN_FAMILIES}",
            "$.manifest.suite.slots",
        )
    if pairs < MIN_PAIRS:
        raise _refuse(
            errors.DESIGN_PAIRS,
            f"the design has {pairs} pair{'' if pairs == 1 else 's'}; "
            f"a population interval needs at least {MIN_PAIRS}",
        )


def _delta(work_c: float, hours_c: float, work_p: float, hours_p: float) -> float:
    return math.log2(work_c / hours_c) - math.log2(work_p / hours_p)


def population_interval(
    design: Design, alpha: float, estimate: float | None = None
) -> PopulationInterval:
    """The interval of confidence 1 - ``alpha``, centred on ``estimate`` (default: computed).

    Refuses (APX-EXT-POP-*) too few families or pairs, a configuration with no
    credited work, a pair whose removal leaves none, and a variance of zero.
    """
    g, r = design.families, design.pairs
    check_levels(g, r)
    parent, candidate = design.parent, design.candidate
    a_p, a_c = parent.total_work(), candidate.total_work()
    b_p, b_c = parent.total_hours(), candidate.total_hours()
    if a_p <= 0 or a_c <= 0:
        side = "parent" if a_p <= 0 else "candidate"
        raise _refuse(
            errors.DESIGN_POWER, f"the {side} configuration has no credited work in any pair"
        )
    centre = _delta(a_c, b_c, a_p, b_p) if estimate is None else estimate
    # Linearised contributions, rows = families, columns = pairs.
    table = [
        [(candidate.work[j][f] / a_c - parent.work[j][f] / a_p) / _LN2 for j in range(r)]
        for f in range(g)
    ]
    grand = sum(sum(row) for row in table) / (g * r)
    row_means = [sum(row) / r for row in table]
    col_means = [sum(table[f][j] for f in range(g)) / g for j in range(r)]
    ms_f = r * sum((m - grand) ** 2 for m in row_means) / (g - 1)
    residual = 0.0
    for f in range(g):
        row, row_mean = table[f], row_means[f]
        for j in range(r):
            residual += (row[j] - row_mean - col_means[j] + grand) ** 2
    ms_e = residual / ((g - 1) * (r - 1))
    # Delete-one-pair jackknife of the estimate itself.
    leave_out = []
    for j in range(r):
        w_c = a_c - sum(candidate.work[j])
        w_p = a_p - sum(parent.work[j])
        if w_c <= 0 or w_p <= 0:
            raise _refuse(
                errors.DESIGN_DEGENERATE,
                f"leaving out pair {j} leaves a configuration without credited work, so the "
                "pair level cannot be estimated",
                f"$.comparison.pairs[{j}]",
            )
        leave_out.append(_delta(w_c, b_c - candidate.hours[j], w_p, b_p - parent.hours[j]))
    mean_out = sum(leave_out) / r
    v_jack = (r - 1) / r * sum((value - mean_out) ** 2 for value in leave_out)
    ms_r = v_jack / (g * r)
    scale = g * r
    families = scale * max(0.0, ms_f - ms_e)
    pairs = scale * max(0.0, ms_r - ms_e)
    interaction = scale * ms_e
    variance = families + pairs + interaction
    if not variance > 0:
        raise _refuse(
            errors.DESIGN_DEGENERATE,
            "every level of the design varies by nothing: the variance of the estimate is 0",
        )
    terms = [
        (
            interaction - (scale * ms_e if families else 0.0) - (scale * ms_e if pairs else 0.0),
            (g - 1) * (r - 1),
        )
    ]
    if families:
        terms.append((scale * ms_f, g - 1))
    if pairs:
        terms.append((scale * ms_r, r - 1))
    denominator = sum(value * value / df for value, df in terms)
    dof = variance * variance / denominator
    error = math.sqrt(variance)
    half = t_quantile(1.0 - alpha / 2.0, dof) * error
    return PopulationInterval(
        estimate=centre,
        lower=centre - half,
        upper=centre + half,
        confidence=1.0 - alpha,
        standard_error=error,
        degrees_of_freedom=dof,
        families=families,
        pairs=pairs,
        interaction=interaction,
    )
