"""The population interval: its arithmetic, the document path, and the designs it refuses."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from population_support import ASSUMPTIONS, COMPONENTS, SMALL

from apconform.apx.population.comparison import population_document
from apconform.apx.population.design import Design, Side
from apconform.apx.population.interval import population_interval
from apconform.apx.population.model import Plan, simulate
from apconform.apx.population.synthetic import campaign_documents
from apconform.apx.population.tdist import t_quantile
from apconform.core.errors import ApconformError


def _delta(design: Design) -> float:
    c, p = design.candidate, design.parent
    return math.log2(c.total_work() / c.total_hours()) - math.log2(p.total_work() / p.total_hours())


def _without_pair(design: Design, drop: int) -> Design:
    def side(s: Side) -> Side:
        keep = [j for j in range(design.pairs) if j != drop]
        return Side(tuple(s.work[j] for j in keep), tuple(s.hours[j] for j in keep))

    return Design(design.families, side(design.parent), side(design.candidate))


def _by_hand(design: Design, alpha: float) -> tuple[float, float, float]:
    """The interval from the sums-of-squares decomposition and leave-one-out designs."""
    g, r = design.families, design.pairs
    a_c, a_p = design.candidate.total_work(), design.parent.total_work()
    y = [
        [
            (design.candidate.work[j][f] / a_c - design.parent.work[j][f] / a_p) / math.log(2)
            for j in range(r)
        ]
        for f in range(g)
    ]
    mean = sum(map(sum, y)) / (g * r)
    ss_total = sum((v - mean) ** 2 for row in y for v in row)
    ss_f = r * sum((sum(row) / r - mean) ** 2 for row in y)
    ss_r = g * sum((sum(y[f][j] for f in range(g)) / g - mean) ** 2 for j in range(r))
    ms_f, ms_e = ss_f / (g - 1), (ss_total - ss_f - ss_r) / ((g - 1) * (r - 1))
    outs = [_delta(_without_pair(design, j)) for j in range(r)]
    out_mean = sum(outs) / r
    ms_r = (r - 1) / r * sum((o - out_mean) ** 2 for o in outs) / (g * r)
    parts = [(ms_f, g - 1), (ms_r, r - 1)]
    kept = [(m, d) for m, d in parts if m > ms_e]
    coefficient = 1 - len(kept)
    variance = g * r * (sum(m for m, _ in kept) + coefficient * ms_e)
    dof = (variance / (g * r)) ** 2 / (
        sum(m * m / d for m, d in kept) + (coefficient * ms_e) ** 2 / ((g - 1) * (r - 1))
    )
    half = t_quantile(1 - alpha / 2, dof) * math.sqrt(variance)
    centre = _delta(design)
    return centre - half, centre + half, dof


@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_interval_matches_its_definition(index: int) -> None:
    design = simulate(COMPONENTS, ASSUMPTIONS, Plan(6, 3, 2, 2, 7), 5, index).design
    interval = population_interval(design, 0.05)
    lower, upper, dof = _by_hand(design, 0.05)
    assert math.isclose(interval.lower, lower, rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(interval.upper, upper, rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(interval.degrees_of_freedom, dof, rel_tol=1e-12)
    parts = interval.families + interval.pairs + interval.interaction
    assert math.isclose(interval.standard_error**2, parts, rel_tol=1e-12)


def test_the_t_quantile_reproduces_published_values() -> None:
    # Student's t 0.975 quantiles from the standard tables (1, 2, 5, 9, 30 degrees of freedom).
    for dof, value in (
        (1, 12.7062047),
        (2, 4.3026527),
        (5, 2.5705818),
        (9, 2.2621572),
        (30, 2.0422725),
    ):
        assert abs(t_quantile(0.975, dof) - value) < 5e-8
    assert abs(t_quantile(0.975, 1e9) - 1.959963985) < 1e-9


def _documents(plan: Plan = SMALL, seed: int = 7) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    simulated = simulate(COMPONENTS, ASSUMPTIONS, plan, seed, 0, record=True)
    manifest, comparison = campaign_documents(simulated)
    return simulated, manifest, comparison


def test_the_document_path_gives_the_interval_of_the_simulated_design() -> None:
    simulated, manifest, comparison = _documents()
    document = population_document(manifest, comparison)
    interval = population_interval(simulated.design, 0.05)
    assert document["estimate"] == document["apx01"]["deltaAPx"]
    assert math.isclose(document["estimate"], interval.estimate, rel_tol=1e-12)
    assert math.isclose(document["interval"]["lower"], interval.lower, rel_tol=1e-9)
    assert math.isclose(document["interval"]["upper"], interval.upper, rel_tol=1e-9)
    assert document["design"] == {
        "families": 5,
        "instances": 10,
        "participants": 10,
        "calibrationAttempts": 10,
        "pairs": 5,
    }
    assert document["preregistration"] is None and document["confirmatory"] is False
    assert document["claimSupported"] is None


def _refusal(manifest: Any, comparison: Any) -> ApconformError:
    with pytest.raises(ApconformError) as caught:
        population_document(manifest, comparison)
    return caught.value


def test_too_few_families_or_pairs_are_refused() -> None:
    _, manifest, comparison = _documents(Plan(4, 2, 2, 1, 5))
    error = _refusal(manifest, comparison)
    assert (error.code, error.path) == ("APX-EXT-POP-FAMILIES", "$.manifest.suite.slots")
    _, manifest, comparison = _documents()
    error = _refusal(manifest, {"pairs": comparison["pairs"][:4]})
    assert error.code == "APX-EXT-POP-PAIRS"
    assert "4 pairs" in error.message


def test_an_unnamed_or_single_participant_calibration_is_refused() -> None:
    from apconform.apx.hashing import freeze, rebind

    _, manifest, comparison = _documents()
    unnamed = copy.deepcopy(manifest)
    del unnamed["baseline"]["attempts"][3]["participantId"]
    unnamed = freeze(unnamed)
    pairs = [
        {side: rebind(unnamed, pair[side]) for side in ("parent", "candidate")}
        for pair in comparison["pairs"]
    ]
    error = _refusal(unnamed, {"pairs": pairs})
    assert error.code == "APX-EXT-POP-PARTICIPANTS"
    assert error.path == "$.manifest.baseline.attempts[3].participantId"
    one = copy.deepcopy(manifest)
    for attempt in one["baseline"]["attempts"]:
        attempt["participantId"] = "the-only-participant"
    one = freeze(one)
    pairs = [
        {side: rebind(one, pair[side]) for side in ("parent", "candidate")}
        for pair in comparison["pairs"]
    ]
    assert _refusal(one, {"pairs": pairs}).code == "APX-EXT-POP-PARTICIPANTS"


def test_kernel_refusals_come_first_with_their_apx_codes() -> None:
    _, manifest, comparison = _documents()
    broken = copy.deepcopy(comparison)
    broken["pairs"][0]["parent"]["costUSD"] = -1
    error = _refusal(manifest, broken)
    assert error.code == "APX-VAL-NUMBER"
    assert error.message.startswith("APx validation: costUSD must be finite")


def _design(parent: list[list[float]], candidate: list[list[float]], hours: float = 1.0) -> Design:
    pairs = len(parent)
    return Design(
        families=len(parent[0]),
        parent=Side(tuple(map(tuple, parent)), (hours,) * pairs),
        candidate=Side(tuple(map(tuple, candidate)), (hours,) * pairs),
    )


def test_zero_power_and_degenerate_designs_are_refused() -> None:
    ones = [[1.0] * 5 for _ in range(5)]
    with pytest.raises(ApconformError) as caught:
        population_interval(_design(ones, [[0.0] * 5 for _ in range(5)]), 0.05)
    assert caught.value.code == "APX-EXT-POP-POWER"
    # Identical runs and families: every level varies by nothing, so no interval is stated.
    with pytest.raises(ApconformError) as caught:
        population_interval(_design(ones, [[2.0] * 5 for _ in range(5)]), 0.05)
    assert caught.value.code == "APX-EXT-POP-DEGENERATE"
    # All the candidate's work in one pair: leaving that pair out leaves none.
    lone = [[0.0] * 5 for _ in range(5)]
    lone[2] = [1.0] * 5
    with pytest.raises(ApconformError) as caught:
        population_interval(_design(ones, lone), 0.05)
    assert (caught.value.code, caught.value.path) == (
        "APX-EXT-POP-DEGENERATE",
        "$.comparison.pairs[2]",
    )
