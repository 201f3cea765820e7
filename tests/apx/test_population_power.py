"""apx power: the closed-form answer of a degenerate case, determinism, the budget, the search."""

from __future__ import annotations

import math

import pytest
from population_support import power_request

from apconform.apx.population import power_request as run_power
from apconform.apx.population import power_svg
from apconform.apx.population.tdist import t_cdf, t_quantile
from apconform.core.deadline import call_within
from apconform.core.errors import ApconformError

SIGMA = 0.1
EFFECT = 0.12


def _noncentral_t_above(c: float, dof: int, shift: float) -> float:
    """P(T > c) for the noncentral t with ``dof`` degrees of freedom and noncentrality ``shift``.

    T = (Z + shift) / sqrt(X / dof) with X chi-square: the probability is the expectation over
    X of P(Z > c sqrt(X / dof) - shift), integrated with Simpson's rule over the chi-square
    density (written with lgamma), far beyond its mass.
    """
    steps, top = 4000, dof + 40 * math.sqrt(2 * dof) + 40
    h = top / steps
    total = 0.0
    for i in range(steps + 1):
        x = i * h
        if x == 0:
            density = 0.0
        else:
            log_density = (dof / 2 - 1) * math.log(x) - x / 2 - (dof / 2) * math.log(2)
            density = math.exp(log_density - math.lgamma(dof / 2))
        tail = 0.5 * math.erfc((c * math.sqrt(x / dof) - shift) / math.sqrt(2))
        total += (1 if i in (0, steps) else 4 if i % 2 else 2) * density * tail
    return total * h / 3


def _closed_form_power(pairs: int) -> float:
    """Run level only, log-normal times: the interval is a paired t interval on log times."""
    dof = pairs - 1
    shift = EFFECT * math.log(2) * math.sqrt(pairs) / (math.sqrt(2) * SIGMA)
    return _noncentral_t_above(t_quantile(0.975, dof), dof, shift)


def _degenerate(simulations: int, up_to: int) -> dict[str, object]:
    zero = dict.fromkeys(
        (
            "familyAcceptance",
            "familyImprovement",
            "instanceAcceptance",
            "runAcceptance",
            "taskTime",
            "familyHours",
            "participantHours",
            "attemptHours",
        ),
        0.0,
    )
    components = {**zero, "runTime": SIGMA, "humanAcceptance": 1.0, "tail": "lognormal"}
    return power_request(
        components=components,
        assumptions={"improvement": EFFECT, "parentAcceptance": 1.0, "candidateAcceptance": 1.0},
        plan={
            "families": 5,
            "instancesPerFamily": 1,
            "participantsPerClass": 1,
            "attemptsPerParticipant": 1,
            "runsPerConfiguration": 5,
            "pairs": 5,
        },
        target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": up_to},
        simulations=simulations,
        seed=20261130,
        budget=4_000_000,
    )


def test_the_noncentral_t_helper_is_the_t_distribution_at_zero_shift() -> None:
    for dof in (4, 9, 23):
        assert math.isclose(_noncentral_t_above(2.0, dof, 0.0), 1 - t_cdf(2.0, dof), abs_tol=1e-6)


def test_a_one_level_normal_case_reproduces_the_closed_form_answer() -> None:
    # Only the run level varies (log-normal elapsed times, SD 0.1); every slot is credited.
    # The population interval is then a paired t interval with pairs - 1 degrees of freedom,
    # whose power is the noncentral t's: the simulated table agrees within simulation error
    # and the searched number of pairs is the closed-form one, give or take one.
    result = run_power(_degenerate(800, 30))
    closed = next(n for n in range(5, 31) if _closed_form_power(n) >= 0.8)
    assert closed == 25
    assert abs(result["answer"]["value"] - closed) <= 1
    for row in result["table"]:
        pairs = row["plan"]["pairs"]
        expected = _closed_form_power(pairs)
        error = math.sqrt(expected * (1 - expected) / row["simulations"])
        assert abs(row["power"] - expected) <= 4 * error + 0.005, (pairs, row["power"], expected)
        assert row["intervals"] == row["simulations"]


