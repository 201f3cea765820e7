"""The population comparison document (apx-ext-population/1), built beside the APx 0.1 promotion.

The estimate is the promotion's deltaAPx, unchanged; the interval is the
hierarchical one (``interval``); the promotion itself, with its paired
percentile bootstrap, is carried whole. With a preregistration the document
names it and lists every departure from it; without one it is exploratory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from apconform.apx.checks import MISSING
from apconform.apx.population import errors, text
from apconform.apx.population.campaigns import (
    Campaigns,
    Counts,
    as_json,
    read_campaigns,
    score_comparison,
)
from apconform.apx.population.interval import population_interval
from apconform.apx.population.preregistration import reference, require_preregistration
from apconform.core.errors import ApconformError

__all__ = ["DEFAULT_ALPHA", "departures", "population_document", "population_request"]

DEFAULT_ALPHA = 0.05
"""Without a preregistration the interval is a 95% interval, as the APx 0.1 one is."""

_HASHES = ("suiteHash", "baselineHash", "evaluatorHash", "environmentHash")


def _spread(values: Sequence[int]) -> Any:
    """One number when every family agrees, else the range."""
    low, high = min(values), max(values)
    return low if low == high else {"min": low, "max": high}


def departures(
    preregistration: Mapping[str, Any], counts: Counts, manifest: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Every way the analysed campaigns differ from the preregistered plan and manifest."""
    found: list[dict[str, Any]] = []

    def differ(item: str, planned: Any, actual: Any) -> None:
        if planned != actual:
            found.append({"item": item, "planned": planned, "actual": actual})

    binding = preregistration.get("manifest")
    if binding is not None:
        for name in _HASHES:
            component = name.removesuffix("Hash")
            differ(f"manifest.{name}", binding[name], manifest[component]["hash"])
    plan = preregistration["plan"]
    differ("plan.families", plan["families"], counts.families)
    differ(
        "plan.instancesPerFamily", plan["instancesPerFamily"], _spread(counts.instances_per_family)
    )
    differ(
        "plan.participantsPerClass",
        plan["participantsPerClass"],
        _spread(counts.participants_per_class),
    )
    differ(
        "plan.attemptsPerParticipant",
        plan["attemptsPerParticipant"],
        _spread(counts.attempts_per_participant),
    )
    differ("plan.runsPerConfiguration", plan["runsPerConfiguration"], counts.pairs)
    differ("plan.pairs", plan["pairs"], counts.pairs)
    return found


def population_document(
    manifest: Any, comparison: Any, options: Any = MISSING, preregistration: Any = MISSING
) -> dict[str, Any]:
    """The apx-ext-population/1 document of a paired comparison.

    The APx 0.1 kernel checks the manifest and the comparison first (APX-
    codes), then the preregistration when given (APX-EXT-PRE- codes), then the
    design (APX-EXT-POP- codes).
    """
    plain, promotion, scored = score_comparison(manifest, comparison, options)
    prereg = (
        None if preregistration is MISSING else require_preregistration(as_json(preregistration))
    )
    campaigns: Campaigns = read_campaigns(plain, promotion, scored)
    counts, promotion = campaigns.counts, campaigns.promotion
    estimate = promotion["deltaAPx"]
    if estimate is None:
        raise ApconformError(
            errors.DESIGN_POWER,
            "a configuration has no credited work, so deltaAPx is null and has no interval",
            path="$.comparison.pairs",
        )
    alpha = DEFAULT_ALPHA if prereg is None else prereg["errorRates"]["alpha"]
    interval = population_interval(campaigns.design, alpha, estimate)
    found = [] if prereg is None else departures(prereg, counts, campaigns.manifest)
    supported = None
    if prereg is not None:
        increase = prereg["claim"]["direction"] == "increase"
        supported = interval.lower > 0 if increase else interval.upper < 0
    return {
        "schemaVersion": "apx-ext-population/1",
        "extension": text.EXTENSION,
        "status": promotion["status"],
        "certified": False,
        "deployAuthorized": False,
        "preregistration": None if prereg is None else reference(prereg),
        "departures": found,
        "confirmatory": prereg is not None and not found,
        "estimand": text.ESTIMAND,
        "estimandStatement": text.ESTIMAND_STATEMENT,
        "design": counts.to_dict(),
        "estimate": estimate,
        "interval": {
            "lower": interval.lower,
            "upper": interval.upper,
            "confidence": interval.confidence,
            "standardError": interval.standard_error,
            "degreesOfFreedom": interval.degrees_of_freedom,
            "method": text.INTERVAL_METHOD,
            "components": {
                "families": interval.families,
                "pairs": interval.pairs,
                "interaction": interval.interaction,
            },
        },
        "included": list(text.INCLUDED),
        "notIncluded": list(text.NOT_INCLUDED),
        "claimSupported": supported,
        "apx01": promotion,
        "limitation": text.POPULATION_LIMITATION,
    }


def population_request(request: Any) -> dict[str, Any]:
    """The apx-ext-population/1 document of {manifest, comparison, options?, preregistration?}.

    The members are read as the kernel reads them (an absent one is absent),
    so the kernel's refusals come first, as ``apx promote`` gives them.
    """
    value = as_json(request)

    def member(name: str) -> Any:
        return value.get(name, MISSING) if type(value) is dict else MISSING

    return population_document(
        member("manifest"), member("comparison"), member("options"), member("preregistration")
    )
