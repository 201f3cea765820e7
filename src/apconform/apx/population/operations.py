"""The vector operations of the extension beyond APx 0.1, each backed by this package.

Registered when ``apconform.apx.operations`` is imported, so the harness, the
adapters and the API serve them beside the APx 0.1 operations. Inputs are
plain JSON; an operation's input schema is checked before it runs.
"""

from __future__ import annotations

from typing import Any

from apconform.apx.checks import MISSING
from apconform.apx.population import errors
from apconform.apx.population.comparison import population_request
from apconform.apx.population.design import Design, Side
from apconform.apx.population.interval import population_interval
from apconform.apx.population.model import Assumptions, Components, Plan, cells, simulate
from apconform.apx.population.power import power_request
from apconform.apx.population.preregistration import (
    check_preregistration,
    freeze_preregistration,
)
from apconform.conformance.operations import BAD_OPERATION_INPUT, operation
from apconform.core.errors import ApconformError

__all__: list[str] = []

MAX_SIMULATED_CELLS = 100_000
"""apx.simulate answers one campaign; larger plans belong to apx.power and its budget."""


@operation("apx.freeze_preregistration")
def apx_freeze_preregistration(value: Any) -> dict[str, Any]:
    """Input {"preregistration": draft}: the frozen preregistration."""
    return freeze_preregistration(value["preregistration"])


@operation("apx.check_preregistration")
def apx_check_preregistration(value: Any) -> dict[str, Any]:
    """Input {"preregistration"}: valid and its hash, or refused with every fault."""
    checked = check_preregistration(value["preregistration"])
    return {"valid": True, "hash": checked["hash"]}


@operation("apx.simulate")
def apx_simulate(value: Any) -> dict[str, Any]:
    """Input {components, assumptions, plan, seed, simulation}: one simulated design."""
    from apconform.apx.population.power import check_components

    components = value["components"]
    check_components(components)
    plan_doc = value["plan"]
    if plan_doc["runsPerConfiguration"] != plan_doc["pairs"]:
        raise ApconformError(
            errors.PREREG_PLAN,
            "runsPerConfiguration must equal pairs: APx 0.1 pairs every run",
            path="$.plan.runsPerConfiguration",
        )
    plan = Plan.from_dict(plan_doc)
    if cells(plan) > MAX_SIMULATED_CELLS:
        raise ApconformError(
            errors.POWER_BUDGET,
            f"the plan has {cells(plan):,} cells; apx.simulate answers at most "
            f"{MAX_SIMULATED_CELLS:,}",
            path="$.plan",
        )
    given = value["assumptions"]
    simulated = simulate(
        Components.from_dict(components),
        Assumptions(given["improvement"], given["parentAcceptance"], given["candidateAcceptance"]),
        plan,
        int(value["seed"]),
        int(value["simulation"]),
    )
    design = simulated.design

    def side(s: Side) -> dict[str, Any]:
        return {"work": [{"families": list(row)} for row in s.work], "hours": list(s.hours)}

    return {
        "families": design.families,
        "parent": side(design.parent),
        "candidate": side(design.candidate),
        "referenceHours": list(simulated.reference_hours),
    }


def _side(value: Any, name: str, families: int | None, pairs: int | None) -> Side:
    work = [tuple(row["families"]) for row in value["work"]]
    hours = tuple(value["hours"])
    widths = {len(row) for row in work}
    if len(work) != len(hours) or (pairs is not None and len(hours) != pairs):
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"{name} needs one row of work and one elapsed time per pair, the same pairs "
            "as the parent",
            path=f"$.{name}.hours",
        )
    if len(widths) != 1 or (families is not None and widths != {families}):
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"every row of {name}.work must hold one number per family, as the parent's first",
            path=f"$.{name}.work",
        )
    return Side(tuple(work), hours)


@operation("apx.population_interval")
def apx_population_interval(value: Any) -> dict[str, Any]:
    """Input {parent, candidate, alpha}: the population interval of a design given as numbers."""
    parent = _side(value["parent"], "parent", None, None)
    candidate = _side(value["candidate"], "candidate", len(parent.work[0]), len(parent.hours))
    design = Design(len(parent.work[0]), parent, candidate)
    interval = population_interval(design, value["alpha"])
    return {
        "estimate": interval.estimate,
        "interval": {
            "lower": interval.lower,
            "upper": interval.upper,
            "confidence": interval.confidence,
            "standardError": interval.standard_error,
            "degreesOfFreedom": interval.degrees_of_freedom,
            "method": "pair-jackknife-anova-t/1",
            "components": {
                "families": interval.families,
                "pairs": interval.pairs,
                "interaction": interval.interaction,
            },
        },
    }


@operation("apx.power")
def apx_power(value: Any) -> dict[str, Any]:
    """Input: an apx-ext-power-request; the apx-ext-power/1 analysis."""
    return power_request(value)


@operation(
    "apx.population",
    inputs={"/manifest": "apx-manifest", "/comparison": "apx-comparison"},
)
def apx_population(value: Any) -> dict[str, Any]:
    """Input {manifest, comparison, options?, preregistration?}: the apx-ext-population/1 result."""
    return population_request(
        {
            name: value[name]
            for name in ("manifest", "comparison", "options", "preregistration")
            if name in value
        }
        if type(value) is dict
        else MISSING
    )