def test_the_analysis_is_deterministic_per_seed() -> None:
    request = power_request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 12})
    first = run_power(request)
    assert run_power(request) == first
    other = run_power({**request, "seed": 8})
    assert [row["power"] for row in other["table"]] != [row["power"] for row in first["table"]]
    assert [row["plan"]["pairs"] for row in first["table"]] == sorted(
        row["plan"]["pairs"] for row in first["table"]
    )


def test_the_simulations_stop_at_a_deadline_and_run_unchanged_within_one() -> None:
    request = power_request()
    with pytest.raises(ApconformError) as caught:
        call_within(0.0, run_power, request)
    assert caught.value.code == "APC-DEADLINE"
    assert "time limit of 0 seconds" in caught.value.message
    assert call_within(600.0, run_power, request) == run_power(request)


def test_a_plan_beyond_the_budget_is_refused_before_any_work() -> None:
    request = power_request(
        target={"kind": "power", "value": 0.8, "vary": "families", "upTo": 1000},
        simulations=10000,
    )
    with pytest.raises(ApconformError) as caught:
        run_power(request)
    assert (caught.value.code, caught.value.path) == ("APX-EXT-POW-BUDGET", "$.budget")
    assert "budget is 2,000,000" in caught.value.message


def test_targets_outside_their_range_are_refused() -> None:
    request = power_request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 4})
    with pytest.raises(ApconformError) as caught:
        run_power(request)
    assert caught.value.code == "APX-EXT-POW-TARGET"
    request = power_request(target={"kind": "power", "value": 3.0, "vary": "pairs", "upTo": 9})
    with pytest.raises(ApconformError) as caught:
        run_power(request)
    assert (caught.value.code, caught.value.path) == ("APX-EXT-POW-TARGET", "$.target.value")


def test_the_source_and_tail_rules_refuse_with_their_codes() -> None:
    request = power_request()
    del request["components"]
    with pytest.raises(ApconformError) as caught:
        run_power(request)
    assert caught.value.code == "APX-EXT-POW-SOURCE"
    components = {**power_request()["components"], "tail": "pareto"}
    with pytest.raises(ApconformError) as caught:
        run_power(power_request(components=components))
    assert (caught.value.code, caught.value.path) == ("APX-EXT-POW-TAIL", "$.components.tailIndex")
    components["tailIndex"] = 2.5
    with pytest.raises(ApconformError) as caught:
        run_power(power_request(components=components))
    assert (caught.value.code, caught.value.path) == ("APX-EXT-POW-TAIL", "$.components.taskTime")


def test_a_width_target_and_the_plot() -> None:
    request = power_request(target={"kind": "width", "value": 1.4, "vary": "pairs", "upTo": 20})
    result = run_power(request)
    widths = {row["plan"]["pairs"]: row["meanWidth"] for row in result["table"]}
    answer = result["answer"]["value"]
    assert widths[answer] <= 1.4
    assert all(width > 1.4 for pairs, width in widths.items() if pairs < answer)
    svg = power_svg(result)
    assert svg.startswith("<svg") and "mean interval width" in svg
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert f"answer: {answer}" in svg


def test_counts_written_as_integral_floats_give_the_integer_answer() -> None:
    # JSON lets 12 be written 12.0 and the schema accepts it; schemathesis sent
    # participantsPerClass 39.0 to apx.simulate and met a TypeError (a 500) before the fix.
    from apconform.conformance.operations import get_operation

    integers = power_request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 12})
    floats = power_request(
        plan={name: float(value) for name, value in integers["plan"].items()},
        target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 12.0},
        simulations=100.0,
        seed=7.0,
    )
    answer = run_power(floats)
    assert answer == run_power(integers)
    assert {type(row["plan"]["pairs"]) for row in answer["table"]} == {int}
    assert [row["plan"]["pairs"] for row in answer["table"]] == [12]
    simulate = get_operation("apx.simulate")
    asked = {
        "components": integers["components"],
        "assumptions": integers["assumptions"],
        "plan": integers["plan"],
        "seed": 7,
        "simulation": 354,
    }
    as_floats = {**asked, "plan": floats["plan"], "seed": 7.0, "simulation": 354.0}
    assert simulate(as_floats) == simulate(asked)
    assert len(simulate(asked)["referenceHours"]) == integers["plan"]["families"]
