"""Simulation-based power and precision: how many families, instances, participants or pairs.

Each evaluated plan is simulated ``simulations`` times under the model
(``model``); every simulated comparison gets the population interval
(``interval``), and the plan's row records how many gave an interval, the
power (the interval lies wholly on the assumed improvement's side of 0; with
improvement 0 on either side, the rate of false claims), the coverage of the
assumed improvement and the mean width. With a target, the varied number runs
from the plan's value to ``upTo``: ``upTo`` is evaluated first (if it misses,
the answer is null), then the plan's value, then a bisection between the
largest value that misses and the smallest that meets it. Simulation i uses
the same streams for every plan, so neighbouring plans share their draws.

Work is bounded before anything runs: one simulated comparison costs its
cells (agent slots plus human attempts, ``model.cells``), and the most plans
a search can evaluate (2 plus the bisection's steps) times the simulations
times the cells of the largest plan must fit the budget, else the request is
refused (APX-EXT-POW-BUDGET).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from apconform.apx.population import errors, text
from apconform.apx.population.interval import MIN_FAMILIES, MIN_PAIRS, population_interval
from apconform.apx.population.model import Assumptions, Components, Plan, cells, simulate
from apconform.core.deadline import check_deadline
from apconform.core.errors import ApconformError

__all__ = [
    "DEFAULT_BUDGET",
    "MAX_BUDGET",
    "PowerRow",
    "check_components",
    "evaluate_plan",
    "power_analysis",
    "power_document",
    "power_request",
]

DEFAULT_BUDGET = 2_000_000
MAX_BUDGET = 10_000_000
_LIMITS = {"families": 1000, "instancesPerFamily": 1000, "participantsPerClass": 1000, "pairs": 100}


@dataclass(frozen=True)
class PowerRow:
    """The simulated behaviour of the interval for one plan."""

    plan: Plan
    simulations: int
    intervals: int
    power: float
    coverage: float
    mean_width: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": self.plan.to_dict(),
            "simulations": self.simulations,
            "intervals": self.intervals,
            "power": self.power,
            "coverage": self.coverage,
            "meanWidth": self.mean_width,
        }


def evaluate_plan(
    components: Components,
    assumptions: Assumptions,
    plan: Plan,
    *,
    alpha: float,
    simulations: int,
    seed: int,
) -> PowerRow:
    """Simulate one plan ``simulations`` times and summarise the intervals."""
    truth = assumptions.improvement
    claims = covered = given = 0
    widths = 0.0
    for index in range(simulations):
        check_deadline()  # the API's request timeout: stop when nobody waits any more
        design = simulate(components, assumptions, plan, seed, index).design
        try:
            interval = population_interval(design, alpha)
        except ApconformError:
            continue  # no interval (no credited work, a degenerate level): no claim either
        given += 1
        widths += interval.width
        if interval.lower <= truth <= interval.upper:
            covered += 1
        if (truth >= 0 and interval.lower > 0) or (truth <= 0 and interval.upper < 0):
            claims += 1
    return PowerRow(
        plan=plan,
        simulations=simulations,
        intervals=given,
        power=claims / simulations,
        coverage=covered / simulations,
        mean_width=widths / given if given else None,
    )


def _with(plan: Plan, dimension: str, value: int) -> Plan:
    return replace(plan, **{dimension: value})


def _meets(row: PowerRow, kind: str, target: float) -> bool:
    if kind == "power":
        return row.power >= target
    return (
        row.mean_width is not None
        and row.intervals == row.simulations
        and (row.mean_width <= target)
    )


def _plan_of(value: Mapping[str, Any]) -> Plan:
    return Plan.from_dict(value)


def _check_request(
    plan: Plan, target: Mapping[str, Any] | None, plan_doc: Mapping[str, Any]
) -> None:
    if plan_doc["runsPerConfiguration"] != plan_doc["pairs"]:
        raise ApconformError(
            errors.PREREG_PLAN,
            f"{plan_doc['runsPerConfiguration']} runs per configuration planned for "
            f"{plan_doc['pairs']} pairs; APx 0.1 pairs every run, so they must be equal",
            path="$.plan.runsPerConfiguration",
        )
    if plan.families < MIN_FAMILIES:
        raise ApconformError(
            errors.DESIGN_FAMILIES,
            f"the plan has {plan.families} families; a population interval needs at least "
            f"{MIN_FAMILIES}, so no simulated interval could be formed",
            path="$.plan.families",
        )
    if plan.pairs < MIN_PAIRS:
        raise ApconformError(
            errors.DESIGN_PAIRS,
            f"the plan has {plan.pairs} pairs; a population interval needs at least {MIN_PAIRS}",
            path="$.plan.pairs",
        )
    if target is None:
        return
    vary, up_to = target["vary"], target["upTo"]
    start = getattr(plan, vary)
    if up_to < start or up_to > _LIMITS[vary]:
        raise ApconformError(
            errors.POWER_TARGET,
            f"upTo {up_to} must lie from the plan's {vary} ({start}) to {_LIMITS[vary]}",
            path="$.target.upTo",
        )
    if target["kind"] == "power" and not 0.5 <= target["value"] <= 0.999:
        raise ApconformError(
            errors.POWER_TARGET,
            f"a power target must lie from 0.5 to 0.999, not {target['value']}",
            path="$.target.value",
        )


def _worst_case(plan: Plan, target: Mapping[str, Any] | None, simulations: int) -> int:
    if target is None:
        return simulations * cells(plan)
    start, up_to = getattr(plan, target["vary"]), target["upTo"]
    steps = 2 + max(0, math.ceil(math.log2(max(1, up_to - start))))
    return steps * simulations * cells(_with(plan, target["vary"], up_to))


def power_analysis(
    components: Components,
    assumptions: Assumptions,
    plan_doc: Mapping[str, Any],
    *,
    alpha: float,
    simulations: int,
    seed: int,
    target: Mapping[str, Any] | None = None,
    budget: int = DEFAULT_BUDGET,
) -> tuple[list[PowerRow], dict[str, Any] | None, int]:
    """The evaluated rows (sorted), the answer (or None without a target) and the work used."""
    plan = _plan_of(plan_doc)
    _check_request(plan, target, plan_doc)
    needed = _worst_case(plan, target, simulations)
    if needed > budget:
        raise ApconformError(
            errors.POWER_BUDGET,
            f"the analysis could need {needed:,} work units (simulated slots and attempts); "
            f"the budget is {budget:,}",
            path="$.budget",
        )
    rows: dict[int, PowerRow] = {}
    work = 0

    def row_at(value: int) -> PowerRow:
        nonlocal work
        if value not in rows:
            probe = plan if target is None else _with(plan, target["vary"], value)
            rows[value] = evaluate_plan(
                components, assumptions, probe, alpha=alpha, simulations=simulations, seed=seed
            )
            work += simulations * cells(probe)
        return rows[value]

    if target is None:
        return [row_at(0)], None, work
    vary, kind, goal = target["vary"], target["kind"], target["value"]
    low, high = getattr(plan, vary), target["upTo"]
    answer: int | None
    if not _meets(row_at(high), kind, goal):
        answer = None
    elif _meets(row_at(low), kind, goal):
        answer = low
    else:
        while high - low > 1:
            middle = (low + high) // 2
            if _meets(row_at(middle), kind, goal):
                high = middle
            else:
                low = middle
        answer = high
    ordered = [rows[value] for value in sorted(rows)]
    return ordered, {"vary": vary, "value": answer, "reached": answer is not None}, work


def power_document(
    components: Components,
    assumptions: Assumptions,
    request: Mapping[str, Any],
    *,
    source: str,
    notes: list[str],
) -> dict[str, Any]:
    """The apx-ext-power/1 document of a checked request."""
    budget = request.get("budget", DEFAULT_BUDGET)
    target = request.get("target")
    rows, answer, work = power_analysis(
        components,
        assumptions,
        request["plan"],
        alpha=request["alpha"],
        simulations=request["simulations"],
        seed=request["seed"],
        target=target,
        budget=budget,
    )
    return {
        "schemaVersion": "apx-ext-power/1",
        "extension": text.EXTENSION,
        "model": text.MODEL,
        "intervalMethod": text.INTERVAL_METHOD,
        "componentSource": source,
        "components": components.to_dict(),
        "notes": notes,
        "assumptions": {
            "improvement": assumptions.improvement,
            "parentAcceptance": assumptions.parentAcceptance,
            "candidateAcceptance": assumptions.candidateAcceptance,
        },
        "alpha": request["alpha"],
        "target": None if target is None else dict(target),
        "simulations": request["simulations"],
        "seed": request["seed"],
        "budget": budget,
        "work": work,
        "table": [row.to_dict() for row in rows],
        "answer": answer,
        "limitation": text.POWER_LIMITATION,
    }


def check_components(components: Mapping[str, Any]) -> None:
    """Refuse a Pareto tail with log-normal SDs beside it (APX-EXT-POW-TAIL)."""
    if components["tail"] == "pareto":
        for name in ("taskTime", "attemptHours"):
            if components[name] != 0:
                raise ApconformError(
                    errors.POWER_TAIL,
                    f"with a pareto tail the task-time multipliers are Pareto, so {name} "
                    f"must be 0, not {components[name]}",
                    path=f"$.components.{name}",
                )


def _counts_as_integers(value: Any) -> Any:
    """The request with its counts as Python integers. JSON lets an integer be written
    39.0 and the schema accepts it; a count must not stay a float (a range, a bisection
    and the document would carry it). Anything not integral is left for the schema."""
    if not isinstance(value, dict):
        return value

    def count(item: Any) -> Any:
        return int(item) if isinstance(item, float) and item.is_integer() else item

    value = dict(value)
    for name in ("simulations", "seed", "budget"):
        if name in value:
            value[name] = count(value[name])
    if isinstance(value.get("plan"), dict):
        value["plan"] = {name: count(item) for name, item in value["plan"].items()}
    if isinstance(value.get("target"), dict) and "upTo" in value["target"]:
        value["target"] = {**value["target"], "upTo": count(value["target"]["upTo"])}
    return value


def power_request(request: Any) -> dict[str, Any]:
    """The apx-ext-power/1 document of an apx-ext-power-request (checked first)."""
    from apconform.apx.population.campaigns import as_json
    from apconform.apx.population.documents import validated
    from apconform.models.apx_population import ApxExtPowerRequest

    value = _counts_as_integers(as_json(request))
    validated(ApxExtPowerRequest, value, "power request")
    given = value.get("assumptions")
    assumptions = Assumptions(
        given["improvement"], given["parentAcceptance"], given["candidateAcceptance"]
    )
    if "components" in value:
        check_components(value["components"])
        components = Components.from_dict(value["components"])
        source, notes = "given", list[str]()
    else:
        from apconform.apx.population.pilot import estimate_components

        components, notes = estimate_components(value["pilot"])
        source = "pilot"
    return power_document(components, assumptions, value, source=source, notes=notes)
