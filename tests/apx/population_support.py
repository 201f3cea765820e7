"""Shared inputs of the population-extension tests: components, plans, a preregistration."""

from __future__ import annotations

import copy
from typing import Any

from apconform.apx.population.model import ILLUSTRATIVE, Assumptions, Plan
from apconform.apx.population.text import EXTENSION

COMPONENTS = ILLUSTRATIVE
ASSUMPTIONS = Assumptions(improvement=0.5, parentAcceptance=0.6, candidateAcceptance=0.7)
SMALL = Plan(
    families=5, instancesPerFamily=2, participantsPerClass=2, attemptsPerParticipant=1, pairs=5
)


def plan_dict(plan: Plan) -> dict[str, int]:
    return plan.to_dict()


def power_request(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "components": COMPONENTS.to_dict(),
        "assumptions": {
            "improvement": ASSUMPTIONS.improvement,
            "parentAcceptance": ASSUMPTIONS.parentAcceptance,
            "candidateAcceptance": ASSUMPTIONS.candidateAcceptance,
        },
        "plan": plan_dict(SMALL),
        "alpha": 0.05,
        "simulations": 100,
        "seed": 7,
    }
    request.update(changes)
    return request


_DRAFT: dict[str, Any] = {
    "schemaVersion": "apx-ext-preregistration/1",
    "extension": EXTENSION,
    "id": "prereg-population-example",
    "version": "1",
    "registeredAt": "2026-11-30T09:00:00Z",
    "claim": {
        "parent": "agent v1 with the frozen tools",
        "candidate": "agent v2 with the frozen tools",
        "direction": "increase",
    },
    "estimand": "population-delta-apx",
    "minimumEffect": 0.5,
    "errorRates": {"alpha": 0.05, "power": 0.8},
    "plan": plan_dict(SMALL),
    "analysis": {
        "model": "crossed-families-runs/1",
        "intervalMethod": "pair-jackknife-anova-t/1",
        "seed": 7,
    },
    "holdoutCustody": {
        "custodian": "an evaluation custodian outside the development team",
        "statement": (
            "The holdout tasks are kept by the custodian, never shown to the developers, "
            "and used once for this comparison."
        ),
    },
}


def draft(**changes: Any) -> dict[str, Any]:
    """A preregistration draft (no hash), with top-level members replaced."""
    document = copy.deepcopy(_DRAFT)
    document.update(changes)
    return document
